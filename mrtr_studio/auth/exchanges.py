"""The HTTP exchanges of an authorization flow, bounded and recorded (masked) for the Auth view.

Every metadata fetch, registration, authorization redirect and token request goes through `AuthHttp`:
each body is read to at most `max_body` bytes within `timeout` seconds, and each exchange becomes an
`Exchange` with its phase, the masked request and response, and the spec checks judged on it.

Who hears an exchange: the flow's listeners (the studio's Auth view hears every flow), and the sink
set in the context that ran the flow (`exchange_sink`): a transport sets it around the flow it
started, so the exchanges land in the trace of the request they unlock and nowhere else, even when
one flow serves several transports.

An exchange is announced once its checks are judged: the flow judges right after the response, so
an exchange is held until the next one starts, a step that needs no judging is recorded `final`, and
the flow calls `flush()` when it ends.
"""

import asyncio
import contextvars
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..trace.redaction import DEFAULT
from .errors import AuthError as AuthError  # its home is errors.py; the flow modules import it here
from .secrets import SecretBook, masked_headers

MAX_BODY = 256 * 1024
KEPT = 500

ExchangeListener = Callable[["Exchange"], None]
#: Hears the exchanges of a flow run in this context (set by the transport whose request ran it).
exchange_sink: contextvars.ContextVar[ExchangeListener | None] = contextvars.ContextVar("exchange_sink",
                                                                                          default=None)


@dataclass
class Check:
    name: str
    passed: bool
    detail: str = ""


@dataclass
class Exchange:
    """One HTTP exchange of the flow (secrets masked), with the checks made on it."""

    phase: str
    method: str
    url: str
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: Any = None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: Any = None
    error: str = ""
    checks: list[Check] = field(default_factory=list)
    at: float = field(default_factory=time.time)
    #: A refusal the flow expected and answered (a DPoP nonce asked for): why it is not a failure.
    handled: str = ""

    def check(self, name: str, passed: bool, detail: str = "") -> bool:
        self.checks.append(Check(name, passed, detail))
        return passed

    def as_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "method": self.method, "url": self.url, "request_headers": self.request_headers,
                "request_body": self.request_body, "status": self.status, "response_headers": self.response_headers,
                "response_body": self.response_body, "error": self.error, "at": self.at,
                **({"handled": self.handled} if self.handled else {}),
                "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in self.checks]}


@dataclass
class Reply:
    status: int
    headers: httpx.Headers
    text: str
    exchange: Exchange

    def json(self) -> Any:
        try:
            return json.loads(self.text)
        except ValueError:
            return None


class AuthHttp:
    """Bounded HTTP for the flow; `on_exchange` and every `listen`er hear each finished exchange (masked)."""

    def __init__(self, book: SecretBook, client: httpx.AsyncClient | None = None, timeout: float = 15.0,
                 max_body: int = MAX_BODY, on_exchange: ExchangeListener | None = None) -> None:
        self.book = book
        self.timeout = timeout
        self.max_body = max_body
        self.on_exchange = on_exchange
        #: The latest exchanges (a long session's flows keep only this many).
        self.exchanges: deque[Exchange] = deque(maxlen=KEPT)
        self._listeners: list[ExchangeListener] = []
        self._pending: tuple[Exchange, ExchangeListener | None] | None = None
        self._client = client or httpx.AsyncClient(timeout=timeout, follow_redirects=False)

    async def request(self, phase: str, method: str, url: str, headers: dict[str, str] | None = None,
                      content: str | None = None) -> Reply:
        self.flush()
        headers = {"Accept": "application/json", "Accept-Encoding": "identity", **(headers or {})}
        exchange = Exchange(phase, method, self.book.mask(DEFAULT.url(url)), masked_headers(headers, self.book),
                            self.book.masked_body(content) if content else None)
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client.stream(method, url, headers=headers, content=content) as response:
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > self.max_body:
                            raise AuthError(f"{phase}: the response from {url} is over {self.max_body} bytes")
            text = body.decode("utf-8", errors="replace")
        except (httpx.HTTPError, httpx.InvalidURL, ValueError, TimeoutError, AuthError) as exc:
            exchange.error = str(exc) or type(exc).__name__
            self._done(exchange)
            if isinstance(exc, AuthError):
                raise
            raise AuthError(f"{phase}: {method} {self.book.mask(url)} failed: {exchange.error}") from None
        exchange.status = response.status_code
        exchange.response_headers = masked_headers(dict(response.headers), self.book)
        reply = Reply(response.status_code, response.headers, text, exchange)
        exchange.response_body = self.book.masked_body(text) if text else None
        self._done(exchange)
        return reply

    def record(self, exchange: Exchange, final: bool = False) -> None:
        """A step that is not an HTTP request of ours (the browser's redirect, a refusal): record it too.
        `final`: no check will be judged on it, announce it now (the browser step waits for a person)."""
        self.flush()
        self._done(exchange)
        if final:
            self.flush()

    def listen(self, listener: ExchangeListener) -> Callable[[], None]:
        """Hear every exchange of this flow from now on; returns the call that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _done(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        self._pending = (exchange, exchange_sink.get())  # the sink of the context whose flow made it

    def flush(self) -> None:
        """Announce the exchange held for its checks (the flow calls this when it ends)."""
        if self._pending is None:
            return
        exchange, sink = self._pending
        self._pending = None
        for listener in [self.on_exchange, *self._listeners, sink]:
            if listener is not None:
                listener(exchange)

    async def aclose(self) -> None:
        await self._client.aclose()
