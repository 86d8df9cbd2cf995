"""The one 0600 atomic writer: trace files (files.save) and exports (write_private) both go through it."""

import os
import stat
from pathlib import Path

import pytest

from mrtr_studio.trace import TraceStore, files
from mrtr_studio.trace.private_files import private_writer, write_private


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_failure_half_way_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.xml"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), private_writer(target) as handle:
        handle.write(b"half of the new")
        raise RuntimeError("crash")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xml"]


def test_trace_save_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        saved = files.save(tmp_path / "t.mrtr.json", TraceStore())
        written = write_private(tmp_path / "x.txt", "é")
    finally:
        os.umask(old)
    assert mode(saved) == 0o600 and mode(written) == 0o600
    assert files.open_trace(saved) == ([], [])
    assert written.read_bytes() == "é".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.mrtr.json", "x.txt"]
