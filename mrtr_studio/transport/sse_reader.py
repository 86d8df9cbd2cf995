"""Client-side Server-Sent Events parsing, bounded: bytes in, one event per blank line out.

Follows the event-stream interpretation of the HTML standard: lines end with CRLF, LF or CR;
`data` lines accumulate, `event` names the type, `id` sets the last event id (kept across events,
what a reconnection sends as `Last-Event-ID`), `retry` sets the reconnection delay, comments
(keep-alives) are skipped. An event with an `id` and empty `data` is a priming event (a 2025-11-25
server that supports resumability sends one first): it is yielded like any other, with `data == ""`,
for the caller to note its id and move on. A line or an event's data longer than the limit raises
SseTooLarge at once, so an endless line never grows a buffer without bound.
"""

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

_LINE_END = re.compile(rb"[\r\n]")


class SseTooLarge(Exception):
    """A line or an event's data is over the byte limit."""


@dataclass
class SseEvent:
    event: str = "message"
    data: str = ""
    #: This event's own `id` field (None when it had none); `SseParser.last_event_id` keeps the latest.
    id: str | None = None
    retry_ms: int | None = None
    #: Whether any `data` line was present (an `id:`/`retry:`-only block carries no message).
    has_data: bool = False


async def lines_of(chunks: AsyncIterator[bytes], max_line_bytes: int) -> AsyncIterator[bytes]:
    """Split a byte stream into lines (CRLF, LF or CR), refusing a line longer than the limit."""
    buffer = bytearray()
    async for chunk in chunks:
        buffer += chunk
        start = 0
        while True:
            found = _LINE_END.search(buffer, start)
            if found is None:
                break
            cut = found.start()
            if buffer[cut] == 0x0D and cut == len(buffer) - 1:
                break  # a CR at the end: wait for the next chunk to see whether LF follows
            if cut - start > max_line_bytes:
                raise SseTooLarge(f"an SSE line of {cut - start} bytes is over the limit of {max_line_bytes} bytes")
            yield bytes(buffer[start:cut])
            start = cut + (2 if buffer[cut:cut + 2] == b"\r\n" else 1)
        del buffer[:start]
        if len(buffer) > max_line_bytes:
            raise SseTooLarge(f"an SSE line of more than {max_line_bytes} bytes (no line end yet)")
    if buffer:
        yield bytes(buffer.rstrip(b"\r"))


class SseParser:
    """Events from a byte stream; remembers the last event id and retry delay across events."""

    def __init__(self, max_event_bytes: int, last_event_id: str | None = None) -> None:
        self.max_event_bytes = max_event_bytes
        self.last_event_id = last_event_id
        self.retry_ms: int | None = None

    async def events(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[SseEvent]:
        current = SseEvent()
        data: list[str] = []
        size = 0
        touched = False
        async for raw in lines_of(chunks, self.max_event_bytes):
            if not raw:
                if touched:
                    current.data = "\n".join(data)
                    current.has_data = bool(data)
                    yield current
                current, data, size, touched = SseEvent(), [], 0, False
                continue
            if raw.startswith(b":"):
                continue
            name, _, value_bytes = raw.partition(b":")
            value = value_bytes.decode("utf-8", errors="replace")
            value = value[1:] if value.startswith(" ") else value
            field = name.decode("utf-8", errors="replace")
            touched = True
            if field == "data":
                size += len(value_bytes) + 1
                if size > self.max_event_bytes:
                    raise SseTooLarge(f"an SSE event of more than {self.max_event_bytes} bytes")
                data.append(value)
            elif field == "event":
                current.event = value or "message"
            elif field == "id" and "\0" not in value:
                current.id = value
                self.last_event_id = value
            elif field == "retry" and value.isdigit():
                current.retry_ms = int(value)
                self.retry_ms = current.retry_ms
        if touched and data:  # a stream that ends without the final blank line still delivers its event
            current.data = "\n".join(data)
            current.has_data = True
            yield current
