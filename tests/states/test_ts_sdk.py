"""The TypeScript SDK's signed requestState, against vectors minted by @modelcontextprotocol/server 2.4.0.

vectors/ts_sdk.json was made by vectors/make_ts_sdk_vectors.mjs with the SDK's createRequestStateCodec
(the script says how to regenerate it); only the tokens, key and expected payload are committed.
"""

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.states import RequestContext, decode_state, detect_format

VECTORS: dict[str, Any] = json.loads((Path(__file__).parent / "vectors" / "ts_sdk.json").read_text("utf-8"))
KEY = VECTORS["key"].encode()


@pytest.mark.parametrize("name", ["plain", "bound", "expired"])
def test_detected_and_the_payload_read_without_the_key(name: str) -> None:
    token = VECTORS[name]
    assert detect_format(token) == "ts-sdk"
    decoded = decode_state(token, [])
    assert decoded.format == "ts-sdk"
    assert decoded.payload is not None and decoded.payload["p"] == VECTORS["payload"]
    assert decoded.check("mac").status == "cannot-check"


def test_the_mac_verifies_with_the_key_and_a_wrong_key_is_refused() -> None:
    assert decode_state(VECTORS["plain"], [KEY]).check("mac").status == "pass"
    wrong = decode_state(VECTORS["plain"], [b"x" * 32]).check("mac")
    assert wrong.status == "fail" and "wrong key or tampered" in wrong.why


@pytest.mark.parametrize("where", ["body", "mac"])
def test_a_tampered_byte_fails_the_mac(where: str) -> None:
    token = VECTORS["plain"]
    index = 10 if where == "body" else len(token) - 5
    tampered = token[:index] + ("A" if token[index] != "A" else "B") + token[index + 1:]
    decoded = decode_state(tampered, [KEY], format="ts-sdk")
    result = {c.name: c.status for c in decoded.checks}
    assert decoded.verdict == "fail"
    assert "fail" in (result.get("mac"), result.get("shape"))


def test_a_rewritten_payload_with_the_old_mac_fails_the_mac() -> None:
    body, _, mac = VECTORS["plain"][3:].rpartition(".")
    envelope = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    envelope["p"]["step"] = 3
    forged = "v1." + base64.urlsafe_b64encode(json.dumps(envelope).encode()).decode().rstrip("=") + "." + mac
    decoded = decode_state(forged, [KEY])
    assert decoded.format == "ts-sdk" and decoded.payload is not None and decoded.payload["p"]["step"] == 3
    assert decoded.check("mac").status == "fail"


def test_expiry_is_checked_as_the_codec_does() -> None:
    assert decode_state(VECTORS["plain"], [KEY]).check("expiry").status == "pass"
    assert decode_state(VECTORS["expired"], [KEY]).check("expiry").status == "fail"


def test_the_bind_tag_is_checked_against_the_servers_bind_value() -> None:
    token = VECTORS["bound"]
    right = decode_state(token, [KEY], request=RequestContext(bind_value=VECTORS["bind_value"]))
    assert right.check("binding").status == "pass" and right.verdict == "pass"
    other = decode_state(token, [KEY], request=RequestContext(bind_value="tools/call\0mallory"))
    assert other.check("binding").status == "fail"
    unknown = decode_state(token, [KEY])
    assert unknown.check("binding").status == "cannot-check" and "--bind" in unknown.check("binding").why
    unbound = decode_state(VECTORS["plain"], [KEY]).check("binding")
    assert unbound.status == "cannot-check" and "not bound" in unbound.why
