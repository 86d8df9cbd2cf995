"""The codec checks a token's MAC over its own text before decoding anything, and must still name
the same first failure as the documented order (shape and strict base64url, then the signature):
a tag that decodes to the right bytes but is not their canonical encoding is malformed, not
accepted; a wrong tag is a bad signature; every key of a rotation verifies."""

import binascii
import hashlib
import hmac
from collections.abc import Callable

import pytest

from mrtr_studio.engine import StateCodec
from mrtr_studio.engine.state_token import Binding, StateRejected, split
from mrtr_studio.protocol.token_format import b64url_encode

BINDING = Binding("tools/call", "delete_file", {"path": "/a"})


def token_of(codec: StateCodec) -> str:
    return codec.mint(BINDING, "step=1", {"confirm": "elicitation/create"}, 1)


def reason(codec: StateCodec, token: object) -> str:
    with pytest.raises(StateRejected) as rejected:
        codec.verify(token, BINDING)
    return rejected.value.reason


def test_a_non_canonical_tag_for_the_right_bytes_is_malformed() -> None:
    codec = StateCodec.from_secrets("k")
    token = token_of(codec)
    signed, _, tag_text = token.rpartition(".")
    # 32 bytes take 43 characters, the last carrying 2 unused bits: set one of them
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    loose = tag_text[:-1] + alphabet[alphabet.index(tag_text[-1]) | 1]
    assert loose != tag_text
    assert binascii.a2b_base64((loose + "=").replace("-", "+").replace("_", "/")) == \
        binascii.a2b_base64((tag_text + "=").replace("-", "+").replace("_", "/"))
    assert reason(codec, f"{signed}.{loose}") == "malformed"


def another_tag(token: str) -> str:
    return token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]


def another_body(token: str) -> str:
    return "v1.e30." + token.rpartition(".")[2]  # `{}` under the original tag


@pytest.mark.parametrize("change", [another_tag, another_body])
def test_a_wrong_tag_is_a_bad_signature(change: Callable[[str], str]) -> None:
    codec = StateCodec.from_secrets("k")
    token = token_of(codec)
    other = change(token)
    assert other != token
    split(other)  # well-formed: only the signature can be wrong
    assert reason(codec, other) == "signature"


@pytest.mark.parametrize("bad", [None, 7, "v1.abc.def.ghi", "v1.é.abc", "v1." + "A" * 20_000 + ".x", "v1.e30"])
def test_shapes_that_are_no_token_are_malformed(bad: object) -> None:
    assert reason(StateCodec.from_secrets("k"), bad) == "malformed"


def test_every_key_of_a_rotation_verifies_and_no_other() -> None:
    old, new = StateCodec.from_secrets("old"), StateCodec.from_secrets(["new", "old"])
    assert new.verify(token_of(old), BINDING)["m"] == "tools/call"
    assert new.verify(token_of(new), BINDING)["m"] == "tools/call"
    assert reason(StateCodec.from_secrets("other"), token_of(new)) == "signature"


def test_a_signed_body_that_is_not_strict_base64url_is_malformed() -> None:
    """Only the key holder could sign it; it is still no v1 token."""
    codec = StateCodec.from_secrets("k")
    body = b64url_encode(b'{"v":1}') + "="  # padding is not base64url here
    signed = f"v1.{body}"
    tag = b64url_encode(hmac.new(b"k", signed.encode(), hashlib.sha256).digest())
    assert reason(codec, f"{signed}.{tag}") == "malformed"


def test_a_state_this_codec_minted_is_judged_as_one_verified_in_full() -> None:
    """Its own states are remembered by their text; every claim is still checked on every use."""
    now = 1_000_000.0
    codec = StateCodec.from_secrets("k", ttl=60)
    other_instance = StateCodec.from_secrets("k", ttl=60)  # the same keys, nothing remembered
    token = codec.mint(BINDING, "step=1", {"confirm": "elicitation/create"}, 1, now=now)
    assert token in codec._minted and token not in other_instance._minted
    for judge in (codec, other_instance):
        assert judge.verify(token, BINDING, now=now + 1) == other_instance.verify(token, BINDING, now=now + 1)
        for binding, why in ((Binding("tools/call", "delete_file", {"path": "/b"}), "arguments"),
                             (Binding("tools/call", "delete_file", {"path": "/a"}, "mallory"), "principal"),
                             (Binding("prompts/get", "delete_file", {"path": "/a"}), "method")):
            with pytest.raises(StateRejected) as rejected:
                judge.verify(token, binding, now=now + 1)
            assert rejected.value.reason == why
        with pytest.raises(StateRejected) as rejected:
            judge.verify(token, BINDING, now=now + 61)
        assert rejected.value.reason == "expired"
        assert reason(judge, another_tag(token)) == "signature"
    renamed = StateCodec(keys=codec.keys, ttl=60, audiences=["another server"])
    renamed._minted.update(codec._minted)  # even what is remembered is held to this codec's audience
    with pytest.raises(StateRejected) as rejected:
        renamed.verify(token, BINDING, now=now + 1)
    assert rejected.value.reason == "audience"


def test_the_remembered_states_are_bounded_and_the_forgotten_still_verify() -> None:
    from mrtr_studio.engine.state_token import MINTED_REMEMBERED

    codec = StateCodec.from_secrets("k")
    first = token_of(codec)
    for _ in range(MINTED_REMEMBERED):
        token_of(codec)
    assert len(codec._minted) == MINTED_REMEMBERED and first not in codec._minted
    assert codec.verify(first, BINDING)["m"] == "tools/call"


def test_the_engines_call_and_a_binding_bind_a_state_the_same_way() -> None:
    """The engine binds states to its own request object (no Binding per request); the studio's
    tools build a Binding: each must accept the other's states and refuse the same changes."""
    from mrtr_studio.engine.mrtr import Call
    from mrtr_studio.protocol.versions import Era

    def call(arguments: dict[str, object], principal: str = "", bound: dict[str, object] | None = None) -> Call:
        return Call("tools/call", "delete_file", arguments, Era.MODERN, "2026-07-28", {}, principal, {}, bound)

    codec = StateCodec.from_secrets("k")
    from_call = codec.mint(call({"path": "/a"}), "s", {}, 1)
    assert codec.verify(from_call, BINDING)["s"] == "s"
    assert codec.verify(token_of(codec), call({"path": "/a"}))["s"] == "step=1"
    with pytest.raises(StateRejected, match="arguments"):
        codec.verify(from_call, call({"path": "/b"}))
    with pytest.raises(StateRejected, match="principal"):
        codec.verify(from_call, call({"path": "/a"}, principal="eve"))
    # what the draft's secure arguments bind replaces the plain arguments in the digest
    secure = codec.mint(call({"path": "/a"}, bound={"path": "/a", "pin": "1"}), None, {}, 1)
    assert codec.verify(secure, Binding("tools/call", "delete_file", {"path": "/a", "pin": "1"}))
    with pytest.raises(StateRejected, match="arguments"):
        codec.verify(secure, BINDING)
