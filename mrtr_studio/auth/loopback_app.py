"""An ASGI app served by uvicorn on its own thread, on a free loopback port: the demo authorization server's
host (and the test suite's authorization server fixture).

The port is bound when the object is made, so the app can be built knowing its own URL (an issuer
names itself in its metadata); `start(app)` serves it, `stop()` ends the thread.
"""

import asyncio
import socket
import threading
from typing import Any, Self

import uvicorn


class ThreadServer:
    """A server on its own thread that a with-block starts and stops (`with DemoAuthority() as authority:`):
    the loopback servers' one context-manager protocol, so leaving the block always ends the thread."""

    def start(self, timeout: float = 10.0) -> str:
        raise NotImplementedError

    def stop(self, timeout: float = 10.0) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LoopbackApp:
    def __init__(self, host: str = "127.0.0.1", name: str = "mrtr-loopback-app") -> None:
        self.name = name
        self._sock = socket.socket()
        self._sock.bind((host, 0))
        self.url = f"http://{host}:{self._sock.getsockname()[1]}"
        self._uv: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, app: Any, timeout: float = 10.0) -> None:
        self._uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        ready = threading.Event()

        def run() -> None:
            async def main() -> None:
                assert self._uv is not None
                serving = asyncio.create_task(self._uv.serve(sockets=[self._sock]))
                while not self._uv.started and not serving.done():
                    await asyncio.sleep(0.01)
                ready.set()
                await serving

            try:
                asyncio.run(main())
            finally:
                ready.set()
                self._sock.close()

        self._thread = threading.Thread(target=run, daemon=True, name=self.name)
        self._thread.start()
        if not ready.wait(timeout) or not self._uv.started:
            self.stop()
            raise TimeoutError(f"{self.name} did not start on {self.url}")

    def stop(self, timeout: float = 10.0) -> None:
        if self._uv is not None:
            self._uv.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        else:
            self._sock.close()
