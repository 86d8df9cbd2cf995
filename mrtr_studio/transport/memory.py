"""The in-memory transport: the client talks to an McpServer in the same process, no sockets.

It behaves like a connection: one session for its lifetime (legacy handshakes stick), server-
initiated requests delivered to the client's handler and the answers fed back to the engine.
"""

import asyncio
import copy
from typing import Any

from ..engine import McpServer
from .base import ServerRequestHandler, Tap, TransportError, answer_server_request


class MemoryTransport:
    def __init__(self, server: McpServer, user: str = "", tap: Tap | None = None) -> None:
        self.server = server
        self.tap = tap or Tap()
        self.session = server.open_session(user=user, outbound=self._deliver)
        self._server_request_handler: ServerRequestHandler | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def user(self) -> str:
        return self.session.user

    @user.setter
    def user(self, value: str) -> None:
        self.session.user = value

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        self._server_request_handler = handler

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        # A deep copy on each side: what was sent can never be changed by what happens after.
        self.tap.emit("client->server", copy.deepcopy(message), transport="memory")
        response = await self.server.handle(copy.deepcopy(message), self.session)
        if response is not None:
            self.tap.emit("server->client", copy.deepcopy(response), transport="memory")
        return response

    async def _deliver(self, request: dict[str, Any]) -> None:
        self.tap.emit("server->client", copy.deepcopy(request), transport="memory", server_initiated=True)
        if "id" not in request:  # a notification (e.g. notifications/resources/updated): nothing to answer
            return
        task = asyncio.create_task(self._answer(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: dict[str, Any]) -> None:
        reply = await answer_server_request(self._server_request_handler, request)
        self.tap.emit("client->server", copy.deepcopy(reply), transport="memory", server_initiated=True)
        await self.server.handle(reply, self.session)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.server.close_session(self.session.id)


__all__ = ["MemoryTransport", "TransportError"]
