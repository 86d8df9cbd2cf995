"""`proxy --forward`: the recording proxy as a forward HTTP proxy (clients set `HTTP_PROXY`).

The reverse proxy (`--upstream`) gives the client another URL, which breaks what is tied to the
server's own: an OAuth protected-resource metadata whose `resource` must match, cookies scoped to
its host, absolute URLs in its answers. As a forward proxy the client keeps the server's URL and
sends `POST http://server/mcp` (absolute form) to the proxy, which relays and records it exactly as
the reverse proxy does (proxy.http_proxy; same stitching, lint, redaction and limits).

What it relays is plain http only. An `https://` URL makes the client send `CONNECT host:443` and
tunnel TLS through: nothing in the tunnel could be read, so rather than relay it unrecorded the
proxy refuses CONNECT with 501 and a sentence saying so (use the reverse proxy for an https server,
or let the client reach it directly with `NO_PROXY`).

Guarding the listening side: a request must name another host than the proxy itself (a request to
the proxy's own address is a client that was given the proxy's URL instead of setting HTTP_PROXY:
400 with what to do); a browser's `Origin` must be the target's own origin (403), so a web page
cannot use the proxy to reach another host.
"""

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from ..trace.redaction import Redaction
from ..transport.base import Tap
from ..transport.http_connections import connection_budget, protocol_class
from ..transport.http_server import HttpServerConfig
from .host_guard import split_host
from .http_proxy import ProxyApp, ProxyLimits, Sink

CONNECT_REFUSED = ("mrtr-studio proxy --forward records plain http only: an https URL (CONNECT) would be "
                   "tunnelled unrecorded, so it is refused. Use the reverse proxy for an https server "
                   "(mrtr-studio proxy --upstream https://...), or exclude it with NO_PROXY.\n")


class ForwardGuard:
    """The checks of the listening side in forward mode (see the module docstring); same shape as
    HostGuard's: (status, sentence) to refuse, None to relay."""

    def __init__(self, own: Iterable[tuple[str, int]] = ()) -> None:
        self.own = set(own)

    def check(self, headers: list[tuple[bytes, bytes]], server: tuple[str, int] | None) -> tuple[int, str] | None:
        hosts = [v.decode("latin-1") for n, v in headers if n.lower() == b"host"]
        target = split_host(hosts[0], 80) if len(hosts) == 1 else None
        if target is None:
            return 400, "a forward-proxy request must carry exactly one Host header naming the server"
        ours = set(self.own) | ({(server[0], server[1])} if server else set())
        if target in ours or (target[1] in {port for _, port in ours} and target[0] in ("localhost", "127.0.0.1",
                                                                                         "::1", "[::1]")):
            return 400, ("this is a forward proxy (--forward): set HTTP_PROXY to its address and keep the "
                         "server's own URL, instead of sending requests to the proxy's URL")
        origins = [v.decode("latin-1") for n, v in headers if n.lower() == b"origin"]
        for origin in origins:
            parts = urlsplit(origin)
            if parts.hostname is None or (parts.hostname, parts.port or 80) != target:
                return 403, "a browser Origin other than the target server's own is refused by the forward proxy"
        return None


class ForwardProxyApp(ProxyApp):
    """ProxyApp relaying each request to the server its Host names (absolute-form `http://` requests)."""

    def __init__(self, tap: Tap, limits: ProxyLimits | None = None, sink: Sink | None = None,
                 redaction: Redaction | None = None) -> None:
        super().__init__("http://forward-proxy.invalid/", tap, limits, sink, (), redaction)
        self.guard = ForwardGuard()  # type: ignore[assignment]  # same check() as HostGuard

    def target_of(self, scope: dict[str, Any]) -> str:
        host = next((v.decode("latin-1") for n, v in scope["headers"] if n.lower() == b"host"), "")
        query = scope.get("query_string", b"").decode("latin-1")
        return f"http://{host}{scope.get('path', '/')}" + (f"?{query}" if query else "")


def forward_protocol(limits: HttpServerConfig | None = None, nodelay: bool = True) -> type[Any]:
    """The listening protocol with CONNECT answered by a clear 501 (uvicorn would answer 400 "Invalid
    HTTP request"), before any parsing: the tunnel it asks for would carry nothing recordable."""
    limits = limits or HttpServerConfig()
    base = protocol_class(nodelay, limits.header_timeout, connection_budget(limits.max_connections),
                          limits.max_header_bytes, limits.max_header_fields)
    body = CONNECT_REFUSED.encode()
    refusal = (b"HTTP/1.1 501 Not Implemented\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
               b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

    class ForwardProtocol(base):  # type: ignore[misc,valid-type]
        def data_received(self, data: bytes) -> None:
            between = self.cycle is None or self.cycle.response_complete
            if between and data[:8].upper() == b"CONNECT ":
                self.transport.write(refusal)
                self.transport.close()
                return
            super().data_received(data)

    return ForwardProtocol


def forward_app(sink: Sink, redaction: Redaction) -> ForwardProxyApp:
    return ForwardProxyApp(Tap(), ProxyLimits(), sink=sink, redaction=redaction)
