"""The requestState token's wire format: the pieces both sides need to read or build one.
Its format is in docs/architecture.md ("The studio's requestState token").

The engine signs and verifies; the client's tamper tools and the studio's decoder take tokens apart
and put them back together. They share these encodings so a byte means the same thing everywhere.
"""

import binascii
import hashlib
import importlib
import json
import math
from collections.abc import Iterator
from typing import Any

import orjson

PREFIX = "v1."
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
#: Last characters allowed when 2 or 3 characters end the text: the bits past the data must be zero.
_CANONICAL_TAIL = {2: frozenset(_ALPHABET[::16]), 3: frozenset(_ALPHABET[::4])}
_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_PADDING = {0: b"", 2: b"==", 3: b"="}
#: One preconfigured encoder: json.dumps with options builds a new encoder on every call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_TO_URL = bytes.maketrans(b"+/", b"-_")


def b64url_encode(raw: bytes) -> str:
    """Unpadded base64url (binascii directly: `base64.urlsafe_b64encode` adds two Python calls a token)."""
    return binascii.b2a_base64(raw, newline=False).translate(_TO_URL).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict unpadded base64url: only the alphabet, a valid length, canonical trailing bits."""
    remainder = len(text) % 4
    if remainder == 1 or "+" in text or "/" in text or "=" in text:
        raise ValueError("not unpadded base64url")
    if remainder and text[-1] not in _CANONICAL_TAIL[remainder]:
        raise ValueError("non-canonical base64url")
    try:  # strict mode rejects every character outside the (translated) alphabet
        return binascii.a2b_base64(text.encode("ascii").translate(_TO_STANDARD) + _PADDING[remainder],
                                   strict_mode=True)
    except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
        raise ValueError("not base64url") from exc


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8: orjson on the hot path, the stdlib for what orjson refuses
    (integers beyond 64 bits, non-string keys); both give the same bytes where both apply."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _CANONICAL.encode(value).encode("utf-8")


def _builtin_sha256() -> Any:
    """CPython's own SHA-256 (`_sha2` from 3.12, `_sha256` before), or hashlib's when the build lacks it.

    For the few hundred bytes of a request's arguments it costs a third of hashlib's OpenSSL object
    inside a busy `serve` (measured with py-spy at 32 connections: OpenSSL's digest set-up is long and
    runs cache-cold between requests); for large inputs OpenSSL's vectorised code is several times faster.
    Both compute the same SHA-256."""
    for module in ("_sha2", "_sha256"):
        try:
            return importlib.import_module(module).sha256
        except (ImportError, AttributeError):
            continue
    return hashlib.sha256


_small_sha256 = _builtin_sha256()
#: Up to this many bytes the builtin SHA-256 digests the arguments; past it, hashlib's.
_SMALL = 2048


def arguments_digest(arguments: Any) -> str:
    """What binds a state to its arguments: SHA-256 of their canonical encoding, base64url."""
    encoded = canonical_arguments(arguments or {})
    return b64url_encode((_small_sha256 if len(encoded) <= _SMALL else hashlib.sha256)(encoded).digest())


def canonical_arguments(value: Any) -> bytes:
    """An injective encoding of a JSON value: two values that differ never share their bytes.

    It is canonical JSON, whose grammar tags every token with its type: `null`, `true`, `false`,
    `"text"`, integers as bare digits (any size), floats always with a `.` or an exponent (so
    `1`, `1.0` and `true` differ, and `-0.0` keeps its sign), and `NaN`, `Infinity`, `-Infinity`
    as tokens of their own. orjson writes every value except those three non-finite floats (it
    turns them into `null`, which would let `{"n": Infinity}` pass for `{"n": null}`) and integers
    past 64 bits; the stdlib writes those, so the same value always takes the same path and the
    bytes for a common value are those earlier releases signed. Object keys must be strings
    (`{1: x}` and `{"1": x}` would otherwise meet); values nested past what the encoders handle
    raise ValueError too. The engine refuses non-finite numbers and deep values before this runs;
    the encoding stays injective without that so any caller (the tamper tools, the decoder) is safe.
    """
    try:
        encoded = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # a big integer, a non-string key, a lone surrogate, too deep, not JSON
        return _stdlib_arguments(value)
    # orjson wrote NaN and Infinity as null: a round trip that differs from the value gives them away
    # (in C, cheaper than walking the value in Python).
    if b"null" in encoded and orjson.loads(encoded) != value and _has_non_finite(value):
        return _stdlib_arguments(value)
    return encoded


#: allow_nan writes NaN / Infinity / -Infinity, which no finite value or null can produce.
_CANONICAL_ARGUMENTS = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                                        allow_nan=True, check_circular=True)


def _stdlib_arguments(value: Any) -> bytes:
    _check_keys(value)
    try:
        text = _CANONICAL_ARGUMENTS.encode(value)
    except RecursionError as exc:
        raise ValueError("the value is nested too deeply to encode") from exc
    except TypeError as exc:
        raise ValueError(f"not a JSON value: {exc}") from exc
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate stays distinct from any other text


def _walk(value: Any) -> Iterator[Any]:
    """Every node of a value once, iteratively: no recursion limit to hit, no cycle to loop on."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict | list | tuple) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)


def _has_non_finite(value: Any) -> bool:
    return any(isinstance(item, float) and not math.isfinite(item) for item in _walk(value))


def _check_keys(value: Any) -> None:
    for item in _walk(value):
        if isinstance(item, dict) and not all(type(key) is str for key in item):
            raise ValueError("object keys must be strings")
