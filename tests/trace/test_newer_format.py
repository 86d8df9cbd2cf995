"""A trace from a newer studio: what this version understands is shown, the rest kept on save, and said."""

import json
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.trace import TraceStore, files
from mrtr_studio.trace.file_format import TraceFileError
from mrtr_studio.trace.format_version import VersionError
from tools.synthetic_trace import synthetic_trace


def write(path: Path, document: dict[str, Any], layout: str) -> Path:
    """`lines`: the layout the studio writes (its head line carries every top-level field but the
    records); `pretty`: any other, read whole."""
    if layout == "pretty":
        path.write_text(json.dumps(document, indent=2))
        return path
    head = {key: value for key, value in document.items() if key not in ("operations", "messages")}
    operations, messages = document["operations"], document["messages"]
    path.write_text(json.dumps(head, separators=(",", ":"))[:-1] + ',\n"operations":[\n'
                    + ",\n".join(json.dumps(op) for op in operations) + '\n],\n"messages":[\n'
                    + ",\n".join(json.dumps(m) for m in messages) + "\n]}\n")
    return path


def newer_document(version: Any = "1.3") -> dict[str, Any]:
    """A valid trace with a field this studio does not know at every level."""
    document = files.to_document(*synthetic_trace(2))
    document["version"] = version
    document["producer"] = {"name": "mrtr-studio", "build": "2027.1"}
    document["operations"][0]["tags"] = ["release", "<b>"]
    document["operations"][1]["tags"] = []
    document["messages"][2]["colour"] = "red"
    document["messages"][3]["findings"] = [{"rule": "r", "severity": "info", "message": "m", "confidence": 0.5}]
    return document


def fields_of(document: dict[str, Any]) -> tuple[Any, ...]:
    return (document["producer"], document["operations"][0]["tags"], document["operations"][1]["tags"],
            document["messages"][2]["colour"], document["messages"][3]["findings"][0]["confidence"])


@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_a_newer_trace_opens_with_a_note_and_round_trips_every_unknown_field(tmp_path: Path, layout: str) -> None:
    original = newer_document()
    path = write(tmp_path / "newer.mrtr.json", original, layout)
    opened = files.read_trace(path)
    assert len(opened.operations) == 2 and len(opened.messages) == 8
    assert opened.newer is not None and opened.newer.version == (1, 3)
    [note] = opened.notes(str(path))
    assert "written by a newer MRTR Studio (trace format 1.3; this one reads 1)" in note
    for where in ("the file's producer", "operations[].tags (2)", "messages[].colour",
                  "messages[].findings[].confidence"):
        assert where in note, (where, note)
    store = TraceStore()
    files.load_into(store, path)
    saved = files.save(tmp_path / "again.mrtr.json", store)
    again = json.loads(saved.read_text())
    assert again["version"] == "1.3"
    assert fields_of(again) == fields_of(original)
    assert again == original  # nothing lost, nothing added
    # And once more, in the layout the studio writes: identical bytes.
    store2 = TraceStore()
    files.load_into(store2, saved)
    assert files.save(tmp_path / "third.mrtr.json", store2).read_text() == saved.read_text()


def test_a_newer_trace_without_unknown_fields_says_nothing_is_hidden(tmp_path: Path) -> None:
    document = files.to_document(*synthetic_trace(1))
    document["version"] = "1.1"
    opened = files.read_trace(write(tmp_path / "t.mrtr.json", document, "lines"))
    assert opened.notes("t") == ["t was written by a newer MRTR Studio (trace format 1.1; this one reads 1); "
                                 "it holds nothing this version does not show."]


