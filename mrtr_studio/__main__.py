"""`python -m mrtr_studio` and the `mrtr-studio` console script."""

import sys

from .app.cli import main as _main


def main() -> None:
    sys.exit(_main())


if __name__ == "__main__":
    main()
