"""Which Host and Origin the proxy's own listening side accepts (DNS rebinding defence).

A dev proxy on 127.0.0.1 is reachable from any web page the developer opens: a page on
`evil.example` whose DNS name is re-pointed at 127.0.0.1 sends requests with `Host: evil.example`
(and its own `Origin`). The proxy would relay them, with its recorded credentials path, to the real
server. So before anything is relayed, the Host must name the proxy itself (the loopback address it
was reached on, or `localhost` for a loopback address, with its port) or a name the user allowed with
`--allow-host`; otherwise 421 Misdirected Request. A browser's `Origin`, when present, must be the
proxy's own origin or an allowed host's; otherwise 403. Pure functions: no I/O, easy to test.
"""

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

#: (status, reason) for a refused request; None when it may be relayed.
Refusal = tuple[int, str] | None


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_host(value: str, default_port: int) -> tuple[str, int] | None:
    """`name[:port]` or `[v6][:port]` as (lower-case name, port); None when it is not of that form."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/@?# \t"):
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
    else:
        name, _, port_text = value.partition(":")
        if ":" in port_text:
            return None
    if not name:
        return None
    if not port_text:
        return name, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return name, int(port_text)


class HostGuard:
    """The names the proxy answers to: its own address and port (from the ASGI scope's `server`),
    `localhost` when that address is a loopback one, and each `--allow-host` NAME (any port, or only
    the one given as NAME:PORT). `*` turns the Host check off, as on `serve` (behind a trusted front
    end); a browser's foreign Origin is still refused then."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed: list[tuple[str, int | None]] = []
        self.any_host = False
        for entry in allowed:
            if entry.strip() == "*":
                self.any_host = True
                continue
            parsed = split_host(entry, 0)
            if parsed is None:
                raise ValueError(f"--allow-host takes NAME or NAME:PORT, got {entry!r}")
            name, port = parsed
            self.allowed.append((name, port or None))

    def _accepts(self, name: str, port: int, server: tuple[str, int] | None) -> bool:
        if server is not None:
            own_host, own_port = str(server[0]).lower(), int(server[1])
            own_names = {own_host} | ({"localhost"} if _is_loopback(own_host) else set())
            if name in own_names and port == own_port:
                return True
        return any(name == allowed and (want is None or port == want) for allowed, want in self.allowed)

    def check(self, headers: list[tuple[bytes, bytes]], server: tuple[str, int] | None) -> Refusal:
        """421 for a Host that is not the proxy's (or none, or several), 403 for a foreign Origin."""
        hosts = [v.decode("latin-1") for n, v in headers if n.lower() == b"host"]
        if len(hosts) != 1:
            return 421, "the request must carry exactly one Host header naming this proxy"
        host = split_host(hosts[0], 80)
        if host is None or not (self.any_host or self._accepts(*host, server)):
            return 421, ("misdirected request: this proxy does not answer to that Host "
                         "(allow a name with --allow-host NAME)")
        origins = [v.decode("latin-1") for n, v in headers if n.lower() == b"origin"]
        if len(origins) > 1:
            return 403, "the request carries several Origin headers"
        if origins and not self._origin_ok(origins[0], server):
            return 403, "forbidden: the request's Origin is not this proxy's (allow a name with --allow-host NAME)"
        return None

    def _origin_ok(self, origin: str, server: tuple[str, int] | None) -> bool:
        parts = urlsplit(origin.strip())
        if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.username is not None:
            return False  # "null", a file: page, anything that is not a web origin
        parsed = split_host(parts.netloc, 443 if parts.scheme == "https" else 80)
        return parsed is not None and self._accepts(*parsed, server)
