"""Unguessable bytes for requestState nonces and session ids, drawn from the OS 4 KiB at a time.

Every modern request gets a fresh session id and every `input_required` answer a fresh nonce; one
`os.urandom` system call for each cost more than the rest of minting the id. The bytes are the
same CSPRNG output, only fetched in bulk: each is handed out once (under a lock: the GUI's server
thread and the window may both draw), and a forked child starts from a fresh batch so parent and
child never hand out the same bytes.
"""

import os
import threading

_BATCH = 4096
_lock = threading.Lock()
_buffer = b""
_position = 0


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


def _forget() -> None:
    global _buffer, _position, _lock
    _lock = threading.Lock()
    _buffer, _position = b"", 0


os.register_at_fork(after_in_child=_forget)
