"""Streamable HTTP client (httpx) for both eras, recording every message through the tap.

Modern (2026-07-28): every POST carries MCP-Protocol-Version, Mcp-Method and Mcp-Name mirrored
from the body, no session. Legacy (2025-11-25 and older): the Mcp-Session-Id from `initialize` and
the negotiated version ride along, and the server may send its own requests on a response's SSE
stream; those are answered by POSTing the client's response while the stream keeps being read.
A 4xx whose body is a JSON-RPC error is returned as a response (the era probe needs to read it);
anything unusable becomes a TransportError saying what went wrong, never a hang.
"""

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ..protocol import param_headers
from ..protocol.versions import META_PROTOCOL_VERSION, NAME_FIELDS
from .base import ServerRequestHandler, Tap, TransportError, answer_server_request, masked_headers

ACCEPT = "application/json, text/event-stream"


header_value = param_headers.encode  # the spec's Value Encoding, shared with the server

def modern_headers(message: dict[str, Any],
                   header_params: dict[str, list[param_headers.HeaderParam]] | None = None) -> dict[str, str]:
    """The request metadata headers a 2026-07-28 POST must mirror from its body, Mcp-Param-* included."""
    raw_params = message.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    raw_meta = params.get("_meta")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    headers = {"MCP-Protocol-Version": str(meta.get(META_PROTOCOL_VERSION, "")), "Mcp-Method": message["method"]}
    field = NAME_FIELDS.get(message["method"])
    if field and isinstance(params.get(field), str):
        headers["Mcp-Name"] = header_value(params[field])
    if message["method"] == "tools/call" and header_params and params.get("name") in header_params:
        headers.update(param_headers.headers_for(header_params[params["name"]], params.get("arguments")))
    return headers


def is_modern(message: dict[str, Any]) -> bool:
    params = message.get("params")
    return isinstance(params, dict) and isinstance(params.get("_meta"), dict) \
        and META_PROTOCOL_VERSION in params["_meta"]


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str]]:
    """(event, data) per SSE event; comment lines (keep-alives) are skipped as the SSE spec says."""
    event, data = "message", list[str]()
    async for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", list[str]()
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    if data:
        yield event, "\n".join(data)


