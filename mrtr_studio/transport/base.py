"""What every client transport offers, and the recording tap at the transport seam.

The tap sees each message exactly once, as it crosses the seam, with its direction and the
transport's metadata (HTTP status, headers, SSE or JSON); the trace store listens to it.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..protocol import jsonrpc
from ..protocol.errors import INTERNAL_ERROR

Direction = Literal["client->server", "server->client"]
ServerRequestHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class WireEvent:
    direction: Direction
    message: Any
    meta: dict[str, Any] = field(default_factory=dict)


TapListener = Callable[[WireEvent], None]


class Tap:
    """Fan-out of wire events to listeners; a failing listener never breaks the transport."""

    def __init__(self) -> None:
        self.listeners: list[TapListener] = []

    def listen(self, listener: TapListener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def emit(self, direction: Direction, message: Any, **meta: Any) -> None:
        event = WireEvent(direction, message, meta)
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # pragma: no cover - a view's bug must not lose a message on the wire
                import logging

                logging.getLogger(__name__).exception("tap listener failed")


def masked_headers(headers: dict[str, str]) -> dict[str, str]:
    """Headers as a trace may keep them: the Authorization value never leaves the transport."""
    return {k: ("Bearer ***" if k.lower() == "authorization" else v) for k, v in headers.items()}


async def answer_server_request(handler: ServerRequestHandler | None, request: dict[str, Any]) -> dict[str, Any]:
    """The client's JSON-RPC response to a legacy server-initiated request: the handler's result, or an
    error saying why there is none (every transport answers, so the server's await never hangs)."""
    if handler is None:
        return jsonrpc.error(request["id"], INTERNAL_ERROR, "client has no handler for server requests")
    try:
        return jsonrpc.result(request["id"], await handler(request))
    except Exception as exc:
        return jsonrpc.error(request["id"], INTERNAL_ERROR, f"client failed to answer: {exc}")


class TransportError(Exception):
    """The transport could not deliver a message or got no usable answer (not a JSON-RPC error)."""


class ClientTransport(Protocol):
    tap: Tap

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request (returns its response) or a notification (returns None)."""
        ...

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        """Who answers legacy server-initiated requests (elicitation, sampling, roots)."""
        ...

    async def close(self) -> None: ...
