"""What every decoder returns, the request a state is compared with, and the bounded readers they share.

One result type for every format lets the CLI and the window show any state the same way: the
format's name, its payload (when it can be read) and a list of checks, each pass, fail or
cannot-check with the reason, so a person sees what was verified and what could not be.
"""

import base64
import binascii
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .. import defaults
from ..engine.state_inspect import Checked, NamedCheck
from ..protocol import wire_json

Status = Literal["pass", "fail", "cannot-check"]
#: A decoder's checks (the engine's inspection's type, in the decoders' words).
Check = NamedCheck[Status]


@dataclass
class Decoded(Checked[Status]):
    """One state taken apart: `payload` is None when it cannot be read (encrypted without the key, malformed)."""

    format: str
    payload: dict[str, Any] | None
    checks: list[Check] = field(default_factory=list)
    #: What can be read without any key (a JWT's header, an encrypted token's key id).
    header: dict[str, Any] | None = None
    #: payload key -> what it means, for people (the wire names are often single letters).
    labels: dict[str, str] = field(default_factory=dict)

    UNDECIDED: ClassVar[str] = "cannot-check"

    def as_dict(self) -> dict[str, Any]:
        """The `state decode --json` shape (fixed for scripts: exactly these four keys), exactly these four keys."""
        return {"format": self.format, "payload": self.payload, "verdict": self.verdict,
                "checks": self.checks_as_dicts()}


@dataclass(frozen=True)
class RequestContext:
    """The request a state came with (or the server it was sent to): what its bindings are compared with.

    Anything left None is not known, and the matching check says so instead of guessing.
    """

    method: str | None = None
    name: str | None = None
    arguments: Any = None
    principal: str | None = None
    #: The names the receiving server answers to; a state minted for another is refused.
    audiences: Sequence[str] = ()
    #: The TypeScript SDK binds to whatever its server's bind(ctx) returns; give that value to check it.
    bind_value: str | None = None


def parse_key(text: str) -> bytes:
    """A key as written on the command line: `hex:…`, `base64:…`, else the key's UTF-8 text."""
    if text.startswith("hex:"):
        try:
            key = bytes.fromhex(text[4:])
        except ValueError:
            raise ValueError("a hex: key must be an even number of hexadecimal digits") from None
    elif text.startswith("base64:"):
        body = text[7:].strip().replace("-", "+").replace("_", "/")
        try:
            key = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("a base64: key must be base64 or base64url") from None
    else:
        key = text.encode("utf-8")
    if not key:
        raise ValueError("the key is empty")
    if len(key) > defaults.STATE_MAX_KEY_BYTES:
        raise ValueError(f"the key is longer than {defaults.STATE_MAX_KEY_BYTES} bytes")
    return key


def read_json(raw: bytes | str) -> Any:
    """Bounded JSON from a peer's bytes (size and depth); ValueError says what was wrong."""
    return wire_json.loads(raw, max_bytes=defaults.STATE_MAX_TOKEN_CHARS, max_depth=defaults.STATE_MAX_JSON_DEPTH)


def b64url_loose(text: str) -> bytes:
    """base64url with or without padding (what JavaScript's atob and JWT libraries accept); ValueError otherwise."""
    if not text or any(c not in _URLSAFE for c in text.rstrip("=")):
        raise ValueError("not base64url")
    body = text.rstrip("=")
    try:
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


_URLSAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def number(value: Any) -> float | None:
    """A finite JSON number (never a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def expiry_checks(claims: dict[str, Any], now: float, *, skew: float = 60.0, exp_key: str = "exp",
                  iat_key: str | None = "iat") -> list[Check]:
    """`expiry` for any format with unix-second claims: exp in the future, iat not beyond the skew."""
    checks: list[Check] = []
    expires = number(claims.get(exp_key))
    if exp_key not in claims:
        return [Check("expiry", "cannot-check", f"no {exp_key} claim: nothing in the state limits its lifetime")]
    if expires is None:
        return [Check("expiry", "fail", f"{exp_key} is not a number")]
    issued = number(claims.get(iat_key)) if iat_key else None
    if issued is not None and issued > now + skew:
        checks.append(Check("expiry", "fail", f"issued in the future (beyond {int(skew)} s of clock skew)"))
    elif now >= expires:
        checks.append(Check("expiry", "fail", f"expired {int(now - expires)} s ago"))
    else:
        checks.append(Check("expiry", "pass", f"valid for {int(expires - now)} s more"))
    return checks


def compare(name: str, bound: Any, actual: Any, what: str) -> Check:
    """A binding check: `actual` None means the request is not known."""
    if actual is None:
        return Check(name, "cannot-check", f"bound to {bound!r}; no request to compare with")
    if bound == actual:
        return Check(name, "pass", f"matches {actual!r}" if what == "" else what)
    return Check(name, "fail", f"bound to {bound!r}, the request has {actual!r}")


def audience_check(aud: Any, request: RequestContext | None) -> Check:
    """`audience`: the state names the server it was minted for; a list (JWT) matches when any entry does."""
    if aud is None:
        return Check("audience", "cannot-check", "the state names no audience: any server with the key accepts it")
    accepted = list(request.audiences) if request else []
    if not accepted:
        return Check("audience", "cannot-check", f"minted for {aud!r}; no server audience given to compare with")
    named = aud if isinstance(aud, list) else [aud]
    if any(a in accepted for a in named):
        return Check("audience", "pass", f"minted for {aud!r}")
    return Check("audience", "fail", f"minted for {aud!r}, not for {', '.join(repr(a) for a in accepted)}")
