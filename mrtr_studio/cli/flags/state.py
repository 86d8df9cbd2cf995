"""The requestState flags `serve` and `state decode` share: --secret (repeatable) and --state-ttl.

Key rotation must be reachable from the command line: `--secret NEW --secret OLD` keeps both, the
first signs and every one verifies, so a node restarted with a new key still completes the flows
the old key started. The environment variable holds one secret (a separator would forbid that
character in secrets) and is used only when no --secret is given.
"""

import argparse
import os

from ... import defaults
from ...states.formats import FORMATS

#: The engine's default lifetime (engine.options.DEFAULT_STATE_TTL; a test holds the two equal), kept here
#: so that building the command line does not load the engine: `wrap` and `proxy` start without it.
DEFAULT_STATE_TTL = defaults.STATE_TTL

__all__ = ["DEFAULT_STATE_TTL", "SECRET_ENV", "SECRET_HELP", "add_decode_flags", "secrets_from", "state_ttl"]

#: The secret's environment variable (one secret; --secret on the command line takes precedence).
SECRET_ENV = "MRTR_STUDIO_SECRET"
SECRET_HELP = (f"requestState signing secret; repeat it to rotate keys: the first signs, all verify "
               f"(--secret NEW --secret OLD). Default: ${SECRET_ENV} (one secret), else a random key per process")


def state_ttl(text: str) -> int:
    """argparse type for --state-ttl: whole seconds above 0 (0 or less would make every state born expired)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0 seconds (every state would be born expired), got {value}")
    return value


def secrets_from(args: argparse.Namespace) -> list[str]:
    """Every --secret in order (the first signs), else the environment's one secret, else none."""
    given = [secret for secret in (args.secret or []) if secret]
    if given:
        return given
    from_env = os.environ.get(SECRET_ENV, "")
    return [from_env] if from_env else []


def add_decode_flags(decode: argparse.ArgumentParser) -> None:
    """The flags beyond the original --secret/--state-ttl/--json: format, keys from files, the request."""
    decode.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                        help="the state's format (default: detected from its shape)")
    decode.add_argument("--key-file", action="append", default=[], metavar="FILE",
                        help="a key in a file: a PEM public key or a JWKS (JWT states), or raw key bytes; repeatable")
    decode.add_argument("--method", help="the request the state came with: its method (tools/call, ...)")
    decode.add_argument("--name", help="... its tool or prompt name, or resource URI")
    decode.add_argument("--args", metavar="JSON", help="... its arguments, a JSON object")
    decode.add_argument("--principal", help="... who sent it (the authenticated principal)")
    decode.add_argument("--audience", action="append", default=[], metavar="AUD",
                        help="a name the receiving server answers to (its audience); repeatable")
    decode.add_argument("--bind", metavar="VALUE", help="ts-sdk: the value the server's bind(ctx) returns")
    decode.add_argument("--round", action="append", default=[], metavar="TOKEN",
                        help="opaque: the state of an earlier round, oldest first; repeatable")
