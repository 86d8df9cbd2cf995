"""A real official-SDK server process for the interop tests, on 127.0.0.1, stopped by the fixture
(and by itself when the test process goes away: it exits when its stdin closes)."""

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SERVER = Path(__file__).with_name("sdk_server.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def sdk_server(mode: str) -> Iterator[int]:
    """The SDK server in `mode` ("http", "sse") on a free port, until the block ends."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, str(port)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"the SDK server exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("the SDK server did not start listening")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def sdk_url() -> Iterator[str]:
    with sdk_server("http") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def sdk_sse_url() -> Iterator[str]:
    """The SDK server on the legacy HTTP+SSE transport: its GET stream's URL."""
    with sdk_server("sse") as port:
        yield f"http://127.0.0.1:{port}/sse"
