"""The requestState token's wire format (DESIGN.md): the pieces both sides need to read or build one.

The engine signs and verifies; the client's tamper tools and the studio's decoder take tokens apart
and put them back together. They share these encodings so a byte means the same thing everywhere.
"""

import base64
import binascii
import hashlib
import json
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


def b64url_encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


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


def arguments_digest(arguments: Any) -> str:
    """What binds a state to its arguments: SHA-256 of their canonical JSON, base64url."""
    return b64url_encode(hashlib.sha256(canonical_json(arguments or {})).digest())
