"""`python -m mrtr_studio` and the `mrtr-studio` console script.

The only place that joins the command line to the GUI, so no layer below `ui` ever imports Qt. Its
imports are made inside the functions, after `startup.pause()`: the collector stays off while the
program's modules load (`startup` says why).
"""

import argparse
import sys

from . import startup


def _gui(args: argparse.Namespace) -> int:
    from .studio.qt_libraries import start_platform_check

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
    startup.pause()
    try:
        from .cli.parser import main as run

        sys.exit(run(gui=_gui))
    finally:
        startup.ready()  # whatever path was taken (a usage error, --help), never left paused


if __name__ == "__main__":
    main()
