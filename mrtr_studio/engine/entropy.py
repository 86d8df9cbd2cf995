"""Unguessable bytes for requestState nonces and session ids, drawn from the OS 4 KiB at a time.

Every modern request gets a fresh session id and every `input_required` answer a fresh nonce; one
`os.urandom` system call for each cost more than the rest of minting the id. The bytes are the
same CSPRNG output, only fetched in bulk: each is handed out once (under a lock: the GUI's server
thread and the window may both draw), and a forked child starts from a fresh batch so parent and
child never hand out the same bytes.

Nonces travel as base64url text, so `random_text` keeps a batch already encoded: base64 turns every
3 bytes into 4 characters on their own, so a slice of the encoded batch at a multiple of 4 is the
encoding of bytes never handed out before, and a nonce costs a slice instead of an encoding.
"""

import os
import threading

from ..protocol.token_format import b64url_encode

_BATCH = 4096
#: Bytes behind one encoded batch: a multiple of 3, so the text has no padding and splits cleanly.
_TEXT_BATCH = 3072
_lock = threading.Lock()
_buffer = b""
_position = 0
_text = ""
_text_position = 0


def random_bytes(count: int) -> bytes:
    """`count` bytes from the OS's CSPRNG (at most one batch), never handed out before."""
    global _buffer, _position
    if count > _BATCH:
        return os.urandom(count)
    with _lock:
        end = _position + count
        if end > len(_buffer):
            _buffer, _position, end = os.urandom(_BATCH), 0, count
        chunk = _buffer[_position:end]
        _position = end
    return chunk


def random_text(count: int) -> str:
    """Unpadded base64url of `count` fresh CSPRNG bytes (what `b64url_encode(random_bytes(count))`
    gives), from the encoded batch when `count` is a multiple of 3 that fits in it."""
    global _text, _text_position
    if count % 3 or count > _TEXT_BATCH:
        return b64url_encode(random_bytes(count))
    width = count // 3 * 4
    with _lock:
        end = _text_position + width
        if end > len(_text):
            _text, _text_position, end = b64url_encode(os.urandom(_TEXT_BATCH)), 0, width
        chunk = _text[_text_position:end]
        _text_position = end
    return chunk


def _forget() -> None:
    global _buffer, _position, _text, _text_position, _lock
    _lock = threading.Lock()
    _buffer, _position = b"", 0
    _text, _text_position = "", 0


os.register_at_fork(after_in_child=_forget)
