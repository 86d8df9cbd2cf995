"""The proxy's recording in a process of its own, so decoding, stitching, linting and journaling
(about a millisecond a message, mostly JSON Schema validation) run on another core, not between
the relay's reads and writes.

The relay puts (direction, raw bytes, exchange, meta) on a bounded queue and moves on; when the
recorder falls that far behind, messages are counted as not recorded instead of slowing the relay.
What one turn of the relay's event loop hands over goes as one batch: a queue item costs a pickle,
a pipe write and a wake-up of the feeder thread, more than the relay's own work on a small message.
The recorder stops at the sentinel (writing the trace file), or by itself when its parent is gone.

Signals to the process group (Ctrl+C, `timeout`'s second SIGTERM) are the proxy's to judge, so the
recorder ignores SIGINT and SIGTERM; the proxy sends SIGUSR1 for "stop at once" (shutdown.py). The
proxy waits a bounded time, then kills it; it knows how many messages it handed over and the
recorder counts those it recorded, so it can always say exactly how many went unrecorded.
"""

import asyncio
import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import time
from pathlib import Path
from typing import Any

from ..protocol import wire_json

MAX_QUEUED = 100_000
_STOP = None
#: The group's stop signals and the proxy's "stop at once".
_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGUSR1}


def _main(inbox: Any, server_label: str, label: str, trace: str | None, quiet: bool, max_bytes: int,
          parent: int, recorded: Any, voice: tuple[str, bool, str | None] = ("proxy", True, None)) -> None:
    """`voice`: (the command that speaks, whether it names the trace it wrote, the wrapped command to
    stream to a listening studio (wrap), if any)."""
    from ..trace import StoreEvent
    from .recording import Recording
    from .shutdown import StopRequests

    stop = StopRequests()
    signal.signal(signal.SIGUSR1, stop.at_once_handler)
    for signum in (signal.SIGINT, signal.SIGTERM):  # they reach the whole group: the proxy says when to stop
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)  # blocked since before this process existed: see start
    recording = Recording(server_label, label, trace)
    if not quiet:
        recording.store.subscribe(_printer(recording.store, StoreEvent))
    who, say_saved, wrapped = voice
    lines = None
    if who == "wrap":  # stdio lines: decoded, paired and streamed here, off the relay's path
        from .stdio_wrap import LineDecoder

        lines = LineDecoder(recording.tap, wrapped)
    try:
        while not stop.at_once:
            try:
                item = inbox.get(timeout=0.2)
            except queue.Empty:
                if os.getppid() != parent:  # the proxy is gone (even killed, even before this process started)
                    break
                continue
            if item is _STOP:
                break
            for one in item:  # the relay hands over a batch per turn of its event loop
                recorded.value += 1
                if lines is not None:
                    lines(one[0], one[1], one[3])
                else:
                    _record(recording, one, max_bytes)
    finally:
        if lines is not None:
            lines.close()
        saved = recording.close(stop)
        if saved is not None and who == "wrap":
            if say_saved:
                print(f"mrtr-studio wrap: trace saved to {saved}", file=sys.stderr, flush=True)
        elif saved is not None:
            print(f"mrtr-studio {who}: {len(recording.store.operations)} operation(s) recorded to {saved}",
                  file=sys.stderr, flush=True)
        elif recording.kept:
            print(f"mrtr-studio {who}: {recording.kept_note()}", file=sys.stderr, flush=True)


def _record(recording: Any, item: tuple[str, Any, int, dict[str, Any]], max_bytes: int) -> None:
    """One relayed message into the recording: a note about what was not kept, text that is not JSON,
    or JSON (a batch: each message on its own)."""
    direction, raw, exchange, meta = item
    if "error" in meta:
        recording.tap.emit(direction, raw, exchange=exchange, transport="http-proxy", **meta)
        return
    try:
        message = wire_json.loads(raw, max_bytes=max_bytes)
    except wire_json.WireJsonError as exc:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        recording.tap.emit(direction, text[:65536], exchange=exchange, transport="http-proxy",
                           error=f"not JSON: {exc}", **meta)
        return
    for one in message if isinstance(message, list) else [message]:
        recording.tap.emit(direction, one, exchange=exchange, transport="http-proxy", **meta)


