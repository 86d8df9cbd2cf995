"""Classic server-initiated requests for legacy (2025-11-25) sessions.

A legacy client cannot receive input_required, so a dual-era handler awaits the answer inside the
open call instead: the request goes out through the transport's channel for the call being served
(`McpServer.handle(..., outbound=...)`), and the client's JSON-RPC response, arriving through `handle`,
resolves it.
"""

import asyncio
import contextlib
import contextvars
import json
from collections.abc import Iterator
from typing import Any

from ..protocol import jsonrpc
from ..protocol.errors import INTERNAL_ERROR, McpError
from .options import ServerOptions
from .server_session import Outbound, Session
from .values import check_params

#: The outbound channel of the call being served, private to the engine: transports pass it to `handle`.
_call_outbound: contextvars.ContextVar[Outbound | None] = contextvars.ContextVar("call_outbound", default=None)


@contextlib.contextmanager
def call_outbound(outbound: Outbound) -> Iterator[None]:
    """Inside this block (one call's handling), legacy requests go out on `outbound`."""
    token = _call_outbound.set(outbound)
    try:
        yield
    finally:
        _call_outbound.reset(token)


class LegacyRequests:
    """Mixed into McpServer: `await server.request_roots_list(session.id)` and friends."""

    sessions: dict[str, Session]
    options: ServerOptions

    async def send_request(self, session_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a classic server-to-client request on a legacy session and await the client's result."""
        session = self.sessions.get(session_id)
        if session is None:
            raise McpError(INTERNAL_ERROR, f"no open session {session_id}")
        outbound = _call_outbound.get() or session.outbound
        if outbound is None:
            raise McpError(INTERNAL_ERROR, "this session has no channel for server-initiated requests")
        request_id = session.next_request_id()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        session.pending[request_id] = future
        try:
            await outbound(jsonrpc.request(request_id, method, params))
            return await asyncio.wait_for(future, self.options.mrtr.legacy_request_timeout)
        except TimeoutError as exc:
            raise McpError(INTERNAL_ERROR, f"the client did not answer {method} in time") from exc
        finally:
            session.pending.pop(request_id, None)

    async def request_elicitation(self, session_id: str, message: str, requested_schema: dict[str, Any] | str,
                                  ) -> dict[str, Any]:
        schema = requested_schema
        if isinstance(schema, str):
            schema = json.loads(schema)
        return await self.send_request(session_id, "elicitation/create",
                                       {"mode": "form", "message": message, "requestedSchema": schema})

    async def request_elicitation_url(self, session_id: str, message: str, url: str,
                                      elicitation_id: str) -> dict[str, Any]:
        return await self.send_request(session_id, "elicitation/create",
                                       {"mode": "url", "message": message, "url": url,
                                        "elicitationId": elicitation_id})

    async def request_sampling(self, session_id: str, messages: list[dict[str, Any]],
                               system_prompt: str | None = None, max_tokens: int = 256) -> dict[str, Any]:
        params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
        if system_prompt:
            params["systemPrompt"] = system_prompt
        return await self.send_request(session_id, "sampling/createMessage", params)

    async def request_roots_list(self, session_id: str) -> dict[str, Any]:
        return await self.send_request(session_id, "roots/list", {})

    def _resolve_pending(self, message: dict[str, Any], session: Session) -> None:
        """Hand a client's response to the handler awaiting it; a malformed one becomes a clear error
        for that handler (never an exception out of `handle`, never a value no handler should see)."""
        msg_id = message.get("id")
        if isinstance(msg_id, bool) or not isinstance(msg_id, str | int):
            return  # no request of ours has such an id (a list or an object is not even hashable)
        future = session.pending.get(msg_id)
        if future is None or future.done():
            return
        if "error" in message:
            future.set_exception(_client_error(message["error"]))
            return
        result = message.get("result")
        if result is None:
            result = {}
        if not isinstance(result, dict):
            future.set_exception(McpError(INTERNAL_ERROR, "the client's result is not an object"))
            return
        try:
            check_params(result, self.options.max_argument_depth, code=INTERNAL_ERROR, label="Invalid client result")
        except McpError as exc:
            future.set_exception(exc)
            return
        future.set_result(result)


def _client_error(error: Any) -> McpError:
    """The client's JSON-RPC error as raised in the handler; a code that is no integer is reported, not trusted."""
    if not isinstance(error, dict):
        return McpError(INTERNAL_ERROR, "the client answered with a malformed error")
    code, text = error.get("code"), error.get("message")
    if type(code) is not int:
        return McpError(INTERNAL_ERROR, f"the client answered with a malformed error (code {code!r})")
    return McpError(code, text if isinstance(text, str) else "error", error.get("data"))
