"""`mrtr-studio FILE.mrtr.json`: the trace opens before the window, its notes said on the command line."""

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrtr_studio.cli.parser import main
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.trace_argument import open_on_start, split_trace_file

from ..trace.test_newer_format import newer_document, write

ROOT = Path(__file__).resolve().parents[2]


def test_a_trace_named_first_goes_to_the_window_and_commands_are_untouched() -> None:
    seen: list[argparse.Namespace] = []
    assert main(["flows/t.mrtr.json", "--screen-size", "1366x768"], gui=lambda a: seen.append(a) or 0) == 0
    assert seen[0].trace_file == "flows/t.mrtr.json" and seen[0].command is None
    assert seen[0].screen_size == "1366x768"
    assert split_trace_file(["serve", "--port", "0"], ["serve"]) == (None, ["serve", "--port", "0"])
    assert split_trace_file(["--scenario", "x.json"], ["serve"]) == (None, ["--scenario", "x.json"])


def test_a_newer_trace_is_said_on_stderr_and_opened(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "newer.mrtr.json", newer_document("1.2"), "lines")
    studio = Studio()
    notes = open_on_start(studio, str(path))
    assert notes is not None and len(studio.store.operations) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mrtr-studio: ")
    assert "written by a newer MRTR Studio (trace format 1.2; this one reads 1)" in err[0]
    assert "operations[].tags (2)" in err[0]


def test_an_unreadable_trace_is_one_line_and_status_2_before_any_window(tmp_path: Path) -> None:
    bad = tmp_path / "major.mrtr.json"
    bad.write_text('{"format": "mrtr-studio-trace", "version": "2.0", "operations": [], "messages": []}')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", str(bad)], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"mrtr-studio: cannot open {bad}: {bad} has trace format version 2.0; this studio reads 1"]
