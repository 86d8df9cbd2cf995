"""A trace's only size ceiling is the memory opening it needs: refused with both sizes named, never a traceback."""

import json
from pathlib import Path

import pytest

from mrtr_studio import defaults
from mrtr_studio.trace import files, memory_fit
from mrtr_studio.trace.memory_fit import available_memory, check_fits
from tools.synthetic_trace import synthetic_trace


def test_available_memory_is_read_from_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemFree:         1000 kB\nMemAvailable:   23897088 kB\n")
    assert available_memory(meminfo) == 23897088 * 1024


@pytest.mark.parametrize("text", ["MemTotal: 1 kB\n", "MemAvailable: lots\n", "MemAvailable:\n", ""])
def test_a_meminfo_that_does_not_say_refuses_nothing(tmp_path: Path, text: str) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(text)
    assert available_memory(meminfo) is None


def test_no_meminfo_at_all_is_none(tmp_path: Path) -> None:
    assert available_memory(tmp_path / "absent") is None


def test_the_refusal_names_the_file_its_size_and_the_memory() -> None:
    with pytest.raises(ValueError) as caught:
        check_fits("big.mrtr.json", 3 * 1024**3, 2.0, available=1024**3)
    assert str(caught.value) == ("big.mrtr.json is 3,221,225,472 bytes (3,072 MB): opening it needs about 6,144 MB "
                                 "of memory and 1,024 MB is available; close other programs or open it on a larger "
                                 "machine")
    check_fits("big.mrtr.json", 3 * 1024**3, 2.0, available=7 * 1024**3)  # fits: no error


def _saved(tmp_path: Path) -> Path:
    return files.save(tmp_path / "t.mrtr.json", synthetic_trace(20, transport=True))


def test_a_file_that_does_not_fit_is_refused_before_it_is_read(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path)
    size = path.stat().st_size
    monkeypatch.setattr(memory_fit, "available_memory", lambda: int(size * defaults.TRACE_MEMORY_PER_BYTE) - 1)
    with pytest.raises(ValueError, match=rf"t\.mrtr\.json is {size:,} bytes .* is available"):
        files.read_trace(path)


def test_a_file_that_fits_opens_whatever_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path)
    size = path.stat().st_size
    monkeypatch.setattr(memory_fit, "available_memory", lambda: int(size * defaults.TRACE_MEMORY_PER_BYTE) + 1)
    assert len(files.read_trace(path).messages) == 80
    monkeypatch.setattr(memory_fit, "available_memory", lambda: None)  # the system does not say: no ceiling
    assert len(files.read_trace(path).messages) == 80


def test_a_file_read_whole_needs_more_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another layout is parsed whole (its text and tree at once): refused where the studio's own layout fits."""
    operations, messages = synthetic_trace(20, transport=True)
    pretty = tmp_path / "pretty.mrtr.json"
    pretty.write_text(json.dumps(files.to_document(operations, messages), indent=1))
    size = pretty.stat().st_size
    fits_by_records = int(size * defaults.TRACE_MEMORY_PER_BYTE) + 1
    assert fits_by_records < size * defaults.TRACE_MEMORY_PER_BYTE_WHOLE
    monkeypatch.setattr(memory_fit, "available_memory", lambda: fits_by_records)
    with pytest.raises(ValueError, match="opening it needs about"):
        files.read_trace(pretty)
    monkeypatch.setattr(memory_fit, "available_memory", lambda: int(size * defaults.TRACE_MEMORY_PER_BYTE_WHOLE) + 1)
    assert len(files.read_trace(pretty).messages) == 80
