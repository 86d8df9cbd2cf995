"""Refresh `screenshots/`: run demo scenarios in the real window, offscreen, one PNG per step,
at each screen size (a folder per size: screenshots/1366x768/<scenario>/).

    QT_QPA_PLATFORM=offscreen python tools/screenshots.py --out screenshots [--sizes 1366x768,1920x1080] [NAME ...]

Each scenario runs `python -m mrtr_studio --scenario NAME --auto --screenshot-dir OUT/WxH/NAME
--screen-size WxH`: the window opens as it would on a screen of that size.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

DEFAULT = ["delete_file", "deploy_wizard", "summarize", "count_roots", "connect_account", "code_review", "secrets",
           "legacy_delete_file", "missing_capability", "tampered_state",
           "lesson:confirm-delete", "lesson:legacy-client", "lab", "eras", "cluster", "oauth",
           "modes"]  # one per mode: screenshots/<size>/modes/01-debug.png … 04-cluster.png
SIZES = ["1366x768", "1920x1080"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="screenshots", help="folder to fill: a subfolder per size, then scenario")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds allowed per scenario")
    parser.add_argument("--sizes", default=",".join(SIZES), help="screen sizes, comma-separated WIDTHxHEIGHT")
    parser.add_argument("scenarios", nargs="*", default=DEFAULT)
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    failed = []
    for name in args.scenarios:  # the layout before sizes had a folder per scenario at the top
        shutil.rmtree(Path(args.out) / name.replace(":", "-"), ignore_errors=True)
    for size in args.sizes.split(","):
        for name in args.scenarios:
            folder = Path(args.out) / size / name.replace(":", "-")
            shutil.rmtree(folder, ignore_errors=True)
            command = [sys.executable, "-m", "mrtr_studio", "--scenario", name, "--auto",
                       "--screenshot-dir", str(folder), "--screen-size", size]
            try:
                code = subprocess.run(command, env=env, timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                code = -1
            shots = sorted(p.name for p in folder.glob("*.png"))
            print(f"{size} {name}: exit {code}, {len(shots)} screenshot(s)")
            if code != 0 or not shots:
                failed.append(f"{size} {name}")
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
