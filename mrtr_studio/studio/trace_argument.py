"""`mrtr-studio FILE.mrtr.json`: open a trace in the window from the command line.

The file is read before the window opens, so a file that cannot be opened is a one-line error and
status 2, not an empty window; what the person must know about the file (written by a newer studio:
its version and what is not shown; a journal rather than a finished trace) is said on stderr, where
it was asked for, and again in the window.
"""

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .controller import Studio

#: A first argument ending so names a trace to open, unless it is a command.
TRACE_ENDINGS = (".json", ".journal", ".jsonl")


def split_trace_file(argv: Sequence[str], commands: Sequence[str]) -> tuple[str | None, list[str]]:
    """(the trace file named first, the other arguments), or (None, all of them)."""
    if argv and argv[0] not in commands and not argv[0].startswith("-") and argv[0].endswith(TRACE_ENDINGS):
        return argv[0], list(argv[1:])
    return None, list(argv)


def open_on_start(studio: "Studio", path: str) -> list[str] | None:
    """Open `path` into `studio`; its notes printed on stderr and returned, or None after a one-line error."""
    try:
        notes = studio.open_trace(path)
    except ValueError as exc:
        print(f"mrtr-studio: cannot open {path}: {exc}", file=sys.stderr)
        return None
    for note in notes:
        print(f"mrtr-studio: {note}", file=sys.stderr)
    return notes
