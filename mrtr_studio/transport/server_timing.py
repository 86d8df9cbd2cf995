"""The server's own time on an HTTP answer, as W3C Server-Timing (`mcp;dur=MS`): `serve` writes it, the
client records it (`server_ms`), and the diagram's waterfall (trace/waterfall.py) subtracts it from the
round trip to tell the network's time from the server's."""


def server_timing(milliseconds: float) -> tuple[bytes, bytes]:
    """The header to send: the time the server spent serving the request. (The value goes in a tuple:
    bytes `%` with a bare float first checks whether it is a mapping, which costs more than the format.)"""
    return b"server-timing", b"mcp;dur=%.3f" % (milliseconds,)


def server_timing_ms(value: str | None) -> float | None:
    """The first `dur=` of a Server-Timing header (the server's own milliseconds), None when absent or odd."""
    if not value or len(value) > 1024:
        return None
    for part in value.split(",")[0].split(";")[1:]:
        name, _, number = part.strip().partition("=")
        if name.strip().lower() == "dur":
            try:
                found = float(number.strip().strip('"'))
            except ValueError:
                return None
            return found if 0 <= found < 1e9 else None
    return None