class HttpClientTransport:
    def __init__(self, url: str, bearer_token: str | None = None, tap: Tap | None = None, timeout: float = 30.0,
                 headers: dict[str, str] | None = None, client: httpx.AsyncClient | None = None) -> None:
        self.url = url
        self.bearer_token = bearer_token
        self.tap = tap or Tap()
        self.timeout = timeout
        self.extra_headers = dict(headers or {})
        self.session_id: str | None = None
        self.legacy_version: str | None = None
        #: `x-mcp-header` parameters per tool, learnt from tools/list results that passed through here.
        self.header_params: dict[str, list[param_headers.HeaderParam]] = {}
        #: Tools dropped from tools/list because their annotations break the rules (name -> why).
        self.rejected_tools: dict[str, str] = {}
        # Reads are timed by an idle deadline of our own (see send): it pauses while a person answers.
        self._client = client or httpx.AsyncClient(timeout=httpx.Timeout(timeout, read=None))
        self._handler: ServerRequestHandler | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        self._handler = handler

    def headers_for(self, message: dict[str, Any]) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **self.extra_headers}
        if self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        if "method" in message and is_modern(message):
            headers.update(modern_headers(message, self.header_params))
            return headers
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.legacy_version and message.get("method") != "initialize":
            headers["MCP-Protocol-Version"] = self.legacy_version
        return headers

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        headers = self.headers_for(message)
        shown = masked_headers(headers)
        self.tap.emit("client->server", message, transport="http", url=self.url, request_headers=shown)
        expects_reply = "method" in message and "id" in message
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout) as deadline:
                async with self._client.stream("POST", self.url, json=message, headers=headers) as response:
                    reply = await self._read(response, message, started, expects_reply, deadline)
        except TimeoutError as exc:
            raise TransportError(f"no response from {self.url} within {self.timeout:g} s") from exc
        except httpx.TimeoutException as exc:
            raise TransportError(f"no response from {self.url} within {self.timeout:g} s ({type(exc).__name__})") \
                from exc
        except httpx.ConnectError as exc:
            raise TransportError(f"cannot connect to {self.url}: {exc}") from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise TransportError(f"connection to {self.url} dropped before a response: {exc}") from exc
        except httpx.HTTPError as exc:
            raise TransportError(f"HTTP failure talking to {self.url}: {type(exc).__name__}: {exc}") from exc
        if message.get("method") == "initialize" and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            self.legacy_version = str(reply["result"].get("protocolVersion") or "") or None
        if message.get("method") == "tools/list" and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            reply = self._learn_tools(reply)
        return reply

    def _learn_tools(self, reply: dict[str, Any]) -> dict[str, Any]:
        """Remember each tool's header parameters; drop tools whose annotations are invalid (a client MUST).

        The trace already holds the listing as it came over the wire; only the caller's copy is filtered."""
        tools = reply["result"].get("tools")
        if not isinstance(tools, list):
            return reply
        kept = []
        for tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            try:
                self.header_params[str(name)] = param_headers.annotations(tool.get("inputSchema"))
            except param_headers.InvalidAnnotation as exc:
                self.rejected_tools[str(name)] = str(exc)
                logging.getLogger(__name__).warning("rejected tool %r: %s", name, exc)
                continue
            kept.append(tool)
        if len(kept) == len(tools):
            return reply
        return {**reply, "result": {**reply["result"], "tools": kept}}

    async def _read(self, response: httpx.Response, message: dict[str, Any], started: float,
                    expects_reply: bool, deadline: asyncio.Timeout) -> dict[str, Any] | None:
        if response.headers.get("mcp-session-id"):
            self.session_id = response.headers["mcp-session-id"]
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        meta = {"transport": "http", "http_status": response.status_code, "content_type": content_type}
        if content_type == "text/event-stream":
            return await self._read_sse(response, message, started, meta, deadline)
        body = (await response.aread()).decode("utf-8", errors="replace")
        meta.update(framing="json", duration_ms=round((time.monotonic() - started) * 1000, 1))
        if not body.strip():
            if response.status_code < 300 and not expects_reply:
                return None
            self.tap.emit("server->client", body, **meta, error="empty body")
            raise TransportError(f"HTTP {response.status_code} from {self.url} with an empty body"
                                 + (" (expected a JSON-RPC response)" if response.status_code < 300 else ""))
        try:
            parsed = json.loads(body)
        except ValueError:
            self.tap.emit("server->client", body, **meta, error="not JSON")
            raise TransportError(f"HTTP {response.status_code} from {self.url}: the body is not JSON: "
                                 f"{body[:80]!r}") from None
        self.tap.emit("server->client", parsed, **meta)
        if not isinstance(parsed, dict) or not ("result" in parsed or "error" in parsed):
            raise TransportError(f"HTTP {response.status_code} from {self.url}: the body is not a JSON-RPC response")
        return parsed

    async def _read_sse(self, response: httpx.Response, message: dict[str, Any], started: float,
                        meta: dict[str, Any], deadline: asyncio.Timeout) -> dict[str, Any] | None:
        meta["framing"] = "sse"
        loop = asyncio.get_running_loop()
        try:
            async for _event, data in sse_events(response.aiter_lines()):
                if not self._tasks:  # an idle deadline: each event buys another `timeout` seconds
                    deadline.reschedule(loop.time() + self.timeout)
                stamp = {**meta, "duration_ms": round((time.monotonic() - started) * 1000, 1)}
                try:
                    item = json.loads(data)
                except ValueError:
                    self.tap.emit("server->client", data, **stamp, error="SSE data is not JSON")
                    raise TransportError(f"SSE event from {self.url} is not JSON: {data[:80]!r}") from None
                if isinstance(item, dict) and "method" in item and "id" in item:
                    self.tap.emit("server->client", item, **stamp, server_initiated=True)
                    deadline.reschedule(None)  # a person may take their time; the clock restarts after
                    self._spawn(self._answer(item, deadline))
                    continue
                self.tap.emit("server->client", item, **stamp)
                if isinstance(item, dict) and ("result" in item or "error" in item) \
                        and item.get("id") == message.get("id"):
                    return item
        finally:
            for task in list(self._tasks):  # answers still in flight are moot once the request ended
                task.cancel()
        raise TransportError(f"the SSE stream from {self.url} ended without a response to id {message.get('id')!r}")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: dict[str, Any], deadline: asyncio.Timeout) -> None:
        """Answer a legacy server request with the handler and POST the response back."""
        try:
            await self._answer_and_post(request)
        finally:
            if len(self._tasks) <= 1:
                with contextlib.suppress(RuntimeError):  # the request may have ended meanwhile
                    deadline.reschedule(asyncio.get_running_loop().time() + self.timeout)

    async def _answer_and_post(self, request: dict[str, Any]) -> None:
        reply = await answer_server_request(self._handler, request)
        headers = self.headers_for(reply)
        self.tap.emit("client->server", reply, transport="http", url=self.url, server_initiated=True)
        try:
            answered = await self._client.post(self.url, json=reply, headers=headers)
        except httpx.HTTPError:
            return  # the request's own stream reports the failure
        if answered.status_code >= 300:
            self.tap.emit("server->client", answered.text, transport="http", http_status=answered.status_code,
                          error="the server refused the client's response")

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.session_id:
            with contextlib.suppress(httpx.HTTPError):
                await self._client.delete(self.url, headers={"Mcp-Session-Id": self.session_id}, timeout=2.0)
        await self._client.aclose()
