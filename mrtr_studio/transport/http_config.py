"""`serve`'s settings for one endpoint: where it answers, who may ask, and every bound on a request and
a connection (size, depth, time, sessions, connections, headers). The CLI's flags fill it in
(`cli/flags/limits.py`); the endpoint (`http_server`), its access checks (`http_access`) and the
connection protocol (`http_connections`, through `http_host`) read it."""

from dataclasses import dataclass, field

from ..auth.jwt_verifier import JwtVerifier


@dataclass
class HttpServerConfig:
    path: str = "/mcp"
    #: Bearer token -> principal (`--user NAME:TOKEN`).
    users: dict[str, str] = field(default_factory=dict)
    #: OAuth (`--auth jwt`): bearer JWTs checked by this verifier instead of `users`; the server then also
    #: serves its Protected Resource Metadata and refuses requests without a valid token.
    verifier: JwtVerifier | None = None
    #: Origins accepted besides loopback ones (DNS-rebinding protection rejects every other).
    allowed_origins: frozenset[str] = frozenset()
    #: Host header values accepted besides the loopback names and the bound address with the bound
    #: port: `name` (any port) or `name:port`; `*` turns the Host check off (behind a trusted proxy).
    allowed_hosts: frozenset[str] = frozenset()
    max_body_bytes: int = 1 << 20
    #: Nesting bound of a request body (arrays and objects), checked before any other code sees it.
    max_json_depth: int = 64
    #: Seconds a client may take to send the whole body once its headers are in (408 after).
    body_timeout: float = 30.0
    #: Legacy sessions: ended after this many idle seconds; `initialize` past the cap is answered 503.
    session_idle_seconds: float = 1800.0
    max_sessions: int = 1000
    #: Connection limits, applied by the host (uvicorn): seconds to receive a request's headers,
    #: seconds an idle keep-alive connection stays open, connections served at once (503 past it).
    header_timeout: float = 10.0
    keep_alive_timeout: float = 30.0
    max_connections: int = 1000
    #: A request's header section: bytes and fields (431 past either, before it is held; header_limits).
    max_header_bytes: int = 64 * 1024
    max_header_fields: int = 100

    def __post_init__(self) -> None:
        self.allowed_hosts = frozenset(host.strip().lower() for host in self.allowed_hosts)
        for name in ("body_timeout", "session_idle_seconds", "header_timeout", "keep_alive_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {getattr(self, name)!r}")
        for name in ("max_body_bytes", "max_json_depth", "max_sessions", "max_connections",
                     "max_header_bytes", "max_header_fields"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)!r}")
