"""Before the window opens: are the shared libraries Qt's X11 (xcb) platform plugin needs installed?

When one is missing Qt aborts with "xcb-cursor0 or libxcb-cursor0 is needed", whatever is really
missing. This check runs `ldd` on PySide6's xcb plugin and its QPA library (located without
importing PySide6, so no Qt code is loaded), maps every soname reported "not found" to its Debian
package and returns the exact `apt-get install` line. It runs only when the xcb plugin would be used:
not with QT_QPA_PLATFORM=offscreen, minimal, wayland, ...
"""

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

#: soname -> the Debian (12+) package that ships it: everything libqxcb.so and libQt6XcbQpa.so.6 load.
DEBIAN_PACKAGES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libpng16.so.16": "libpng16-16",
    "libexpat.so.1": "libexpat1",
    "libz.so.1": "zlib1g",
}
#: The xcb plugin's whole set, for the README and for a soname this table does not know.
ALL_PACKAGES: tuple[str, ...] = tuple(sorted(set(DEBIAN_PACKAGES.values())))
PLUGIN_FILES = ("Qt/plugins/platforms/libqxcb.so", "Qt/lib/libQt6XcbQpa.so.6")
LDD_SECONDS = 10.0

LddRunner = Callable[[list[Path]], str]


def uses_xcb(environ: Mapping[str, str]) -> bool:
    """Whether Qt will load its xcb plugin first: QT_QPA_PLATFORM naming xcb (e.g. "xcb;offscreen"), or
    unset outside a Wayland session (in one, Qt 6 tries its wayland plugin first)."""
    platform = environ.get("QT_QPA_PLATFORM", "").strip()
    if platform:
        return platform.split(";")[0].split(":")[0] == "xcb"
    return not (environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY"))


def pyside_dir() -> Path | None:
    """PySide6's package directory, found without importing it."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def run_ldd(paths: list[Path]) -> str:
    """`ldd paths...`'s output, one process for all (it runs before every launch: ~25 ms here);
    "" when ldd is not there or fails, and then nothing is reported missing."""
    ldd = shutil.which("ldd")
    if ldd is None or not paths:
        return ""
    try:
        done = subprocess.run([ldd, *map(str, paths)], capture_output=True, text=True, timeout=LDD_SECONDS,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout


def not_found(ldd_output: str) -> list[str]:
    """The sonames ldd reports as "not found", in order, once each."""
    missing: list[str] = []
    for line in ldd_output.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def plugin_paths(base: Path) -> list[Path]:
    """The xcb plugin and its QPA library under PySide6's directory, those that are there."""
    return [base / relative for relative in PLUGIN_FILES if (base / relative).exists()]


def missing_libraries(base: Path, run: LddRunner = run_ldd) -> list[str]:
    """Every soname the xcb plugin or its QPA library needs and the system does not have."""
    return not_found(run(plugin_paths(base)))


def packages_for(missing: list[str]) -> list[str]:
    """The Debian packages that ship `missing` sonames; an unknown one means the whole known set.
    (`.ci/run` installs these on a CI machine that lacks them, through the same table.)"""
    if any(name not in DEBIAN_PACKAGES for name in missing):
        return list(ALL_PACKAGES)
    return sorted({DEBIAN_PACKAGES[name] for name in missing})


def install_command(missing: list[str], *, root: bool | None = None) -> str:
    """The `apt-get install` line for `missing`; unknown sonames fall back to the whole known set.

    As root the line is given bare (a minimal Debian has no sudo); otherwise behind `sudo`."""
    packages = packages_for(missing)
    if root is None:
        root = hasattr(os, "geteuid") and os.geteuid() == 0
    return ("" if root else "sudo ") + "apt-get install " + " ".join(packages)


def start_platform_check(environ: Mapping[str, str] | None = None) -> Callable[[], str | None]:
    """`platform_problem`, with ldd started now and its answer read when asked for: the GUI entry imports
    the window's modules meanwhile (PySide6's modules load no platform plugin; Qt loads xcb's, and aborts
    there, only with the QApplication), so ldd's 25-50 ms run beside those imports instead of before them."""
    env = os.environ if environ is None else environ
    where = pyside_dir() if uses_xcb(env) else None
    ldd = shutil.which("ldd")
    paths = plugin_paths(where) if where else []
    if where is None or ldd is None or not paths:
        return lambda: None
    try:
        process = subprocess.Popen([ldd, *map(str, paths)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True)
    except OSError:
        return lambda: None

    def answer() -> str | None:
        try:
            output, _ = process.communicate(timeout=LDD_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return None
        return platform_problem(env, where, lambda _paths: output or "")

    return answer


def platform_problem(environ: Mapping[str, str] | None = None, base: Path | None = None,
                     run: LddRunner = run_ldd) -> str | None:
    """What to tell the person before Qt aborts, or None when the window can start."""
    env = os.environ if environ is None else environ
    if not uses_xcb(env):
        return None
    where = base if base is not None else pyside_dir()
    if where is None:
        return None
    missing = missing_libraries(where, run)
    if not missing:
        return None
    return ("The studio's window needs libraries that are not installed: " + ", ".join(missing) + ".\n"
            "On Debian or Ubuntu install them with:\n    " + install_command(missing) + "\n"
            "(or run without a display: QT_QPA_PLATFORM=offscreen)")
