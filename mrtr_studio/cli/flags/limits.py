"""`serve`'s resource limits on the command line: hosts, legacy sessions, connections, timeouts.

Kept apart from `cli.py` (which must stay quick to import: the HTTP server is not loaded for the
GUI or `call`), so the defaults are written here once; a test checks they are HttpServerConfig's.
"""

import argparse
from typing import Any

from ... import defaults

#: flag destination -> default; the same names as HttpServerConfig's fields.
LIMIT_DEFAULTS: dict[str, Any] = defaults.SERVER_LIMITS
LEGACY_REQUEST_TIMEOUT = defaults.LEGACY_REQUEST_TIMEOUT


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def add_limit_flags(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group("limits (DNS-rebinding protection, sessions, connections, timeouts)")
    group.add_argument("--allow-host", action="append", default=[], metavar="HOST[:PORT]",
                       help="also answer requests whose Host header is HOST (any port) or HOST:PORT; "
                            "'*' turns the Host check off (repeatable; loopback names and the bound "
                            "address are always allowed)")
    group.add_argument("--max-sessions", type=_positive(int), default=LIMIT_DEFAULTS["max_sessions"],
                       metavar="N", help="legacy sessions open at once; initialize past it gets 503 (default "
                                         "%(default)s)")
    group.add_argument("--session-idle", dest="session_idle_seconds", type=_positive(float),
                       default=LIMIT_DEFAULTS["session_idle_seconds"], metavar="SECONDS",
                       help="end a legacy session after this long without a request (default %(default)g)")
    group.add_argument("--max-connections", type=_positive(int), default=LIMIT_DEFAULTS["max_connections"],
                       metavar="N", help="connections served at once; requests past it get 503 (default "
                                         "%(default)s)")
    group.add_argument("--header-timeout", type=_positive(float), default=LIMIT_DEFAULTS["header_timeout"],
                       metavar="SECONDS", help="close a connection whose request headers take longer "
                                               "(default %(default)g)")
    group.add_argument("--body-timeout", type=_positive(float), default=LIMIT_DEFAULTS["body_timeout"],
                       metavar="SECONDS", help="answer 408 when a request body takes longer (default %(default)g)")
    group.add_argument("--keep-alive-timeout", type=_positive(float), default=LIMIT_DEFAULTS["keep_alive_timeout"],
                       metavar="SECONDS", help="close an idle keep-alive connection after this long "
                                               "(default %(default)g)")
    group.add_argument("--max-header-bytes", type=_positive(int), default=LIMIT_DEFAULTS["max_header_bytes"],
                       metavar="BYTES", help="a request's header section past this gets 431 (default %(default)s)")
    group.add_argument("--max-header-fields", type=_positive(int), default=LIMIT_DEFAULTS["max_header_fields"],
                       metavar="N", help="a request with more header fields gets 431 (default %(default)s)")
    group.add_argument("--legacy-request-timeout", type=_positive(float), default=LEGACY_REQUEST_TIMEOUT,
                       metavar="SECONDS", help="how long a legacy server-initiated request (elicitation, "
                                               "sampling, roots) waits for the client's answer (default "
                                               "%(default)g)")


def limits_of(args: argparse.Namespace) -> dict[str, Any]:
    """The HttpServerConfig fields the flags set."""
    return {"allowed_hosts": frozenset(args.allow_host), **{name: getattr(args, name) for name in LIMIT_DEFAULTS}}
