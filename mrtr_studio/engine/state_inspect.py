"""Take a requestState apart and run every check separately, for people rather than for the engine.

The engine stops at the first failed check; the studio's decoder runs them all and says for each
whether it passed, failed or could not be checked (no secret, no request to compare against).
"""

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from .state_token import (
    CHECKS,
    Binding,
    SplitToken,
    StateCodec,
    StateRejected,
    audience_problem,
    expiry_problem,
    parse_payload,
    split,
)

Status = Literal["pass", "fail", "unknown"]
S = TypeVar("S", bound=str)


@dataclass(frozen=True)
class NamedCheck(Generic[S]):
    """One check of a state: its name, its status in the words of who checked (`S`: the engine's
    inspection says "unknown" where the state decoders say "cannot-check") and why. One type for both,
    so a check reads, converts and prints the same wherever it was made."""

    name: str
    status: S
    why: str


#: The engine's inspection's checks.
Check = NamedCheck[Status]


class Checked(Generic[S]):
    """A list of checks and what they add up to: the engine's inspection and every state decoder's
    result read their checks this one way, so a verdict cannot mean two things."""

    checks: list[NamedCheck[S]]
    #: The status of a check that could not be made (the verdict when nothing failed but one such is there).
    UNDECIDED: ClassVar[str] = "unknown"

    @property
    def verdict(self) -> str:
        statuses = {c.status for c in self.checks}
        return "fail" if "fail" in statuses else self.UNDECIDED if self.UNDECIDED in statuses else "pass"

    def check(self, name: str) -> NamedCheck[S]:
        return next(c for c in self.checks if c.name == name)

    def checks_as_dicts(self) -> list[dict[str, str]]:
        return [{"name": c.name, "status": c.status, "why": c.why} for c in self.checks]


@dataclass
class Inspection(Checked[Status]):
    token: str
    payload: dict[str, Any] | None
    checks: list[Check] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"payload": self.payload, "verdict": self.verdict, "checks": self.checks_as_dicts()}


def inspect_token(token: Any, secrets: list[str] | None = None, binding: Binding | None = None,
                  now: float | None = None, ttl: int | None = None,
                  audiences: list[str] | None = None) -> Inspection:
    """Every check, in docs/architecture.md's order, each on its own.

    `audiences` are the names the verifying server answers to; None when not known, and then the
    `audience` check only says whom the state was minted for.

    `ttl` is the verifying server's state TTL, which bounds the lifetime `exp - iat`; None (the
    default) when it is not known, say another team's server, and then only `iat` and `exp`
    themselves are checked.
    """
    moment = time.time() if now is None else now
    try:
        pieces = split(token)
    except StateRejected as rejected:
        checks = [Check("malformed", "fail", rejected.detail)]
        checks += [Check(name, "unknown", "not a v1 token") for name in CHECKS[1:]]
        return Inspection(str(token), None, checks)
    signature = _signature_check(pieces, secrets)
    try:
        payload = parse_payload(pieces.body)
    except StateRejected as rejected:
        # The engine would stop at the signature when it fails, else call the payload malformed.
        checks = [Check("malformed", "fail", rejected.detail), signature]
        checks += [Check(name, "unknown", "the payload cannot be read") for name in CHECKS[2:]]
        return Inspection(token, None, checks)
    checks = [Check("malformed", "pass", "v1 token, strict base64url, JSON payload"), signature,
              _audience_check(payload, audiences)]
    lifetime = payload["exp"] - payload["iat"]
    problem = expiry_problem(payload, moment, lifetime if ttl is None else ttl)
    if problem is not None:
        checks.append(Check("expired", "fail", problem))
    else:
        against = "the server's TTL unknown" if ttl is None else f"TTL {ttl} s"
        checks.append(Check("expired", "pass", f"valid for {int(payload['exp'] - moment)} s more "
                                               f"(lifetime {lifetime} s, {against})"))
    if binding is None:
        for name, key in (("method", "m"), ("name", "n"), ("arguments", "a"), ("principal", "p")):
            checks.append(Check(name, "unknown", f"bound to {payload[key]!r}; no request to compare with"))
        return Inspection(token, payload, checks)
    try:
        digest = binding.digest
    except ValueError as exc:  # arguments no server accepts (say NaN from a lenient parser)
        digest = f"<{exc}>"
    pairs = (
        ("method", payload["m"], binding.method),
        ("name", payload["n"], binding.target),
        ("arguments", payload["a"], digest),
        ("principal", payload["p"], binding.principal),
    )
    for name, bound, actual in pairs:
        if bound == actual:
            checks.append(Check(name, "pass", f"matches {actual!r}" if name != "arguments" else "digest matches"))
        else:
            what = "argument digest differs" if name == "arguments" else f"bound to {bound!r}, request has {actual!r}"
            checks.append(Check(name, "fail", what))
    return Inspection(token, payload, checks)


def _audience_check(payload: dict[str, Any], audiences: list[str] | None) -> Check:
    if audiences:
        problem = audience_problem(payload, audiences)
        return Check("audience", "fail", problem) if problem else Check("audience", "pass",
                                                                         f"minted for {payload['aud']!r}")
    if payload.get("aud") is None:
        return Check("audience", "fail", "minted without an audience (by an older studio); servers refuse it")
    return Check("audience", "unknown", f"minted for {payload['aud']!r}; no server to compare with")


def _signature_check(pieces: SplitToken, secrets: list[str] | None) -> Check:
    if not secrets:
        return Check("signature", "unknown", "needs the server's secret (--secret) to verify")
    if StateCodec.from_secrets(secrets).signature_ok(pieces):
        return Check("signature", "pass", "HMAC-SHA256 matches a given secret")
    return Check("signature", "fail", "matches none of the given secrets")