def _printer(store: Any, event_type: Any) -> Any:
    from ..trace.model import outcome_text

    def on_event(event: Any) -> None:
        op = event.operation
        if event.kind != "operation_updated" or op is None or op.outcome == "running" or op.ended is None \
                or op.method == "session":  # the session's housekeeping: in the trace, not worth a line each
            return
        findings = sorted({f.rule for m in store.messages_of(op.id) for f in m.findings if f.severity != "info"})
        shown = f" findings: {', '.join(findings)}" if findings else ""
        print(f"{op.method} {op.target}: {op.rounds} round(s), {outcome_text(op)}{shown}", file=sys.stderr,
              flush=True)

    return on_event


class RecorderProcess:
    def __init__(self, server_label: str, label: str, trace: str | Path | None, quiet: bool = False,
                 max_bytes: int = 16 * 1024 * 1024,
                 voice: tuple[str, bool, str | None] = ("proxy", True, None)) -> None:
        """`voice`: see `_main` (`("wrap", verbose, command or None)` for the stdio wrapper)."""
        context = multiprocessing.get_context("spawn")
        self._inbox = context.Queue(MAX_QUEUED)
        self._recorded = context.Value("q", 0, lock=False)  # written by the recorder only
        self._process = context.Process(target=_main, name=f"mrtr-{voice[0]}-recorder", daemon=True,
                                        args=(self._inbox, server_label, label, str(trace) if trace else None,
                                              quiet, max_bytes, os.getpid(), self._recorded, voice))
        self.trace = Path(trace) if trace else None
        #: Messages relayed but dropped because the queue was full (the recorder fell behind).
        self.not_recorded = 0
        #: Messages handed to the recorder.
        self.sent = 0
        self._at_once = False
        #: Messages of this turn of the event loop, put on the queue together when the turn ends.
        self._batch: list[tuple[str, bytes | str, int, dict[str, Any]]] = []

    def start(self) -> None:
        """Start the recorder with the stop signals blocked, so one sent to the group while it is still
        importing (a second) cannot kill it: it unblocks them once it ignores them (its parent's
        signals wait meanwhile and are delivered after)."""
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            self._process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def put(self, direction: str, raw: bytes | str, exchange: Any, meta: dict[str, Any]) -> None:
        self._batch.append((direction, raw, exchange, meta))
        if len(self._batch) > 1:
            return  # a flush is already scheduled
        try:
            asyncio.get_running_loop().call_soon(self.flush)
        except RuntimeError:  # no loop running (a caller outside the relay): at once
            self.flush()

    def flush(self) -> None:
        """Hand the batch to the recorder (counted as not recorded when the queue is full)."""
        batch, self._batch = self._batch, []
        if not batch:
            return
        try:
            self._inbox.put_nowait(batch)
            self.sent += len(batch)
        except queue.Full:
            self.not_recorded += len(batch)

    def abandon(self) -> None:
        """Stop at once (a second Ctrl+C): the recorder keeps its journal. Safe in a signal handler."""
        self._at_once = True
        pid = self._process.pid
        if pid is not None and self._process.exitcode is None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGUSR1)

    def close(self, timeout: float = 60.0) -> list[str]:
        """Let the recorder finish what is queued and write the trace, within `timeout` seconds (5 once
        told to stop at once); then it is killed. Returns what the person must be told (stderr lines)."""
        lines = []
        self.flush()
        if self._process.pid is not None:
            deadline = time.monotonic() + timeout
            with contextlib.suppress(queue.Full, ValueError, OSError):
                self._inbox.put(_STOP, timeout=timeout)
            while self._process.exitcode is None and time.monotonic() < deadline:
                self._process.join(0.1 if not self._at_once else 5.0)
                if self._at_once:
                    break
            if self._process.exitcode is None:
                self._process.kill()  # SIGKILL: it ignores the group's signals
                self._process.join(5)
                wrote = f"{self.trace} was not written; {self.trace}.journal keeps what was recorded, a trace the " \
                        "studio opens" if self.trace else "nothing was kept"
                lines.append(f"the recorder did not finish within {timeout if not self._at_once else 5.0:.0f} s and "
                             f"was stopped: {wrote}")
            elif self._process.exitcode != 0:
                lines.append(f"the recorder ended unexpectedly (exit status {self._process.exitcode})")
        missing = self.sent - self._recorded.value
        if self.not_recorded:
            lines.append(f"the recorder fell behind; {self.not_recorded} message(s) relayed but not recorded")
        if missing > 0:
            lines.append(f"{missing} message(s) relayed but not recorded (still queued when the recorder stopped)")
        self._inbox.close()
        self._inbox.cancel_join_thread()  # undelivered items must not hold the exit
        return lines
