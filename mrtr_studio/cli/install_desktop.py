"""`mrtr-studio --install-desktop`: a desktop entry and the `.mrtr.json` MIME type for this user, so a
file manager opens a trace in the studio (`mrtr-studio FILE.mrtr.json`) and shows it as one.

Only on request, only under the user's data folder ($XDG_DATA_HOME, else ~/.local/share: the
applications/ and mime/ folders of the XDG specifications), nothing system-wide, no root. The
databases are refreshed with update-mime-database / update-desktop-database when they are installed
(bounded in time); when they are not, the files are still in place and that is said.
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

APP_ID = "mrtr-studio"
MIME_TYPE = "application/x-mrtr-trace+json"
GLOB = "*.mrtr.json"
TOOL_SECONDS = 30


@dataclass(frozen=True)
class Installed:
    desktop: Path
    mime: Path
    notes: list[str] = field(default_factory=list)


def data_home() -> Path:
    given = os.environ.get("XDG_DATA_HOME", "")
    return Path(given) if given and Path(given).is_absolute() else Path.home() / ".local" / "share"


def exec_word(word: str) -> str:
    """One argument of a desktop entry's Exec key, quoted as its specification says."""
    if word and not any(c in word for c in ' \t\n"\'\\><~|&;$*?#()`%'):
        return word
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in word)
    return '"' + escaped.replace("%", "%%") + '"'


def launcher() -> list[str]:
    """How this studio is started: its console script beside this interpreter, else `python -m`."""
    script = Path(sys.executable).with_name(APP_ID)
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which(APP_ID)
    return [found] if found else [sys.executable, "-m", "mrtr_studio"]


def desktop_entry(command: list[str]) -> str:
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=MRTR Studio",
        "GenericName=MCP Multi Round-Trip Request debugger",
        "Comment=Debug MCP servers and clients: every round, its requestState and the retries",
        "Exec=" + " ".join(exec_word(w) for w in command) + " %f",
        "Terminal=false",
        "Categories=Development;Debugger;",
        f"MimeType={MIME_TYPE};",
        "StartupNotify=true",
        "",
    ])


def mime_package() -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="{MIME_TYPE}">
    <comment>MRTR Studio trace</comment>
    <sub-class-of type="application/json"/>
    <glob pattern="{GLOB}" weight="60"/>
  </mime-type>
</mime-info>
"""


def _refresh(tool: str, folder: Path) -> str:
    path = shutil.which(tool)
    if path is None:
        return f"{tool} is not installed: the files are in place, the database refreshes at the next login"
    try:
        done = subprocess.run([path, str(folder)], capture_output=True, text=True, timeout=TOOL_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{tool} did not finish: {exc}"
    if done.returncode != 0:
        return f"{tool} failed ({done.returncode}): {done.stderr.strip()[:300]}"
    return f"refreshed {folder} with {tool}"


def install(base: Path | None = None) -> Installed:
    """Write both files (replacing earlier ones) and refresh the databases; OSError when it cannot."""
    base = base or data_home()
    applications, packages = base / "applications", base / "mime" / "packages"
    applications.mkdir(parents=True, exist_ok=True)
    packages.mkdir(parents=True, exist_ok=True)
    desktop = applications / f"{APP_ID}.desktop"
    desktop.write_text(desktop_entry(launcher()), encoding="utf-8")
    mime = packages / f"{APP_ID}.xml"
    mime.write_text(mime_package(), encoding="utf-8")
    notes = [_refresh("update-mime-database", base / "mime"), _refresh("update-desktop-database", applications)]
    return Installed(desktop, mime, notes)


def run_install_desktop() -> int:
    try:
        done = install()
    except OSError as exc:
        print(f"mrtr-studio --install-desktop: cannot write under {data_home()}: {exc.strerror or exc}",
              file=sys.stderr)
        return 1
    print(f"wrote {done.desktop}")
    print(f"wrote {done.mime} ({MIME_TYPE}, {GLOB})")
    for note in done.notes:
        print(note)
    return 0
