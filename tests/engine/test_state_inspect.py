"""The decoder runs every check on its own and agrees with the engine on what each one means."""

import hashlib
import hmac

from mrtr_studio.engine.state_inspect import inspect_token
from mrtr_studio.engine.state_token import Binding, StateCodec
from mrtr_studio.protocol.token_format import arguments_digest, b64url_encode, canonical_json

NOW = 1_800_000_000
BINDING = Binding("tools/call", "delete_file", {"path": "/a"})


def sealed(payload: dict | bytes, secret: str = "k") -> str:
    body = payload if isinstance(payload, bytes) else canonical_json(payload)
    signed = "v1." + b64url_encode(body)
    return signed + "." + b64url_encode(hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest())


def payload(lifetime: int) -> dict:
    return {"v": 1, "kid": "x", "iat": NOW, "exp": NOW + lifetime, "m": "tools/call", "n": "delete_file",
            "a": arguments_digest({"path": "/a"}), "p": "", "k": {}, "r": 1, "nonce": "n", "s": None}


def test_a_ten_year_lifetime_fails_the_expiry_check() -> None:
    inspection = inspect_token(sealed(payload(10 * 365 * 86400)), secrets=["k"], binding=BINDING, now=NOW + 1,
                               ttl=600)
    assert inspection.check("signature").status == "pass"
    expired = inspection.check("expired")
    assert expired.status == "fail"
    assert "longer than the server's state TTL (600 s" in expired.why
    assert inspection.verdict == "fail"


def test_the_expiry_check_uses_the_given_ttl_and_says_the_lifetime() -> None:
    token = sealed(payload(3600))
    assert inspect_token(token, secrets=["k"], now=NOW + 1, ttl=600).check("expired").status == "fail"
    passed = inspect_token(token, secrets=["k"], now=NOW + 1, ttl=3600).check("expired")
    assert passed.status == "pass"
    assert "lifetime 3600 s, TTL 3600 s" in passed.why


def test_a_minted_token_passes_every_check() -> None:
    token = StateCodec.from_secrets(["new", "old"]).mint(BINDING, "s", {}, 1, now=NOW)
    inspection = inspect_token(token, secrets=["old", "new"], binding=BINDING, now=NOW + 1, audiences=["mrtr-studio"])
    assert [(c.name, c.status) for c in inspection.checks] == [
        ("malformed", "pass"), ("signature", "pass"), ("audience", "pass"), ("expired", "pass"), ("method", "pass"),
        ("name", "pass"), ("arguments", "pass"), ("principal", "pass")]


def test_an_unreadable_payload_still_gets_its_signature_checked() -> None:
    forged = sealed(b"[" * 5000, "other")
    inspection = inspect_token(forged, secrets=["k"], now=NOW)
    assert inspection.payload is None
    assert (inspection.check("malformed").status, inspection.check("signature").status) == ("fail", "fail")
    authentic = inspect_token(sealed(b"not json"), secrets=["k"], now=NOW)
    assert (authentic.check("malformed").status, authentic.check("signature").status) == ("fail", "pass")
    assert authentic.check("expired").status == "unknown"


def test_arguments_no_server_accepts_fail_the_arguments_check_without_raising() -> None:
    inspection = inspect_token(sealed(payload(600)), binding=Binding("tools/call", "delete_file", {1: "x"}),
                               now=NOW + 1)
    assert inspection.check("arguments").status == "fail"


def test_an_unknown_ttl_checks_only_the_timestamps() -> None:
    check = inspect_token(sealed(payload(10 * 365 * 86400)), now=NOW + 1).check("expired")
    assert check.status == "pass"
    assert "TTL unknown" in check.why