@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_unknown_fields_in_a_file_of_this_version_are_damage(tmp_path: Path, layout: str) -> None:
    document = newer_document(version=1)
    with pytest.raises(TraceFileError, match=r"damaged: producer: Extra inputs are not permitted"):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, layout))
    del document["producer"]
    with pytest.raises(TraceFileError, match=r"operations\[0\]\.tags: Extra inputs are not permitted"):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, layout))
    del document["operations"][0]["tags"], document["operations"][1]["tags"], document["messages"][2]["colour"]
    with pytest.raises(TraceFileError, match=r"messages\[3\]\.findings\[0\]\.confidence: Extra inputs"):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, layout))


@pytest.mark.parametrize(("version", "expected"), [
    (2, r"has trace format version 2; this studio reads 1$"),
    ("2.1", r"has trace format version 2\.1; this studio reads 1$"),
    ("0.9", r"has trace format version 0\.9; this studio reads 1$"),
    ("1.x", r"has trace format version '1\.x', which is not a version"),
    (1.5, r"has trace format version 1\.5, which is not a version"),
    (True, r"has trace format version True, which is not a version"),
])
@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_another_major_version_is_refused_naming_both(tmp_path: Path, version: Any, expected: str,
                                                      layout: str) -> None:
    document = newer_document(version=version)
    document["operations"][0]["kind_of_thing"] = {"a": 1}
    with pytest.raises(VersionError, match=expected):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, layout))


def test_a_newer_trace_with_a_broken_known_field_is_still_refused_with_its_place(tmp_path: Path) -> None:
    document = newer_document()
    document["messages"][4]["seq"] = "4"
    with pytest.raises(TraceFileError, match=r"messages\[4\]\.seq: Input should be a valid integer"):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, "pretty"))


def test_the_note_escapes_and_bounds_field_names_from_the_file(tmp_path: Path) -> None:
    document = files.to_document(*synthetic_trace(1))
    document["version"] = "1.2"
    document["messages"][0]["\x1b[31mred\x07"] = 1
    document["messages"][0]["a" * 500] = 2
    for number in range(30):
        document["messages"][0][f"field{number:02d}"] = number
    note = files.read_trace(write(tmp_path / "t.mrtr.json", document, "lines")).notes("t")[0]
    assert "\x1b" not in note and "\x07" not in note and "messages[].\\x1b[31mred\\x07" in note
    assert len(note) < 1500 and "and 20 more" in note
    assert "a" * 80 not in note and "messages[]." + "a" * 68 + "…" in note


@pytest.mark.parametrize("layout", ["lines", "pretty"])
def test_new_values_of_known_fields_are_shown_as_a_fallback_and_written_back(tmp_path: Path, layout: str) -> None:
    document = files.to_document(*synthetic_trace(2))
    document["version"] = "1.5"
    document["operations"][1]["outcome"] = "paused"
    document["messages"][2]["kind"] = "progress"
    document["messages"][3]["findings"] = [{"rule": "r", "severity": "hint", "message": "m"}]
    path = write(tmp_path / "t.mrtr.json", document, layout)
    opened = files.read_trace(path)
    assert opened.operations[1].outcome == "aborted"  # what this version can draw
    assert opened.messages[2].kind == "invalid" and opened.messages[3].findings[0].severity == "info"
    [note] = opened.notes("t")
    for said in ("operations[].outcome 'paused' (shown as aborted)", "messages[].kind 'progress' (shown as invalid)",
                 "messages[].findings[].severity 'hint' (shown as info)"):
        assert said in note, (said, note)
    store = TraceStore()
    store.load(opened.operations, opened.messages, opened.origin())
    assert json.loads(files.save(tmp_path / "again.mrtr.json", store).read_text()) == document


def test_a_new_value_in_a_file_of_this_version_is_damage(tmp_path: Path) -> None:
    document = files.to_document(*synthetic_trace(1))
    document["messages"][1]["kind"] = "progress"
    with pytest.raises(TraceFileError, match=r"messages\[1\]\.kind: Input should be 'request', .* or 'auth' "
                                             r"\(got 'progress'\)"):
        files.read_trace(write(tmp_path / "t.mrtr.json", document, "lines"))
