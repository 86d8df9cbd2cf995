"""Detection by shape, forced formats, bounds, and the opaque statistics."""

import math

import pytest

from mrtr_studio.engine.state_token import Binding, StateCodec
from mrtr_studio.states import RequestContext, decode_state, detect_format, parse_key
from mrtr_studio.states.detect import printable
from mrtr_studio.states.opaque import entropy_per_char

BINDING = Binding("tools/call", "delete_file", {"path": "/a"}, "alice")


def studio_token(key: bytes = b"k", audience: str = "files") -> str:
    return StateCodec(keys=[key], audiences=[audience]).mint(BINDING, "s", {"confirm": "elicitation/create"}, 1)


def test_the_studios_own_token_is_detected_and_checked_with_a_binary_key() -> None:
    key = bytes(range(32))
    token = studio_token(key)
    assert detect_format(token) == "studio"
    request = RequestContext(method="tools/call", name="delete_file", arguments={"path": "/a"}, principal="alice",
                             audiences=("files",))
    decoded = decode_state(token, [parse_key("hex:" + key.hex())], request=request)
    assert decoded.format == "studio" and decoded.verdict == "pass"
    assert decoded.check("audience").why == "minted for 'files'"
    assert decode_state(token, [parse_key("base64:" + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")],
                        request=request).verdict == "pass"
    other = decode_state(token, [key], request=RequestContext(audiences=("billing",)))
    assert other.check("audience").status == "fail"
    assert decode_state(token, []).check("signature").status == "cannot-check"


@pytest.mark.parametrize(("text", "problem"), [("hex:abc", "hex"), ("base64:@@", "base64"), ("", "empty")])
def test_bad_keys_say_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_key(text)


def test_opaque_statistics_and_rounds() -> None:
    decoded = decode_state("a3f9c2" * 6, [])
    assert decoded.format == "opaque"
    assert decoded.payload is not None
    assert decoded.payload["length"] == 36 and decoded.payload["alphabet"] == "hex"
    assert decoded.payload["distinct characters"] == 6
    assert decoded.payload["entropy bits per character"] == round(math.log2(6), 3)
    assert decoded.check("changes between rounds").status == "cannot-check"
    changing = decode_state("handle-3", [], rounds=["handle-1", "handle-2"])
    assert changing.check("changes between rounds").status == "pass"
    stuck = decode_state("same", [], rounds=["first", "same", "same"])
    assert stuck.check("changes between rounds").status == "fail"
    echoed = decode_state("x", [], echoes=[("x", "x"), ("y", "y")])
    assert echoed.check("echoed").status == "pass"
    assert decode_state("x", [], echoes=[("x", "x"), ("y", "z")]).check("echoed").status == "fail"


def test_entropy_is_shannons() -> None:
    assert entropy_per_char("aaaa") == 0
    assert entropy_per_char("abcd") == 2


def test_a_v1_token_that_fits_no_format_fails_its_shape() -> None:
    decoded = decode_state("v1.garbage", [])
    assert decoded.format == "opaque" and decoded.verdict == "fail"


def test_a_forced_format_that_does_not_fit_fails_that_formats_shape() -> None:
    token = studio_token()
    for name in ("python-sdk", "ts-sdk", "jwt"):
        decoded = decode_state(token, [], format=name)
        assert decoded.format == name and decoded.verdict == "fail"


def test_oversized_and_non_string_tokens_are_refused_without_reading() -> None:
    decoded = decode_state("A" * (64 * 1024 + 1), [])
    assert decoded.verdict == "fail" and "longer than" in decoded.checks[0].why
    assert decode_state(42, []).verdict == "fail"
    with pytest.raises(ValueError, match="unknown format"):
        decode_state("x", [], format="xml")


def test_deeply_nested_payloads_are_not_walked() -> None:
    import base64

    body = base64.urlsafe_b64encode(b'{"p":' + b"[" * 5000 + b"]" * 5000 + b',"exp":1}').decode().rstrip("=")
    token = "v1." + body + "." + "A" * 43
    assert detect_format(token) == "opaque"


def test_printable_escapes_terminal_controls() -> None:
    assert printable("ok\x1b[31mred\u202eevil\x00") == "ok\\x1b[31mred\\u202eevil\\x00"
