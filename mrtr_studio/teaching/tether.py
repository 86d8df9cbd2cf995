"""`python -m mrtr_studio.teaching.tether [--remove FOLDER] COMMAND ARGS...`: a program that dies with its parent.

redis-server and haproxy cannot watch a pipe the way `serve` does (EXIT_WITH_STDIN_ENV), so this
small stdlib-only wrapper does it for them: it starts COMMAND, watches its own stdin (a pipe the
parent holds and never writes), and when that pipe closes, because the parent exited however it
exited, or on SIGTERM/SIGINT, it terminates COMMAND (SIGKILL after a grace period), removes FOLDER
(the program's temporary files) and exits. On Linux COMMAND is also given PR_SET_PDEATHSIG, so it
dies even if this wrapper is killed outright: the wrapper is single-threaded, which is what makes
that signal reliable here.
"""

import contextlib
import ctypes
import os
import selectors
import shutil
import signal
import subprocess
import sys

GRACE_SECONDS = 5.0
_PR_SET_PDEATHSIG = 1


def _die_with_wrapper() -> None:  # runs in the child between fork and exec: no locks, no allocation-heavy work
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def main(argv: list[str]) -> int:
    folder = None
    if argv[:1] == ["--remove"] and len(argv) > 1:
        folder, argv = argv[1], argv[2:]
    if not argv:
        print("usage: python -m mrtr_studio.teaching.tether [--remove FOLDER] COMMAND ARGS...", file=sys.stderr)
        return 2
    try:
        return _run(argv)
    finally:
        if folder:  # the program's temporary files go with it, however the parent ended
            shutil.rmtree(folder, ignore_errors=True)


def _run(argv: list[str]) -> int:
    preexec = _die_with_wrapper if sys.platform.startswith("linux") else None
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, preexec_fn=preexec)
    except OSError as exc:
        print(f"tether: cannot start {argv[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    stopping: list[int] = []  # the signal that asked to stop, if any
    reader, writer = os.pipe()  # the signal handlers wake the loop through it
    os.set_blocking(writer, False)

    def on_signal(signum: int, _frame: object) -> None:
        if signum != signal.SIGCHLD:
            stopping.append(signum)
        with contextlib.suppress(OSError):
            os.write(writer, b"x")

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
        signal.signal(signum, on_signal)
    watch = selectors.DefaultSelector()
    watch.register(reader, selectors.EVENT_READ)
    stdin = _watched_stdin(watch)
    while child.poll() is None and not stopping:
        for key, _ in watch.select(timeout=1.0):
            if key.fd == reader:
                os.read(reader, 512)
            elif key.fd == stdin and not _read_some(stdin):
                stopping.append(0)  # end of file: the parent holding the pipe is gone
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


def _watched_stdin(watch: selectors.BaseSelector) -> int:
    """Stdin's descriptor once registered, -1 when it cannot be watched (then only signals stop us)."""
    try:
        fd = sys.stdin.fileno()
        watch.register(fd, selectors.EVENT_READ)
    except (OSError, ValueError, AttributeError):
        return -1
    return fd


def _read_some(fd: int) -> bool:
    try:
        return bool(os.read(fd, 4096))
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
