"""A transcript harness: messages in, messages out, every emitted message checked against the schema."""

import itertools
from typing import Any

from mrtr_studio.engine import McpServer, Session
from mrtr_studio.protocol.schema import message_problems
from mrtr_studio.protocol.versions import MODERN_VERSION

ALL_CAPS: dict[str, Any] = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def meta(caps: dict[str, Any] | None = None, version: str = MODERN_VERSION) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": ALL_CAPS if caps is None else caps,
    }


class Wire:
    """Talks to one server like a client would and validates everything the server says."""

    def __init__(self, server: McpServer, user: str = "") -> None:
        self.server = server
        self.session: Session = server.open_session(user=user)
        self.ids = itertools.count(1)
        self.transcript: list[tuple[str, dict[str, Any]]] = []

    async def send(self, method: str, params: dict[str, Any] | None, version: str = MODERN_VERSION,
                   schema_version: str | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            message["params"] = params
        self.transcript.append(("out", message))
        reply = await self.server.handle(message, self.session)
        assert reply is not None
        self.transcript.append(("in", reply))
        problems = message_problems(reply, method=method, version=schema_version or _schema_for(version))
        assert problems == [], f"{method} answer is not schema-valid: {problems}\n{reply}"
        return reply

    async def call(self, name: str, arguments: dict[str, Any] | None = None, caps: dict[str, Any] | None = None,
                   responses: dict[str, Any] | None = None, state: Any = None, *, method: str = "tools/call",
                   send_state: bool | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"_meta": meta(caps)}
        if method == "resources/read":
            params["uri"] = name
        else:
            params["name"] = name
            params["arguments"] = arguments or {}
        if responses is not None:
            params["inputResponses"] = responses
        if send_state if send_state is not None else state is not None:
            params["requestState"] = state
        return await self.send(method, params)


def _schema_for(version: str) -> str:
    return "2026-07-28" if version == MODERN_VERSION else "2025-11-25"


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}
