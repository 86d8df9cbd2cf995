"""The requestState flags `serve` and `state decode` share: --secret (repeatable) and --state-ttl.

Key rotation must be reachable from the command line: `--secret NEW --secret OLD` keeps both, the
first signs and every one verifies, so a node restarted with a new key still completes the flows
the old key started. The environment variable holds one secret (a separator would forbid that
character in secrets) and is used only when no --secret is given.
"""

import argparse
import os

from ... import defaults

#: The engine's default lifetime (engine.options.DEFAULT_STATE_TTL; a test holds the two equal), kept here
#: so that building the command line does not load the engine: `wrap` and `proxy` start without it.
DEFAULT_STATE_TTL = defaults.STATE_TTL

__all__ = ["DEFAULT_STATE_TTL", "SECRET_ENV", "SECRET_HELP", "secrets_from", "state_ttl"]

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
