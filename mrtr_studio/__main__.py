"""`python -m mrtr_studio` and the `mrtr-studio` console script.

The only place that joins the command line to the GUI, so no layer below `ui` ever imports Qt.
"""

import argparse
import sys

from .cli.parser import main as _main
from .studio.qt_libraries import start_platform_check


def _gui(args: argparse.Namespace) -> int:
    # Checked before Qt's platform plugin loads (with the QApplication): Qt's own message names the wrong
    # library. ldd runs while the window's modules are imported; a failed import is explained by it too.
    problem_of = start_platform_check()
    try:
        from .ui.main import run_gui  # Qt is loaded only when the GUI is asked for
    except ImportError:
        if problem := problem_of():
            print(problem, file=sys.stderr)
            return 3
        raise
    if problem := problem_of():
        print(problem, file=sys.stderr)
        return 3
    return run_gui(args)


def main() -> None:
    sys.exit(_main(gui=_gui))


if __name__ == "__main__":
    main()
