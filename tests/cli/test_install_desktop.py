"""`mrtr-studio --install-desktop` in a temporary HOME: a desktop entry whose Exec opens a file in this
studio and a MIME package for *.mrtr.json, which update-mime-database (when installed) compiles; nothing
is written without the flag, and mixing it with a command is a usage error."""

import configparser
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mrtr_studio.cli.install_desktop import MIME_TYPE, exec_word
from mrtr_studio.cli.parser import main


def run(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_DATA_HOME"}
    env["HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "mrtr_studio", *argv], capture_output=True, text=True,
                          env=env, timeout=120, cwd=str(Path(__file__).parents[2]))


def test_install_writes_the_entry_and_the_mime_type(tmp_path: Path) -> None:
    done = run(tmp_path, "--install-desktop")
    assert done.returncode == 0, done.stderr
    share = tmp_path / ".local" / "share"
    desktop = share / "applications" / "mrtr-studio.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(desktop, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["MimeType"] == f"{MIME_TYPE};"
    words = shlex.split(section["Exec"])
    assert words[-1] == "%f" and Path(words[0]).is_file()
    assert f"wrote {desktop}" in done.stdout
    package = ET.parse(share / "mime" / "packages" / "mrtr-studio.xml").getroot()
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    mime = package.find("m:mime-type", ns)
    assert mime is not None and mime.get("type") == MIME_TYPE
    assert [g.get("pattern") for g in mime.findall("m:glob", ns)] == ["*.mrtr.json"]
    if shutil.which("update-mime-database"):
        assert "*.mrtr.json" in (share / "mime" / "globs2").read_text() and "refreshed" in done.stdout
    else:
        assert "update-mime-database is not installed" in done.stdout


def test_nothing_is_written_without_the_flag_and_a_command_is_refused(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert main(["state", "decode", "x"]) in (0, 1, 2)
    with pytest.raises(SystemExit) as exited:
        main(["--install-desktop", "serve"])
    assert exited.value.code == 2 and "--install-desktop takes no command" in capsys.readouterr().err
    assert not (tmp_path / ".local").exists()


def test_exec_words_are_quoted_as_the_specification_says() -> None:
    assert exec_word("/usr/bin/mrtr-studio") == "/usr/bin/mrtr-studio"
    assert exec_word('/opt/my "odd" $dir/100%/py') == '"/opt/my \\"odd\\" \\$dir/100%%/py"'


def test_an_unwritable_data_folder_is_one_line_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    done = run(home, "--install-desktop")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("mrtr-studio --install-desktop: cannot write under ") and done.stderr.count("\n") == 1
