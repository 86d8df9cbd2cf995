"""The proxy's recording in a process of its own, so decoding, stitching, linting and journaling
(about a millisecond a message, mostly JSON Schema validation) run on another core, not between
the relay's reads and writes.

The relay puts (direction, raw bytes, exchange, meta) on a bounded queue and moves on; when the
recorder falls that far behind, messages are counted as not recorded instead of slowing the relay.
The recorder stops at the sentinel (writing the trace file), or by itself when its parent is gone.
"""

import multiprocessing
import os
import queue
import sys
from pathlib import Path
from typing import Any

from ..protocol import wire_json

MAX_QUEUED = 100_000
_STOP = None


def _main(inbox: Any, server_label: str, label: str, trace: str | None, quiet: bool, max_bytes: int,
          parent: int) -> None:
    import signal

    from ..trace import StoreEvent
    from .recording import Recording

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group: the proxy says when to stop
    recording = Recording(server_label, label, trace)
    if not quiet:
        recording.store.subscribe(_printer(recording.store, StoreEvent))
    try:
        while True:
            try:
                item = inbox.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:  # the proxy is gone (even killed, even before this process started)
                    break
                continue
            if item is _STOP:
                break
            direction, raw, exchange, meta = item
            if "error" in meta:
                recording.tap.emit(direction, raw, exchange=exchange, transport="http-proxy", **meta)
                continue
            try:
                message = wire_json.loads(raw, max_bytes=max_bytes)
            except wire_json.WireJsonError as exc:
                text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
                recording.tap.emit(direction, text[:65536], exchange=exchange, transport="http-proxy",
                                   error=f"not JSON: {exc}", **meta)
                continue
            for one in message if isinstance(message, list) else [message]:
                recording.tap.emit(direction, one, exchange=exchange, transport="http-proxy", **meta)
    finally:
        saved = recording.close()
        if saved is not None:
            print(f"mrtr-studio proxy: {len(recording.store.operations)} operation(s) recorded to {saved}",
                  file=sys.stderr, flush=True)


def _printer(store: Any, event_type: Any) -> Any:
    def on_event(event: Any) -> None:
        op = event.operation
        if event.kind != "operation_updated" or op is None or op.outcome == "running" or op.ended is None:
            return
        findings = sorted({f.rule for m in store.messages_of(op.id) for f in m.findings if f.severity != "info"})
        shown = f" findings: {', '.join(findings)}" if findings else ""
        print(f"{op.method} {op.target}: {op.rounds} round(s), {op.outcome}{shown}", file=sys.stderr, flush=True)

    return on_event


class RecorderProcess:
    def __init__(self, server_label: str, label: str, trace: str | Path | None, quiet: bool = False,
                 max_bytes: int = 16 * 1024 * 1024) -> None:
        context = multiprocessing.get_context("spawn")
        self._inbox = context.Queue(MAX_QUEUED)
        self._process = context.Process(target=_main, name="mrtr-proxy-recorder", daemon=True,
                                        args=(self._inbox, server_label, label, str(trace) if trace else None,
                                              quiet, max_bytes, os.getpid()))
        self.not_recorded = 0

    def start(self) -> None:
        self._process.start()

    def put(self, direction: str, raw: bytes | str, exchange: int, meta: dict[str, Any]) -> None:
        try:
            self._inbox.put_nowait((direction, raw, exchange, meta))
        except queue.Full:
            self.not_recorded += 1

    def close(self, timeout: float = 60.0) -> None:
        """Let the recorder finish what is queued and write the trace."""
        if not self._process.is_alive():
            return
        self._inbox.put(_STOP)
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(5)
