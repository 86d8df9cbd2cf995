"""The environment of a real launch in the tests: offscreen, the launch probe on (the window says when it
is complete, then closes), and a scratch home so the person's settings and autosave are never touched."""

import os
from pathlib import Path


def probed_launch_env(home: Path) -> dict[str, str]:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MRTR_STUDIO_LAUNCH_PROBE": "1", "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")}
