"""Serving a recording from the window: an operation of the trace answered by a replay server
(replay/server.py) on 127.0.0.1, in-process on the studio's loop like the embedded engine's serving,
so a client author can point their client at a flow the studio recorded and see it answered the same.

One server per operation served; each is stopped from the Serve menu, or with the studio. The state
tokens are the recorded ones, verbatim (what the original server sent); the replay server's own
secret, for `resign`, is fresh per server and never leaves the process.
"""

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine import MrtrOptions, ServerOptions
from ..trace import TraceStore
from .events import Events

if TYPE_CHECKING:  # the replay server, uvicorn and starlette load when a recording is first served
    from ..replay.server import StateMode
    from ..transport.http_host import Serving


@dataclass
class ServedRecording:
    operation_id: str
    label: str
    url: str
    serving: "Serving"


class ReplayServings:
    def __init__(self, store: TraceStore, events: Events) -> None:
        self.store = store
        self.events = events
        self.served: dict[str, ServedRecording] = {}

    async def start(self, operation_id: str, mode: "StateMode" = "verbatim") -> ServedRecording:
        """Serve one operation's recording; ValueError when it has no MRTR round to replay, OSError
        when no loopback port can be had. Serving an operation already served gives its URL again."""
        if operation_id in self.served:
            return self.served[operation_id]
        from ..replay.recording import flows_of
        from ..replay.server import ReplayServer

        flows = flows_of(self.store, operation_id)
        if not flows:
            raise ValueError(f"operation {operation_id} has no tools/call, prompts/get or resources/read "
                             "round with its request recorded: there is nothing to replay")
        from ..transport.http_host import Serving
        from ..transport.http_server import HttpServerConfig

        server = ReplayServer(flows, mode=mode,
                              options=ServerOptions(mrtr=MrtrOptions(secret=secrets.token_urlsafe(32))))
        serving = Serving(server, HttpServerConfig())
        url = await serving.start(0)
        served = self.served[operation_id] = ServedRecording(operation_id, flows[0].label, url, serving)
        self.events.info(f"Replaying {served.label} (operation {operation_id}) at {url}")
        return served

    async def stop(self, operation_id: str) -> None:
        served = self.served.get(operation_id)
        if served is not None:
            await served.serving.stop()  # listed until its port is closed, so "not served" means stopped
            self.served.pop(operation_id, None)
            self.events.info(f"Stopped replaying {served.label} at {served.url}")

    async def close(self) -> None:
        for operation_id in list(self.served):
            await self.stop(operation_id)
