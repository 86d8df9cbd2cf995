"""The embedded engine: the demo server the studio runs in-process, its shiftable clock, and serving it
to outside clients on loopback.

Its rejections are explained (`data.reason`) so the inspector can point at the failed check, and its
clock can be moved ahead so expiry is shown without waiting out a TTL.
"""

import secrets
import time
from typing import TYPE_CHECKING

from ..engine import McpServer, MrtrOptions, ServerOptions
from ..scenarios import build_demo_server
from ..trace import TraceStore
from ..transport.base import Tap
from .events import Events, Notice
from .identities import IDENTITY_PRESETS
from .served_engine import ServedTraffic

if TYPE_CHECKING:  # uvicorn and starlette load when the engine is first served, not at launch
    from ..transport.http_host import Serving


class EmbeddedEngine:
    def __init__(self, store: TraceStore, events: Events, engine: McpServer | None = None) -> None:
        self.store = store
        self.events = events
        self.secret = secrets.token_urlsafe(32)
        self.engine = engine or build_demo_server(
            ServerOptions(mrtr=MrtrOptions(secret=self.secret, explain_rejections=True)))
        self.clock_offset = 0.0
        self.engine.codec.clock = self.now
        self._serving: Serving | None = None

    # --- the clock -------------------------------------------------------------------------------

    def now(self) -> float:
        return time.time() + self.clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the engine's clock (requestState iat/exp) ahead, to show expiry without waiting."""
        self.clock_offset += seconds
        self.events.emit(Notice("clock", f"engine clock {self.clock_offset:+.0f} s"))

    def reset_clock(self) -> None:
        self.clock_offset = 0.0
        self.events.emit(Notice("clock", "engine clock reset"))

    # --- serving ---------------------------------------------------------------------------------

    @property
    def serving_url(self) -> str | None:
        return self._serving.url if self._serving is not None else None

    async def start_serving(self, port: int = 0) -> str:
        """Serve the engine on Streamable HTTP at 127.0.0.1 and record outside clients' flows."""
        if self._serving is not None:
            return self._serving.url
        from ..transport.http_host import Serving
        from ..transport.http_server import HttpServerConfig

        users = {i.bearer: i.user for i in IDENTITY_PRESETS.values() if i.bearer}
        tap = Tap()
        serving = Serving(self.engine, HttpServerConfig(users=users), tap)
        await serving.start(port)
        tap.listen(ServedTraffic(self.store, f"served at {serving.url}"))
        self._serving = serving
        self.events.info(f"Serving the embedded engine at {serving.url} "
                         "(bearer alice-token / bob-token for alice / bob)")
        return serving.url

    async def stop_serving(self) -> None:
        serving, self._serving = self._serving, None
        if serving is not None:
            await serving.stop()
            self.events.info(f"Stopped serving at {serving.url}")
