"""No mutation of a valid token is accepted (property test)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_studio.engine.state_token import Binding, StateCodec, StateRejected
from tests.protocol.test_arguments_digest import JSON_VALUES, same

CODEC = StateCodec.from_secrets(["k1", "k0"], ttl=600)
BINDING = Binding("tools/call", "delete_file", {"path": "/a"}, "alice")
NOW = 1_800_000_000.0
TOKEN = CODEC.mint(BINDING, '{"step":1}', {"confirm": "elicitation/create"}, 1, now=NOW)
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ v"


def rejected(token: str) -> bool:
    try:
        CODEC.verify(token, BINDING, now=NOW + 1)
    except StateRejected:
        return True
    return False


def test_the_original_is_accepted() -> None:
    assert CODEC.verify(TOKEN, BINDING, now=NOW + 1)["s"] == '{"step":1}'


@settings(max_examples=400, deadline=None)
@given(index=st.integers(0, len(TOKEN) - 1), char=st.sampled_from(ALPHABET))
def test_any_single_character_change_is_rejected(index: int, char: str) -> None:
    mutated = TOKEN[:index] + char + TOKEN[index + 1:]
    if mutated != TOKEN:
        assert rejected(mutated)


@settings(max_examples=300, deadline=None)
@given(start=st.integers(0, len(TOKEN)), length=st.integers(1, 20), insert=st.text(ALPHABET, max_size=6))
def test_any_splice_is_rejected(start: int, length: int, insert: str) -> None:
    mutated = TOKEN[:start] + insert + TOKEN[start + length:]
    if mutated != TOKEN:
        assert rejected(mutated)


@settings(max_examples=100, deadline=None)
@given(suffix=st.text(ALPHABET, min_size=1, max_size=10))
def test_appended_text_is_rejected(suffix: str) -> None:
    assert rejected(TOKEN + suffix)


@settings(max_examples=300, deadline=None)
@given(minted_for=JSON_VALUES, used_with=JSON_VALUES)
def test_a_state_completes_only_the_arguments_it_was_minted_for(minted_for: object, used_with: object) -> None:
    token = CODEC.mint(Binding("tools/call", "t", {"x": minted_for}), None, {}, 1, now=NOW)
    try:
        CODEC.verify(token, Binding("tools/call", "t", {"x": used_with}), now=NOW + 1)
    except StateRejected as rejected:
        assert rejected.reason == "arguments"
        assert not same(minted_for, used_with)
    else:
        assert same(minted_for, used_with)
