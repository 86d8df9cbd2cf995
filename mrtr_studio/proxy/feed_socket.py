"""The wrapper's end of the live feed (proxy.local_feed), for the recorder process: a plain socket that
never blocks the recording, let alone the relay.

The hello (the token, the command) is sent with a deadline; after it the socket is non-blocking and
what the studio does not take at once waits in a bounded buffer; past the bound, lines are dropped
and counted (the trace file still has them), so a slow or stopped studio costs nothing but its feed.
"""

import contextlib
import json
import socket
import time
from pathlib import Path
from typing import Any

from .local_feed import HELLO_SECONDS, SOCKET_NAME, read_token, studio_home

#: Bytes waiting for the studio at most, before lines are dropped.
MAX_PENDING = 8 * 1024 * 1024


class FeedSocket:
    def __init__(self, home: Path | None = None, max_pending: int = MAX_PENDING) -> None:
        self.home = home or studio_home()
        self.max_pending = max_pending
        self.dropped = 0
        self.problem = ""
        self._sock: socket.socket | None = None
        self._pending = bytearray()

    def connect(self, command: str) -> bool:
        path = self.home / SOCKET_NAME
        if not path.exists():
            self.problem = "no studio is listening"
            return False
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            token = read_token(self.home)
            sock.settimeout(HELLO_SECONDS)
            sock.connect(str(path))
            sock.sendall(json.dumps({"token": token, "command": command[:200]}).encode() + b"\n")
        except OSError as exc:
            sock.close()
            self.problem = f"cannot reach the studio: {exc}"
            return False
        sock.setblocking(False)
        self._sock = sock
        return True

    def send(self, direction: str, exchange: Any, message: Any) -> None:
        if self._sock is None:
            return
        line = json.dumps({"d": "c" if direction == "client->server" else "s", "x": exchange, "m": message},
                          ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        if len(self._pending) + len(line) > self.max_pending:
            self.dropped += 1
            self._flush()
            return
        self._pending += line
        self._flush()

    def _flush(self) -> None:
        assert self._sock is not None
        while self._pending:
            try:
                sent = self._sock.send(self._pending)
            except BlockingIOError:
                return
            except OSError:  # the studio went away: the feed stops, the recording goes on
                self._sock.close()
                self._sock = None
                self._pending.clear()
                return
            del self._pending[:sent]

    def close(self, timeout: float = 2.0) -> None:
        """Give the studio what is pending, for at most `timeout` seconds, then close."""
        if self._sock is None:
            return
        deadline = time.monotonic() + timeout
        while self._pending and self._sock is not None and time.monotonic() < deadline:
            self._flush()
            if self._pending:
                time.sleep(0.01)
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
