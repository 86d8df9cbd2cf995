"""A recording proxy on the running event loop, started and stopped by its owner (the studio's panel, tests)."""

import asyncio
import socket

from ..transport.base import Tap
from ..transport.http_host import bind, make_server, stop, url_of, wait_started
from .http_proxy import ProxyApp, ProxyLimits


class RunningProxy:
    def __init__(self, upstream: str, tap: Tap, host: str = "127.0.0.1", limits: ProxyLimits | None = None) -> None:
        self.app = ProxyApp(upstream, tap, limits)  # raises ValueError for an URL it cannot proxy
        self.upstream = upstream
        self.host = host
        self.url = ""
        self._sock: socket.socket | None = None
        self._task: asyncio.Task[None] | None = None
        self._uv = make_server(self.app)

    async def start(self, port: int = 0) -> str:
        self._sock = bind(self.host, port)
        self._task = asyncio.create_task(self._uv.serve(sockets=[self._sock]))
        try:
            await wait_started(self._uv, self._task)
        except BaseException:
            await self.stop()
            raise
        self.url = url_of(self._sock, self.app.path)
        return self.url

    async def stop(self) -> None:
        if self._task is not None:
            await stop(self._uv, self._task)
            self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        await self.app.aclose()
