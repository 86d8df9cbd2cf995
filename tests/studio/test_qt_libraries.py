"""The pre-flight check of Qt's xcb plugin libraries: faked ldd output, and the real entry point."""

import os
import subprocess
import sys
from pathlib import Path

from mrtr_studio.studio import qt_libraries
from mrtr_studio.studio.qt_libraries import (
    ALL_PACKAGES,
    install_command,
    missing_libraries,
    not_found,
    platform_problem,
    uses_xcb,
)

LDD_MISSING = """\
\tlinux-vdso.so.1 (0x00007ffd6d3f2000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f5a1c000000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f5a1bf00000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5a1b000000)
"""


def fake_pyside(tmp_path: Path) -> Path:
    for relative in qt_libraries.PLUGIN_FILES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"\x7fELF")
    return tmp_path


def test_not_found_lists_each_missing_soname_once():
    assert not_found(LDD_MISSING) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert not_found("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_missing_libraries_runs_ldd_on_the_plugin_and_its_qpa_library(tmp_path):
    base = fake_pyside(tmp_path)
    seen: list[list[Path]] = []

    def ldd(paths: list[Path]) -> str:
        seen.append(paths)
        return f"{paths[0]}:\n{LDD_MISSING}{paths[1]}:\n\tlibxcb-cursor.so.0 => not found\n"

    assert missing_libraries(base, ldd) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"]
    assert [[p.name for p in paths] for paths in seen] == [["libqxcb.so", "libQt6XcbQpa.so.6"]]


def test_the_install_line_names_the_debian_packages():
    assert install_command(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"], root=False) == \
        "sudo apt-get install libxcb-icccm4 libxcb-keysyms1"
    assert install_command(["libxkbcommon-x11.so.0", "libEGL.so.1", "libdbus-1.so.3"], root=False) == \
        "sudo apt-get install libdbus-1-3 libegl1 libxkbcommon-x11-0"
    # a soname the table does not know: the whole known set, so the person is not left guessing
    assert install_command(["libxcb-new.so.9"], root=False) == "sudo apt-get install " + " ".join(ALL_PACKAGES)
    # root on a minimal Debian has no sudo: the bare line
    assert install_command(["libxcb-icccm.so.4"], root=True) == "apt-get install libxcb-icccm4"


def test_the_problem_is_reported_only_when_xcb_is_used(tmp_path):
    base = fake_pyside(tmp_path)
    problem = platform_problem({"DISPLAY": ":0"}, base, lambda _paths: LDD_MISSING)
    assert problem is not None
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in problem
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1" in problem
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}, base, lambda _paths: LDD_MISSING) is None
    assert platform_problem({"QT_QPA_PLATFORM": "xcb"}, base, lambda _paths: LDD_MISSING) is not None
    assert platform_problem({}, base, lambda _paths: "\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") is None
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb:nograb"}) and not uses_xcb({"QT_QPA_PLATFORM": "wayland"})
    assert not uses_xcb({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"})
    assert uses_xcb({"XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"})


def test_the_real_plugin_resolves_on_this_machine():
    base = qt_libraries.pyside_dir()
    assert base is not None and (base / qt_libraries.PLUGIN_FILES[0]).exists()
    assert missing_libraries(base) == []


def test_the_gui_entry_prints_the_apt_line_and_exits_before_qt(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    ldd = fake_bin / "ldd"
    ldd.write_text("#!/bin/sh\ncat <<'END'\n" + LDD_MISSING + "END\n")
    ldd.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(PATH=f"{fake_bin}{os.pathsep}{env.get('PATH', '')}", DISPLAY=":987")
    done = subprocess.run([sys.executable, "-m", "mrtr_studio"], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 3, done.stderr
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1" in done.stderr
    assert "Traceback" not in done.stderr and "xcb-cursor0" not in done.stderr


def test_the_readme_names_every_package():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert [package for package in ALL_PACKAGES if package not in readme.split()] == []


def test_the_check_started_early_gives_the_same_answer(tmp_path, monkeypatch):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    ldd = fake_bin / "ldd"
    ldd.write_text("#!/bin/sh\ncat <<'END'\n" + LDD_MISSING + "END\n")
    ldd.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    answer = qt_libraries.start_platform_check({"QT_QPA_PLATFORM": "xcb"})  # ldd runs from here on
    assert answer() == platform_problem({"QT_QPA_PLATFORM": "xcb"}, run=lambda _paths: LDD_MISSING) is not None
    assert qt_libraries.start_platform_check({"QT_QPA_PLATFORM": "offscreen"})() is None


def test_the_packages_for_missing_sonames_come_from_the_one_table():
    found = qt_libraries.packages_for(["libxcb-keysyms.so.1", "libxcb-icccm.so.4"])
    assert found == ["libxcb-icccm4", "libxcb-keysyms1"]
    assert qt_libraries.packages_for([]) == []
    assert qt_libraries.packages_for(["libunknown.so.9"]) == list(qt_libraries.ALL_PACKAGES)
