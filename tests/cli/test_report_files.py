"""write_report_files: what check and check-client share for --trace/--junit/--sarif."""

from pathlib import Path

import pytest

from mrtr_studio.cli.check_report import write_report_files


def test_a_file_that_cannot_be_written_names_its_flag_and_the_others_are_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-dir" / "j.xml"
    good = tmp_path / "t.txt"
    ok = write_report_files("check", [
        ("--junit", str(missing), lambda path: Path(path).write_text("x")),
        ("--sarif", None, lambda path: pytest.fail("a flag not given is not written")),
        ("--trace", str(good), lambda path: Path(path).write_text("trace")),
    ])
    assert ok is False
    assert good.read_text() == "trace"
    err = capsys.readouterr().err
    assert err == f"mrtr-studio check: --junit {missing}: cannot write: No such file or directory\n"


def test_all_written_is_true_and_a_hostile_path_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert write_report_files("check-client", [("--trace", str(tmp_path / "a"), lambda p: Path(p).write_text(""))])
    bad = str(tmp_path / "\x1b[31mred" / "x")
    assert not write_report_files("check-client", [("--junit", bad, lambda p: Path(p).write_text(""))])
    assert "\x1b" not in capsys.readouterr().err
