"""A real `mrtr-studio serve` on loopback for HTTP probes, with its log kept, and a raw HTTP/1.1 client
for what httpx refuses to send (repeated or padded headers, a foreign Host, half a request)."""

import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    url: str
    port: int
    log_path: Path
    proc: "subprocess.Popen[str]"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def serve(*flags: str, file_limit: int | None = None) -> Iterator[Served]:
    """`serve --port 0 FLAGS` with stderr in a file (and at most `file_limit` open files); killed on exit."""
    log = tempfile.NamedTemporaryFile(prefix="mrtr-serve-", suffix=".log", delete=False)  # noqa: SIM115
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def limit_files() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, file_limit))

    proc = subprocess.Popen([sys.executable, "-m", "mrtr_studio", "serve", "--port", "0", *flags],
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env, preexec_fn=limit_files)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:(\d+)/mcp)\n", line)
        assert found, (line, Path(log.name).read_text())
        yield Served(found.group(1), int(found.group(2)), Path(log.name), proc)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        log.close()
        os.unlink(log.name)


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return orjson.loads(self.body)


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return sock


def read_response(sock: socket.socket) -> RawResponse:
    """One HTTP/1.1 response with a Content-Length body (what the server sends for JSON answers)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return RawResponse(status, headers, rest[:length])


def raw_post(port: int, body: bytes, headers: list[tuple[str, str]], host: str | None = None,
             method: str = "POST") -> RawResponse:
    """Send exactly these header lines (in order, repeats and padding kept) and read the answer."""
    lines = [f"{method} /mcp HTTP/1.1", f"Host: {host if host is not None else f'127.0.0.1:{port}'}",
             f"Content-Length: {len(body)}", "Connection: close"]
    lines += [f"{name}:{value}" for name, value in headers]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    with connect(port) as sock:
        sock.sendall(request)
        return read_response(sock)


def closed_by_peer(sock: socket.socket) -> bool:
    """True when the server closes the connection (recv gives EOF or a reset) before our timeout."""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
