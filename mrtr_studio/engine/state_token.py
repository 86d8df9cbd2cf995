"""The requestState token: the handler's state sealed with HMAC-SHA256 and bound to its request.

Format (DESIGN.md): `v1.` + b64url(payload JSON) + `.` + b64url(HMAC-SHA256(key, "v1." + b64url(payload))).
The server keeps nothing between rounds; everything it needs to trust a retry is in the token,
so any instance holding one of the keys can continue a flow another instance started.
"""

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac

from ..protocol.token_format import (
    PREFIX,
    arguments_digest,
    b64url_decode,
    b64url_encode,
    canonical_json,
)

MAX_CLOCK_SKEW = 60
#: Verification checks in the order they run; `reason` names the first that fails.
CHECKS = ("malformed", "signature", "expired", "method", "name", "arguments", "principal")


class StateRejected(Exception):
    """A token failed verification; `reason` is one of CHECKS."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def key_id(key: bytes) -> str:
    return hashlib.sha256(b"mrtr-kid:" + key).hexdigest()[:8]


def _keyed(key: bytes) -> hmac.HMAC:
    """A keyed HMAC context; copies of it skip the key schedule on every token."""
    return hmac.HMAC(key, hashes.SHA256())


def _mac(keyed: hmac.HMAC, signed: bytes) -> bytes:
    h = keyed.copy()
    h.update(signed)
    return h.finalize()


def _mac_matches(keyed: hmac.HMAC, signed: bytes, tag: bytes) -> bool:
    h = keyed.copy()
    h.update(signed)
    try:
        h.verify(tag)  # constant-time comparison
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True)
class Binding:
    """What a token must match on retry: the request it was minted for."""

    method: str
    name: str
    arguments: Any
    principal: str = ""

    @cached_property
    def digest(self) -> str:
        """The arguments' digest, computed once per request however often it is compared or minted."""
        return arguments_digest(self.arguments)


@dataclass
class DecodedToken:
    """A token taken apart, before (or without) any verification."""

    payload: dict[str, Any]
    signed: bytes
    tag: bytes


_FIELD_TYPES = (("iat", int), ("exp", int), ("m", str), ("n", str), ("a", str), ("p", str))


def decode(token: Any) -> DecodedToken:
    """Split and parse a token; raises StateRejected('malformed') when it is not one."""
    if type(token) is not str:
        raise StateRejected("malformed", "requestState must be a string")
    if not token.startswith(PREFIX):
        raise StateRejected("malformed", "missing the v1. prefix")
    body_text, dot, tag_text = token[len(PREFIX):].partition(".")
    if not dot or "." in tag_text:
        raise StateRejected("malformed", "expected v1.<payload>.<signature>")
    try:
        body = b64url_decode(body_text)
        tag = b64url_decode(tag_text)
        payload = orjson.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:  # orjson.JSONDecodeError is a ValueError
        raise StateRejected("malformed", str(exc)) from exc
    if type(payload) is not dict or payload.get("v") != 1 or len(tag) != 32:
        raise StateRejected("malformed", "payload is not a v1 state")
    if not _well_typed(payload):
        bad = next(key for key, kind in _FIELD_TYPES if type(payload.get(key)) is not kind)
        raise StateRejected("malformed", f"payload field {bad!r} missing or of the wrong type")
    return DecodedToken(payload=payload, signed=token[: len(PREFIX) + len(body_text)].encode("ascii"), tag=tag)


def _well_typed(payload: dict[str, Any]) -> bool:
    """Exact types (a bool is no timestamp), checked without a loop: this runs on every retry."""
    get = payload.get
    return (type(get("iat")) is int and type(get("exp")) is int and type(get("m")) is str
            and type(get("n")) is str and type(get("a")) is str and type(get("p")) is str)


@dataclass
class StateCodec:
    """Signs with the first key, verifies against all of them (so keys can rotate)."""

    keys: list[bytes] = field(default_factory=lambda: [os.urandom(32)])
    ttl: int = 600
    #: Seconds since the epoch; the studio shifts it to show what expiry looks like without waiting.
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        if not self.keys:
            raise ValueError("at least one key is needed")
        self._kids = [key_id(k) for k in self.keys]
        self._keyed = [_keyed(k) for k in self.keys]

    @classmethod
    def from_secrets(cls, secrets: list[str] | str | None, ttl: int = 600) -> "StateCodec":
        if isinstance(secrets, str):
            secrets = [secrets]
        keys = [s.encode("utf-8") for s in (secrets or []) if s]
        return cls(keys=keys or [os.urandom(32)], ttl=ttl)

    def mint(
        self,
        binding: Binding,
        state: str | None,
        asked: dict[str, str],
        round_number: int,
        now: float | None = None,
    ) -> str:
        issued = int(self.clock() if now is None else now)
        payload = {
            "v": 1,
            "kid": self._kids[0],
            "iat": issued,
            "exp": issued + self.ttl,
            "m": binding.method,
            "n": binding.name,
            "a": binding.digest,
            "p": binding.principal,
            "k": asked,
            "r": round_number,
            "nonce": b64url_encode(os.urandom(9)),
            "s": state,
        }
        signed = PREFIX + b64url_encode(canonical_json(payload))
        return signed + "." + b64url_encode(_mac(self._keyed[0], signed.encode("ascii")))

    def signature_ok(self, decoded: DecodedToken) -> bool:
        kid = decoded.payload.get("kid")
        # Try the key the token names first; every key is still tried so rotation never depends on kid.
        if len(self._keyed) == 1:
            return _mac_matches(self._keyed[0], decoded.signed, decoded.tag)
        ordered = sorted(zip(self._kids, self._keyed, strict=True), key=lambda pair: pair[0] != kid)
        return any(_mac_matches(keyed, decoded.signed, decoded.tag) for _, keyed in ordered)

    def verify(self, token: Any, binding: Binding, now: float | None = None) -> dict[str, Any]:
        """The verified payload, or StateRejected naming the first failed check."""
        decoded = decode(token)
        if not self.signature_ok(decoded):
            raise StateRejected("signature", "the signature matches none of the server's keys")
        return check_claims(decoded.payload, binding, self.clock() if now is None else now)


def check_claims(payload: dict[str, Any], binding: Binding, now: float | None = None) -> dict[str, Any]:
    """The checks after the signature, in DESIGN.md's order."""
    moment = time.time() if now is None else now
    if payload["iat"] > moment + MAX_CLOCK_SKEW:
        raise StateRejected("expired", "issued in the future (beyond 60 s of clock skew)")
    if moment >= payload["exp"]:
        raise StateRejected("expired", f"expired {int(moment - payload['exp'])} s ago")
    if payload["m"] != binding.method:
        raise StateRejected("method", f"minted for {payload['m']}, used on {binding.method}")
    if payload["n"] != binding.name:
        raise StateRejected("name", f"minted for {payload['n']!r}, used on {binding.name!r}")
    if payload["a"] != binding.digest:
        raise StateRejected("arguments", "the arguments differ from the round that minted it")
    if payload["p"] != binding.principal:
        raise StateRejected("principal", "minted for another principal")
    return payload
