"""A command whose stdout reader went away (`mrtr-studio trace filter ... | head`) ends quietly with
141 (128 + SIGPIPE, the shell's convention), as `call` does, never with a traceback."""

import contextlib
import os
import sys
from collections.abc import Callable

EXIT_BROKEN_PIPE = 128 + 13


def quiet_broken_pipe(command: Callable[[], int]) -> int:
    try:
        code = command()
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
