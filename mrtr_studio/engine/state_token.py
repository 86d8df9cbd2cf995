"""The requestState token: the handler's state sealed with HMAC-SHA256 and bound to its request.

Format (docs/architecture.md): `v1.` + b64url(payload JSON) + `.` + b64url(HMAC-SHA256(key, "v1." + b64url(payload))).
The server needs nothing between rounds; everything it needs to trust a retry is in the token,
so any instance holding one of the keys can continue a flow another instance started. (A codec
remembers the states it minted to skip checking its own bytes again; `StateCodec._minted`.)

Verification names the first failure in the order docs/architecture.md gives and trusts nothing
before the MAC: the token's shape and strict base64url, then the HMAC over the raw `v1.<payload>`
bytes, and only then is the payload parsed as JSON and its claims checked (audience, expiry,
including a lifetime no longer than the TTL, method, name, arguments, principal). The MAC is
computed over the token's text first (nothing in it needs decoding for that); a token it does not
match is then taken apart to say whether it was malformed or only badly signed.

The audience (`aud`) names the server a state was minted by (its name, or `MrtrOptions.audience`):
two servers that share a secret would otherwise accept each other's states. A state without `aud`
(minted by a studio older than the claim) is refused as `audience` too: failing closed costs at
most one restarted flow per upgrade, since states live only the TTL, while accepting them would
leave a way around the check.
"""

import hashlib
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from hmac import compare_digest as hmac_compare
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from .. import defaults
from ..protocol import wire_json
from ..protocol.call import Call
from ..protocol.token_format import (
    PREFIX,
    arguments_digest,
    b64url_decode,
    b64url_encode,
    canonical_json,
)
from .entropy import random_text
from .once import once
from .options import DEFAULT_STATE_TTL, check_state_ttl

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.hmac import HMAC

MAX_CLOCK_SKEW = 60
#: The audience of a codec built without one (a bare StateCodec in tests and tools); servers pass their name.
DEFAULT_AUDIENCE = "mrtr-studio"
#: Longest token minted or read (defaults.py): an oversized one is refused as `malformed`.
MAX_TOKEN_CHARS = defaults.STATE_MAX_TOKEN_CHARS
#: The payload is our own flat object (its `k` map one level down); a deeper one is not a v1 state.
_PAYLOAD_DEPTH = 4
#: States a codec remembers having minted (about 1.5 KB each): far more than are in flight between
#: two rounds on one instance, a few megabytes at most.
MINTED_REMEMBERED = 2048
#: Verification checks in the order they run; `reason` names the first that fails.
CHECKS = ("malformed", "signature", "audience", "expired", "method", "name", "arguments", "principal")


