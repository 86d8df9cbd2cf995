"""The bounded reader: size, depth and syntax become WireJsonError, big integers survive."""

import pytest

from mrtr_studio.protocol import wire_json
from mrtr_studio.protocol.wire_json import WireJsonError, depth_of, loads


def test_big_integer_id_keeps_its_digits() -> None:
    assert loads(b'{"id": 12345678901234567890123}')["id"] == 12345678901234567890123


def test_hundred_thousand_brackets_with_a_long_number_is_a_depth_error() -> None:
    with pytest.raises(WireJsonError) as info:
        loads(b"[" * 100_000 + b"1234567890123456789012")
    assert info.value.reason == "depth"


def test_depth_over_the_bound_is_refused_and_under_it_accepted() -> None:
    assert loads("[" * 10 + "]" * 10, max_depth=10) == [[[[[[[[[[]]]]]]]]]]
    with pytest.raises(WireJsonError) as info:
        loads("[" * 11 + "]" * 11, max_depth=10)
    assert info.value.reason == "depth"


def test_size_and_syntax() -> None:
    with pytest.raises(WireJsonError) as info:
        loads(b" " * 11, max_bytes=10)
    assert info.value.reason == "size"
    for text in (b"{", b"NaN", b'{"n": Infinity}'):
        with pytest.raises(WireJsonError) as info:
            loads(text)
        assert info.value.reason == "syntax"


def test_depth_of_counts_containers_only() -> None:
    assert depth_of(5, 10) == 0
    assert depth_of({"a": [1, {"b": []}]}, 10) == 4


def test_many_shallow_brackets_are_fine_and_brackets_inside_strings_do_not_fool_the_bound() -> None:
    wide = "[" + ",".join(["[]"] * 500) + "]"
    assert len(loads(wide, max_depth=3)) == 500
    deep = '{"a":' * 10 + '"[[[[[[[[[[[["' + "}" * 10
    with pytest.raises(WireJsonError) as raised:
        loads(deep, max_depth=9)
    assert raised.value.reason == "depth"
    assert loads('{"text": "[[[[[[[[[[[[[[[["}', max_depth=1) == {"text": "[" * 16}


def test_the_count_that_comes_with_a_value_is_its_brackets_and_long_numbers_still_keep_their_digits() -> None:
    text = b'{"id":12345678901234567890123,"a":[{"b":"[{ in a string"}],"n":1234567890123456789}'
    value, brackets = wire_json.loads_counted(text)
    assert brackets == text.count(b"[") + text.count(b"{") == 5
    assert value["id"] == 12345678901234567890123 and value["n"] == 1234567890123456789
    assert wire_json.loads_counted(b'{"n":123456789012345678}')[0]["n"] == 123456789012345678  # 18: orjson's own
    assert wire_json.loads_counted("[1]") == ([1], 1)
