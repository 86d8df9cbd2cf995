"""Every file holding traffic is its owner's alone (0600) from its first byte, whatever the umask."""

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mrtr_studio.cli.check_report import CheckResult, write_junit
from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.private_files import write_private
from tests.trace.view_flows import run_flow

from .test_diagram_view import make_view


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the usual one: files readable by everyone unless created otherwise
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_diagram_exports_are_private(qtbot, tmp_path: Path, open_umask: None) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    view, selection = make_view(qtbot, store)
    selection.select_operation(run_flow(store, "delete_file").id)
    for name in ("d.png", "d.svg", "d.mmd"):
        view.export_to(str(tmp_path / name))
        assert mode(tmp_path / name) == 0o600, name
    assert (tmp_path / "d.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (tmp_path / "d.svg").read_text() and "delete_file" in (tmp_path / "d.svg").read_text()
    assert list(tmp_path.glob(".*.tmp")) == []


def test_write_private_replaces_a_readable_file_and_junit_is_private(tmp_path: Path, open_umask: None) -> None:
    loose = tmp_path / "flow.html"
    loose.write_text("old")
    loose.chmod(0o644)
    write_private(loose, "<p>new</p>")
    assert loose.read_text() == "<p>new</p>" and mode(loose) == 0o600
    write_junit(tmp_path / "junit.xml", "http://127.0.0.1:1/mcp",
                [CheckResult("c", "a check", "MUST", "fail", "the server answered {\"secret\": 1}")])
    assert mode(tmp_path / "junit.xml") == 0o600
    assert b"<testsuite" in (tmp_path / "junit.xml").read_bytes()
