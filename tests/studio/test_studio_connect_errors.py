"""A failed connect is said once, in one sentence: the same error from every listing is not repeated."""

import asyncio
import socket
from typing import Any

from mrtr_studio.studio.connection import connect_error, listing_failure
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry
from mrtr_studio.transport.base import Tap, TransportError


class ErrorEverywhere:
    """A server that answers every request with the same JSON-RPC error."""

    def __init__(self) -> None:
        self.tap = Tap()

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32000, "message": "upstream down"}}

    def on_server_request(self, handler: Any) -> None:
        pass

    async def close(self) -> None:
        pass


async def errors_of_connect(studio: Studio, url: str) -> list[str]:
    said: list[str] = []
    studio.subscribe(lambda event: said.append(event.text) if event.kind == "error" else None)
    await studio.connect(http_entry(url))
    await studio.close()
    return said


def test_the_same_error_from_every_listing_is_said_once() -> None:
    async def factory(*_: Any) -> ErrorEverywhere:
        return ErrorEverywhere()

    studio = Studio(transport_factory=factory)
    studio.set_era("modern")
    said = asyncio.run(errors_of_connect(studio, "http://127.0.0.1:9/mcp"))
    assert len(said) == 1
    assert said[0].count("upstream down") == 1 and said[0].count("cannot connect") == 1
    assert said[0].startswith("cannot connect to http://127.0.0.1:9/mcp: the server answered every listing")
    assert studio.catalog is None


def test_a_refused_connection_names_the_server_once() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    said = asyncio.run(errors_of_connect(Studio(), f"http://127.0.0.1:{port}/mcp"))
    assert len(said) == 1 and said[0].count("cannot connect to") == 1, said
    assert "TransportError" not in said[0]


def test_the_sentences() -> None:
    label = "http://x/mcp"
    assert connect_error(label, TransportError(f"cannot connect to {label}: refused")) == \
        f"cannot connect to {label}: refused"
    assert connect_error(label, KeyError("k")) == f"cannot connect to {label}: KeyError: 'k'"
    mixed = listing_failure([("tools", "tools/list", "tools/list: -32601 nope"),
                             ("prompts", "prompts/list", "prompts/list: -32000 down")])
    assert mixed == "no listing worked: tools: -32601 nope; prompts: -32000 down"
