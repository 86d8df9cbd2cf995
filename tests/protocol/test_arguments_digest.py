"""The arguments digest is injective: arguments that differ in any way never share a digest."""

import base64
import hashlib
import math
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mrtr_studio.protocol.token_format import arguments_digest, canonical_arguments

#: Values a careless encoding conflates: null/NaN/Infinity, 1/1.0/true, 0.0/-0.0, numbers/strings, big ints.
TRICKY = [None, True, False, 0, 1, -1, 0.0, -0.0, 1.0, -1.0, 2**63, 2**64, -(2**63) - 1, 10**30, float(2**64),
          1e16, 10**16, 1e-7, math.inf, -math.inf, math.nan, "", "1", "1.0", "true", "null", "NaN", "Infinity",
          "\ud800", "\u00e9", "e\u0301", [], {}]
KEYS = st.sampled_from(["", "a", "b", "1", "null", "\u00e9"])
SCALARS = st.one_of(st.sampled_from(TRICKY), st.integers(), st.floats(), st.text(max_size=4))
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8)


def same(a: Any, b: Any) -> bool:
    """Equality as the wire sees it: types matter (1 is not 1.0 is not true), so does -0.0; NaN is NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    return bool(a == b)


@settings(max_examples=800, deadline=None)
@given(a=JSON_VALUES, b=JSON_VALUES)
def test_values_that_differ_have_different_digests(a: Any, b: Any) -> None:
    if same(a, b):
        assert arguments_digest({"x": a}) == arguments_digest({"x": b})
    else:
        assert arguments_digest({"x": a}) != arguments_digest({"x": b}), (a, b)


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(KEYS, JSON_VALUES, max_size=5))
def test_key_order_does_not_matter(value: dict[str, Any]) -> None:
    reversed_order = dict(reversed(list(value.items())))
    assert arguments_digest(value) == arguments_digest(reversed_order)


@pytest.mark.parametrize("other", [math.inf, -math.inf, math.nan])
def test_non_finite_numbers_are_not_null(other: float) -> None:
    assert arguments_digest({"n": None}) != arguments_digest({"n": other})
    assert canonical_arguments({"n": other}) != canonical_arguments({"n": "Infinity"})


def test_common_arguments_keep_their_bytes() -> None:
    """States minted before the encoding learned non-finite numbers still verify."""
    assert canonical_arguments({"path": "/a", "n": None, "f": 1.5}) == b'{"f":1.5,"n":null,"path":"/a"}'


def test_non_string_keys_and_non_json_values_are_refused() -> None:
    for bad in ({1: "x"}, {"a": {None: 1}}, {"a": object()}):
        with pytest.raises(ValueError):
            canonical_arguments(bad)


def test_deep_values_raise_value_error_not_recursion_error() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ValueError):
        arguments_digest(deep)


@pytest.mark.parametrize("arguments", [{}, {"path": "/a"}, {"blob": "x" * 2040}, {"blob": "x" * 2050},
                                       {"big": "y" * 100_000}])
def test_the_digest_is_sha256_of_the_canonical_bytes_whatever_their_size(arguments: dict[str, str]) -> None:
    """Small arguments are digested by CPython's own SHA-256, large ones by hashlib's: the same bytes."""
    expected = base64.urlsafe_b64encode(hashlib.sha256(canonical_arguments(arguments)).digest()).rstrip(b"=")
    assert arguments_digest(arguments) == expected.decode()
