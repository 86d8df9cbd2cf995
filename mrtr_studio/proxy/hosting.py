"""A recording proxy on the running event loop, started and stopped by its owner (the studio's panel, tests)."""

import uvicorn

from ..transport.base import Tap
from ..transport.http_host import Hosted, make_server
from .http_proxy import ProxyApp, ProxyLimits


class RunningProxy(Hosted):
    def __init__(self, upstream: str, tap: Tap, host: str = "127.0.0.1", limits: ProxyLimits | None = None) -> None:
        super().__init__(host)
        self.app = ProxyApp(upstream, tap, limits)  # raises ValueError for an URL it cannot proxy
        self.upstream = upstream

    def _server(self) -> tuple[uvicorn.Server, str]:
        return make_server(self.app), self.app.path

    async def _released(self) -> None:
        await self.app.aclose()
