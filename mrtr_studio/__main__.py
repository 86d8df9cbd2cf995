"""`python -m mrtr_studio` and the `mrtr-studio` console script.

The only place that joins the command line to the GUI, so no layer below `ui` ever imports Qt.
"""

import argparse
import sys

from .cli.parser import main as _main
from .studio.qt_libraries import platform_problem


def _gui(args: argparse.Namespace) -> int:
    problem = platform_problem()  # before Qt loads: its own message names the wrong library
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from .ui.main import run_gui  # Qt is loaded only when the GUI is asked for

    return run_gui(args)


def main() -> None:
    sys.exit(_main(gui=_gui))


if __name__ == "__main__":
    main()