class StateRejected(Exception):
    """A token failed verification; `reason` is one of CHECKS."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def key_id(key: bytes) -> str:
    return hashlib.sha256(b"mrtr-kid:" + key).hexdigest()[:8]


def _keyed_context(key: bytes) -> "HMAC":
    """A keyed HMAC context; copies of it skip the key schedule on every token. cryptography is imported
    here, with a codec's first token, not with the engine: the window builds codecs at launch and signs
    nothing until a call is run (about 10 ms of its launch, issue #23)."""
    from cryptography.hazmat.primitives import hashes, hmac

    return hmac.HMAC(key, hashes.SHA256())


def _mac(keyed: "HMAC", signed: bytes) -> bytes:
    h = keyed.copy()
    h.update(signed)
    return h.finalize()


def _mac_matches(keyed: "HMAC", signed: bytes, tag: bytes) -> bool:
    return hmac_compare(_mac(keyed, signed), tag)  # constant-time comparison


class Bound(Protocol):
    """What a state is bound to, as the codec reads it: `Binding`, or the engine's own request
    (`engine.mrtr.Call`), which carries these itself so that no second object is made per request."""

    @property
    def method(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def principal(self) -> str: ...

    @property
    def digest(self) -> str: ...


@dataclass(frozen=True)
class Binding(Call):
    """What a token must match on retry: the call it was minted for (`target` is the tool or prompt name,
    or the resource URI: the payload's `n`) and who made it."""

    principal: str = ""

    @once
    def digest(self) -> str:
        """The arguments' digest, computed once per request however often it is compared or minted."""
        return arguments_digest(self.arguments)


@dataclass
class SplitToken:
    """A token's pieces after the shape and base64url checks: nothing in it is trusted yet."""

    signed: bytes  # "v1." + base64url(payload): what the MAC covers
    body: bytes  # the payload's bytes, parsed only once the MAC over `signed` matched
    tag: bytes


@dataclass
class DecodedToken:
    """A token taken apart, before (or without) any verification."""

    payload: dict[str, Any]
    signed: bytes
    tag: bytes


_FIELD_TYPES = (("iat", int), ("exp", int), ("m", str), ("n", str), ("a", str), ("p", str))


def shape(token: Any) -> tuple[str, str]:
    """A v1 token's payload and tag as text (`v1.<payload>.<tag>`), nothing decoded; raises
    StateRejected('malformed') when it does not have that shape."""
    if type(token) is not str:
        raise StateRejected("malformed", "requestState must be a string")
    if len(token) > MAX_TOKEN_CHARS:
        raise StateRejected("malformed", f"longer than {MAX_TOKEN_CHARS} characters")
    if not token.startswith(PREFIX):
        raise StateRejected("malformed", "missing the v1. prefix")
    body_text, dot, tag_text = token[len(PREFIX):].partition(".")
    if not dot or "." in tag_text:
        raise StateRejected("malformed", "expected v1.<payload>.<signature>")
    return body_text, tag_text


def split(token: Any) -> SplitToken:
    """Shape and strict base64url only, no JSON: raises StateRejected('malformed') when it is not a v1 token."""
    body_text, tag_text = shape(token)
    try:
        body = b64url_decode(body_text)
        tag = b64url_decode(tag_text)
    except ValueError as exc:
        raise StateRejected("malformed", str(exc)) from exc
    if len(tag) != 32:
        raise StateRejected("malformed", "the signature is not 32 bytes (HMAC-SHA256)")
    return SplitToken(signed=token[: len(PREFIX) + len(body_text)].encode("ascii"), body=body, tag=tag)


def parse_payload(body: bytes, *, authentic: bool = False) -> dict[str, Any]:
    """The payload's JSON, checked to be a v1 state; StateRejected('malformed') otherwise.

    The engine parses only bytes whose MAC matched (`authentic`: this server or a peer holding its
    key wrote them), with orjson directly; the decoder also shows unverified tokens, and those go
    through the bounded reader, which limits their size and depth.
    """
    try:
        payload = orjson.loads(body) if authentic else wire_json.loads(body, max_depth=_PAYLOAD_DEPTH)
    except ValueError as exc:  # orjson.JSONDecodeError and WireJsonError are ValueErrors
        raise StateRejected("malformed", f"the payload is not JSON: {exc}") from exc
    if type(payload) is not dict or payload.get("v") != 1:
        raise StateRejected("malformed", "payload is not a v1 state")
    if not _well_typed(payload):
        bad = next((key for key, kind in _FIELD_TYPES if type(payload.get(key)) is not kind), "aud")
        raise StateRejected("malformed", f"payload field {bad!r} missing or of the wrong type")
    return payload


def decode(token: Any) -> DecodedToken:
    """Split and parse a token without verifying it (the decoder shows what a token claims)."""
    pieces = split(token)
    return DecodedToken(payload=parse_payload(pieces.body), signed=pieces.signed, tag=pieces.tag)


def _well_typed(payload: dict[str, Any]) -> bool:
    """Exact types (a bool is no timestamp), checked without a loop: this runs on every retry."""
    get = payload.get
    return (type(get("iat")) is int and type(get("exp")) is int and type(get("m")) is str
            and type(get("n")) is str and type(get("a")) is str and type(get("p")) is str
            and (get("aud") is None or type(get("aud")) is str))


@dataclass
class StateCodec:
    """Signs with the first key, verifies against all of them (so keys can rotate)."""

    keys: list[bytes] = field(default_factory=lambda: [os.urandom(32)])
    ttl: int = DEFAULT_STATE_TTL
    #: The first is minted as `aud`, every one is accepted (a server renamed, or reached by two names).
    audiences: list[str] = field(default_factory=lambda: [DEFAULT_AUDIENCE])
    #: Seconds since the epoch; the studio shifts it to show what expiry looks like without waiting.
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        check_state_ttl(self.ttl)
        if not self.keys:
            raise ValueError("at least one key is needed")
        if not self.audiences or not all(isinstance(a, str) and a for a in self.audiences):
            raise ValueError("at least one audience is needed, each a non-empty string")
        self._kids = [key_id(k) for k in self.keys]
        self._keyed_contexts: list[HMAC] | None = None  # built with the first token (`_keyed`)
        #: The states this codec minted last, by their text, with the payload each carries. A state
        #: that comes back to the instance that minted it is that same text, and what verifying it
        #: establishes (its MAC matches, its payload is this one) depends on nothing but the text and
        #: the keys, which never change: so it is looked up instead of computed again. The claims are
        #: still checked on every use. Bounded (the oldest go first); a state not found here (from
        #: another instance, after a restart, pushed out) is verified in full, so nothing depends on it.
        self._minted: OrderedDict[str, dict[str, Any]] = OrderedDict()

    @property
    def _keyed(self) -> "list[HMAC]":
        """One keyed HMAC context per key, the signing key's first; made the first time a token is signed
        or checked (see `_keyed_context`)."""
        contexts = self._keyed_contexts
        if contexts is None:
            contexts = self._keyed_contexts = [_keyed_context(key) for key in self.keys]
        return contexts

    @property
    def signing_key_id(self) -> str:
        """The key id of the key that signs (the first): a public name for this deployment's secret."""
        return self._kids[0]

    @classmethod
    def from_secrets(cls, secrets: list[str] | str | None, ttl: int = DEFAULT_STATE_TTL,
                     audiences: list[str] | str | None = None) -> "StateCodec":
        if isinstance(secrets, str):
            secrets = [secrets]
        if isinstance(audiences, str):
            audiences = [audiences]
        keys = [s.encode("utf-8") for s in (secrets or []) if s]
        named = [a for a in (audiences or []) if a]
        return cls(keys=keys or [os.urandom(32)], ttl=ttl, audiences=named or [DEFAULT_AUDIENCE])

    def mint(
        self,
        binding: Bound,
        state: str | None,
        asked: dict[str, str],
        round_number: int,
        now: float | None = None,
    ) -> str:
        issued = int(self.clock() if now is None else now)
        payload = {
            "v": 1,
            "kid": self._kids[0],
            "aud": self.audiences[0],
            "iat": issued,
            "exp": issued + self.ttl,
            "m": binding.method,
            "n": binding.target,
            "a": binding.digest,
            "p": binding.principal,
            "k": asked,
            "r": round_number,
            "nonce": random_text(9),
            "s": state,
        }
        signed = PREFIX + b64url_encode(canonical_json(payload))
        token = signed + "." + b64url_encode(_mac(self._keyed[0], signed.encode("ascii")))
        if len(token) > MAX_TOKEN_CHARS:  # no server, this one included, would accept it back
            raise ValueError(f"the requestState would be {len(token)} characters, over {MAX_TOKEN_CHARS}")
        minted = self._minted
        minted[token] = payload
        if len(minted) > MINTED_REMEMBERED:
            minted.popitem(last=False)
        return token

    def signature_ok(self, token: SplitToken | DecodedToken) -> bool:
        """Constant-time HMAC check against every key, first (signing) key first.

        The key id in the payload is not used to pick a key: it could only be read by parsing
        bytes nobody has authenticated yet, and the keys are few.
        """
        signed, tag = token.signed, token.tag
        if len(self._keyed) == 1:  # the usual deployment: one key, no generator to run
            return _mac_matches(self._keyed[0], signed, tag)
        return any(_mac_matches(keyed, signed, tag) for keyed in self._keyed)

    def verify(self, token: Any, binding: Bound, now: float | None = None) -> dict[str, Any]:
        """The verified payload, or StateRejected naming the first failed check (in docs/architecture.md's order)."""
        payload = self._minted.get(token) if type(token) is str and len(token) <= MAX_TOKEN_CHARS else None
        if payload is None:
            payload = self._authentic_payload(token)
        problem = audience_problem(payload, self.audiences)
        if problem is not None:
            raise StateRejected("audience", problem)
        return check_claims(payload, binding, self.clock() if now is None else now, ttl=self.ttl)

    def _authentic_payload(self, token: Any) -> dict[str, Any]:
        """The payload of a token whose MAC matches one of the keys, or StateRejected (malformed first)."""
        body_text = self._signed_body(token)
        if body_text is None:
            # Taken apart (a token that is not v1-shaped is malformed, whatever its tag) and judged by
            # `signature_ok`, which refuses it too unless a codec judges signatures its own way (the
            # attack lab's server that verifies nothing).
            pieces = split(token)
            if not self.signature_ok(pieces):
                raise StateRejected("signature", "the signature matches none of the server's keys")
            body = pieces.body
        else:
            try:
                body = b64url_decode(body_text)
            except ValueError as exc:  # signed, yet not strict base64url: no v1 token
                raise StateRejected("malformed", str(exc)) from exc
        return parse_payload(body, authentic=True)

    def _signed_body(self, token: Any) -> str | None:
        """The payload's base64url text when the token is `v1.<payload>.<tag>` and `tag` is the
        base64url HMAC of `v1.<payload>` under one of the keys; None otherwise.

        The MAC is computed over the token's own text before anything in it is decoded, and compared
        as text: the tag's canonical encoding is the only one that equals ours, so this accepts exactly
        the tokens `split` and `signature_ok` would (`verify` asks them why when it does not), without
        decoding a tag it then throws away."""
        try:
            body_text, tag_text = shape(token)
        except StateRejected:
            return None
        if not token.isascii():  # base64url is ASCII: `split` finds why it is malformed
            return None
        signed = token[:len(PREFIX) + len(body_text)].encode("ascii")
        tag = tag_text.encode("ascii")
        for keyed in self._keyed:
            if hmac_compare(b64url_encode(_mac(keyed, signed)).encode("ascii"), tag):
                return body_text
        return None


def audience_problem(payload: dict[str, Any], accepted: list[str]) -> str | None:
    """Why the state was not minted for a server answering to `accepted`, or None. The `audience` check."""
    aud = payload.get("aud")
    if aud is None:
        return "minted without an audience (by an older studio): start the flow again"
    if aud not in accepted:
        return f"minted for {aud!r}, not for this server ({', '.join(repr(a) for a in accepted)})"
    return None


def check_claims(payload: dict[str, Any], binding: Bound, now: float | None = None,
                 ttl: int = DEFAULT_STATE_TTL) -> dict[str, Any]:
    """The checks after the signature, in docs/architecture.md's order."""
    moment = time.time() if now is None else now
    problem = expiry_problem(payload, moment, ttl)
    if problem is not None:
        raise StateRejected("expired", problem)
    if payload["m"] != binding.method:
        raise StateRejected("method", f"minted for {payload['m']}, used on {binding.method}")
    if payload["n"] != binding.target:
        raise StateRejected("name", f"minted for {payload['n']!r}, used on {binding.target!r}")
    if payload["a"] != binding.digest:
        raise StateRejected("arguments", "the arguments differ from the round that minted it")
    if payload["p"] != binding.principal:
        raise StateRejected("principal", "minted for another principal")
    return payload


def expiry_problem(payload: dict[str, Any], moment: float, ttl: int) -> str | None:
    """Why the state is out of its time window, or None. Part of the `expired` check.

    Besides `exp` itself, the lifetime `exp - iat` may not exceed the configured TTL (with the
    clock skew allowed on `iat`): a state signed with a ten-year lifetime, by a misconfigured node
    or with a leaked key, is refused rather than honoured for ten years.
    """
    issued, expires = payload["iat"], payload["exp"]
    if issued > moment + MAX_CLOCK_SKEW:
        return f"issued in the future (beyond {MAX_CLOCK_SKEW} s of clock skew)"
    if expires - issued > ttl + MAX_CLOCK_SKEW:
        return (f"lifetime of {expires - issued} s is longer than the server's state TTL "
                f"({ttl} s, +{MAX_CLOCK_SKEW} s skew)")
    if moment >= expires:
        return f"expired {int(moment - expires)} s ago"
    return None
