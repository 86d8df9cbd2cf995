"""Bounds on a request's header section: its size in bytes and its number of fields (431 past either).

httptools (llhttp) sets no limit of its own: it keeps whatever header bytes arrive until the blank
line, so two 16 MiB `Authorization` headers grew a `serve` process by over 200 MB before any code of
ours ran. The connection protocol (`http_connections`) feeds each chunk received while a request's
headers are incomplete through `HeadCounter` first, and answers 431 Request Header Fields Too Large
(a JSON-RPC error body, then close) as soon as the section passes a bound, so at most about
`max_bytes` plus one socket read is ever held. No I/O here: the protocol writes what this returns.
"""

import json

#: A header section this size is far past any real MCP client's (a JWT or a DPoP proof is a few KiB).
MAX_HEADER_BYTES = 64 * 1024
MAX_HEADER_FIELDS = 100
#: JSON-RPC "Invalid Request", the code every transport-level refusal of `serve` carries.
INVALID_REQUEST = -32600


class HeadCounter:
    """The bytes of one request's header section seen so far; `feed` says why to refuse, or None."""

    def __init__(self, max_bytes: int = MAX_HEADER_BYTES, max_fields: int = MAX_HEADER_FIELDS) -> None:
        self.max_bytes = max_bytes
        self.max_fields = max_fields
        self._head = bytearray()

    def feed(self, data: bytes) -> str | None:
        if not self._head:  # the usual request: its whole header section in one read, nothing copied
            whole, refused = whole_head(data, self.max_bytes, self.max_fields)
            if whole:
                return refused
        self._head += data
        end = min((i for i in (self._head.find(b"\r\n\r\n"), self._head.find(b"\n\n")) if i >= 0), default=-1)
        section = self._head if end < 0 else self._head[:end]
        if len(section) > self.max_bytes:
            return f"request header fields too large: the limit is {self.max_bytes} bytes"
        if section.count(b"\n") > self.max_fields:  # one line per field, plus the request line
            return f"too many request header fields: the limit is {self.max_fields}"
        return None


def whole_head(data: bytes, max_bytes: int, max_fields: int) -> tuple[bool, str | None]:
    """Whether `data`, the first read of a request, holds its whole header section (CRLF CRLF within
    `max_bytes`), and if so why to refuse it (None: within the bounds). False: a `HeadCounter` must
    follow the section over the reads to come. The usual request is judged here without one."""
    end = data.find(b"\r\n\r\n")
    if 0 <= end <= max_bytes and data.find(b"\n\n", 0, end) < 0:
        if data.count(b"\n", 0, end) > max_fields:
            return True, f"too many request header fields: the limit is {max_fields}"
        return True, None
    return False, None


def refusal_431(reason: str) -> bytes:
    """The whole 431 response (the connection closes after it: the rest of the request is not read)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": reason}}).encode()
    return (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
