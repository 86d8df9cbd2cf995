"""Client memory against an endless response body (part of `make bench`; printed, never asserted).

A server on 127.0.0.1 answers every POST with a JSON body that never ends, as fast as loopback
carries it. `mrtr-studio call` runs against it in a fresh process for each `--max-body`, and that
process reports its own peak RSS (ru_maxrss), how it ended and how long it took; a call against a
server that answers normally gives the baseline. Without a bound the client once held 1.5 GB
after 4.7 s; with one, the peak should stay near baseline + the limit.
"""

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
#: The endless server gives up on its own after this long or this much, whatever the client does.
SERVER_SECONDS = 60.0
SERVER_BYTES = 4 * 1024**3

CHILD = """
import resource, sys, time
sys.argv = ["mrtr-studio", *sys.argv[1:]]
from mrtr_studio.cli.parser import main
started = time.monotonic()
code = main(sys.argv[1:])
print(f"@@ {code} {time.monotonic() - started:.2f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}",
      file=sys.stderr)
"""


class EndlessServer:
    """`with EndlessServer(endless=True) as url:` a thread serving an endless (or a small) JSON body."""

    def __init__(self, endless: bool) -> None:
        self.endless = endless
        self.url = ""
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        self._ready.wait(10)
        return self.url

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/mcp"
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(SERVER_SECONDS):
                while True:
                    headers = await reader.readuntil(b"\r\n\r\n")
                    length = next((int(line.split(b":")[1]) for line in headers.split(b"\r\n")
                                   if line.lower().startswith(b"content-length:")), 0)
                    request = json.loads(await reader.readexactly(length))
                    if not self.endless or request.get("method") == "tools/list":
                        body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
                            "tools": [], "content": [{"type": "text", "text": "ok"}]}}).encode()
                        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                     + str(len(body)).encode() + b"\r\n\r\n" + body)
                        await writer.drain()
                        continue
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
                                 b"\r\n\r\n")
                    piece = b"[1," * 21845
                    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
                    sent = 0
                    while sent < SERVER_BYTES:
                        writer.write(chunk)
                        await writer.drain()
                        sent += len(piece)
        except (Exception, asyncio.CancelledError):
            pass
        finally:
            writer.close()


def run_call(url: str, *extra: str) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MiB, the last stderr line) of one `call` in a fresh process."""
    done = subprocess.run([PYTHON, "-c", CHILD, "call", url, "--tool", "t", *extra], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    lines = done.stderr.strip().splitlines()
    report = next((line for line in reversed(lines) if line.startswith("@@ ")), "@@ -1 0 0")
    _, code, seconds, peak_kib = report.split()
    said = next((line for line in reversed(lines) if line.startswith("mrtr-studio call:")), "")
    return int(code), float(seconds), int(peak_kib) / 1024, said


def measure() -> None:
    with EndlessServer(endless=False) as url:
        code, seconds, baseline, _ = run_call(url)
    print(f"client memory: baseline call (a small body): peak RSS {baseline:.0f} MiB, exit {code}, {seconds:.2f} s")
    with EndlessServer(endless=True) as url:
        for limit in ("1M", "16M", "64M"):
            code, seconds, peak, said = run_call(url, "--max-body", limit)
            print(f"client memory: endless body, --max-body {limit:>4}: peak RSS {peak:.0f} MiB "
                  f"(+{peak - baseline:.0f} over baseline), exit {code}, {seconds:.2f} s; ...{said[-60:]}")
        sys.stdout.flush()
    time.sleep(0.1)


if __name__ == "__main__":
    measure()
