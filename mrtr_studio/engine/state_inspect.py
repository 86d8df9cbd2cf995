"""Take a requestState apart and run every check separately, for people rather than for the engine.

The engine stops at the first failed check; the studio's decoder runs them all and says for each
whether it passed, failed or could not be checked (no secret, no request to compare against).
"""

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from .state_token import CHECKS, MAX_CLOCK_SKEW, Binding, StateCodec, StateRejected, decode

Status = Literal["pass", "fail", "unknown"]


@dataclass
class Check:
    name: str
    status: Status
    why: str


@dataclass
class Inspection:
    token: str
    payload: dict[str, Any] | None
    checks: list[Check] = field(default_factory=list)

    @property
    def verdict(self) -> Status:
        statuses = {c.status for c in self.checks}
        return "fail" if "fail" in statuses else "unknown" if "unknown" in statuses else "pass"

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "payload": self.payload,
            "verdict": self.verdict,
            "checks": [{"name": c.name, "status": c.status, "why": c.why} for c in self.checks],
        }


def inspect_token(token: Any, secrets: list[str] | None = None, binding: Binding | None = None,
                  now: float | None = None) -> Inspection:
    moment = time.time() if now is None else now
    try:
        decoded = decode(token)
    except StateRejected as rejected:
        checks = [Check("malformed", "fail", rejected.detail)]
        checks += [Check(name, "unknown", "not a v1 token") for name in CHECKS[1:]]
        return Inspection(str(token), None, checks)
    payload = decoded.payload
    checks = [Check("malformed", "pass", "v1 token, strict base64url, JSON payload")]
    if secrets:
        ok = StateCodec.from_secrets(secrets).signature_ok(decoded)
        checks.append(Check("signature", "pass" if ok else "fail",
                            "HMAC-SHA256 matches a given secret" if ok else "matches none of the given secrets"))
    else:
        checks.append(Check("signature", "unknown", "needs the server's secret (--secret) to verify"))
    if payload["iat"] > moment + MAX_CLOCK_SKEW:
        checks.append(Check("expired", "fail", "issued in the future, beyond 60 s of clock skew"))
    elif moment >= payload["exp"]:
        checks.append(Check("expired", "fail", f"expired {int(moment - payload['exp'])} s ago"))
    else:
        checks.append(Check("expired", "pass", f"valid for {int(payload['exp'] - moment)} s more"))
    if binding is None:
        for name, key in (("method", "m"), ("name", "n"), ("arguments", "a"), ("principal", "p")):
            checks.append(Check(name, "unknown", f"bound to {payload[key]!r}; no request to compare with"))
        return Inspection(token, payload, checks)
    pairs = (
        ("method", payload["m"], binding.method),
        ("name", payload["n"], binding.name),
        ("arguments", payload["a"], binding.digest),
        ("principal", payload["p"], binding.principal),
    )
    for name, bound, actual in pairs:
        if bound == actual:
            checks.append(Check(name, "pass", f"matches {actual!r}" if name != "arguments" else "digest matches"))
        else:
            what = "argument digest differs" if name == "arguments" else f"bound to {bound!r}, request has {actual!r}"
            checks.append(Check(name, "fail", what))
    return Inspection(token, payload, checks)
