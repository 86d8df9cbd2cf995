"""The Python SDK's sealed requestState, made by the installed mcp package's own boundary and codec."""

import base64
import time
from types import SimpleNamespace
from typing import Any

import pytest
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

from mrtr_studio.states import RequestContext, decode_state, detect_format

KEY = b"0123456789abcdef0123456789abcdef-python-sdk"
ARGS = {"path": "/a", "force": True}


def sdk_token(key: bytes = KEY, audience: str | None = "files", principal: str | None = "alice",
              ttl: float = 600.0, method: str = "tools/call", params: dict[str, Any] | None = None) -> str:
    """A state sealed exactly as an mcp 2.3.0 server seals one (its boundary builds and seals the claims)."""
    security = RequestStateSecurity(keys=[key], ttl=ttl, bind_principal=lambda ctx: principal)
    boundary = RequestStateBoundary(security, default_audience=audience)
    ctx = SimpleNamespace(method=method, params=params or {"name": "delete_file", "arguments": ARGS})
    return boundary._seal(ctx, "step=1")  # type: ignore[arg-type]


def same_request(**changes: Any) -> RequestContext:
    base: dict[str, Any] = {"method": "tools/call", "name": "delete_file", "arguments": ARGS, "principal": "alice",
                            "audiences": ("files",)}
    return RequestContext(**{**base, **changes})


def statuses(token: str, keys: list[bytes], request: RequestContext | None = None) -> dict[str, str]:
    return {c.name: c.status for c in decode_state(token, keys, request=request).checks}


def test_detected_and_decrypted_with_the_key_every_binding_checked() -> None:
    token = sdk_token()
    assert detect_format(token) == "python-sdk"
    decoded = decode_state(token, [KEY], request=same_request())
    assert decoded.format == "python-sdk"
    assert decoded.payload is not None
    assert decoded.payload["s"] == "step=1" and decoded.payload["m"] == "tools/call"
    assert decoded.payload["t"] == "delete_file" and decoded.payload["aud"] == "files"
    assert "principal" in decoded.labels["p"] and "target" in decoded.labels["t"]
    assert {c.name: c.status for c in decoded.checks} == {
        "shape": "pass", "decryption": "pass", "expiry": "pass", "method": "pass", "name": "pass",
        "arguments": "pass", "audience": "pass", "principal": "pass"}
    assert decoded.verdict == "pass"


@pytest.mark.parametrize(("change", "failed"), [
    ({"method": "prompts/get"}, "method"), ({"name": "other"}, "name"), ({"arguments": {"path": "/b"}}, "arguments"),
    ({"principal": "mallory"}, "principal"), ({"audiences": ("billing",)}, "audience")])
def test_each_binding_fails_alone_against_another_request(change: dict[str, Any], failed: str) -> None:
    result = statuses(sdk_token(), [KEY], same_request(**change))
    assert [name for name, status in result.items() if status == "fail"] == [failed]


def test_a_wrong_key_is_refused_clearly() -> None:
    decoded = decode_state(sdk_token(), [b"another key that is long enough, 32+ bytes"])
    check = decoded.check("decryption")
    assert check.status == "fail" and check.why.startswith("cannot decrypt: wrong key or tampered")
    assert decoded.payload is None and decoded.verdict == "fail"


@pytest.mark.parametrize("index", [0, 2, 8, 20, -1])
def test_a_tampered_byte_is_refused(index: int) -> None:
    token = sdk_token()
    raw = bytearray(base64.urlsafe_b64decode(token[3:] + "=" * (-len(token[3:]) % 4)))
    raw[index] ^= 0x01
    tampered = "v1." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    decoded = decode_state(tampered, [KEY], format="python-sdk")
    assert decoded.check("decryption").status == "fail"
    assert "wrong key or tampered" in decoded.check("decryption").why


def test_without_the_key_the_header_is_shown_and_the_payload_cannot_be_checked() -> None:
    decoded = decode_state(sdk_token(), [])
    assert decoded.format == "python-sdk" and decoded.payload is None
    assert decoded.header is not None and len(decoded.header["key id"]) == 8
    assert decoded.check("decryption").status == "cannot-check"
    assert decoded.check("decryption").why == "cannot check without the key"


def test_expired_and_unbound_states() -> None:
    expired = decode_state(sdk_token(ttl=5), [KEY], now=time.time() + 6)
    assert expired.check("expiry").status == "fail"
    anonymous = decode_state(sdk_token(audience=None, principal=None), [KEY], request=same_request(principal=None))
    assert anonymous.check("audience").status == "cannot-check"
    assert "no audience" in anonymous.check("audience").why
    assert anonymous.check("principal").status == "cannot-check"


def test_resources_read_binds_the_uri_and_no_arguments() -> None:
    token = sdk_token(method="resources/read", params={"uri": "config://secrets"})
    request = RequestContext(method="resources/read", name="config://secrets", arguments={}, principal="alice")
    assert statuses(token, [KEY], request)["name"] == "pass"
    assert statuses(token, [KEY], request)["arguments"] == "pass"
