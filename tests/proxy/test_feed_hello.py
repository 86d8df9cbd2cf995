"""The live feed reads an unauthenticated hello with a small bound and a deadline: a peer without the
token cannot make the studio buffer megabytes, or hold a connection open by saying nothing."""

import asyncio
from pathlib import Path

import pytest

from mrtr_studio.proxy import local_feed
from mrtr_studio.proxy.local_feed import HELLO_MAX, BoundedLines, FeedServer, LineTooLong
from mrtr_studio.trace import TraceStore

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


async def refused_after(home: Path, payload: bytes) -> tuple[bytes, FeedServer]:
    feed = FeedServer(TraceStore(), home)
    path = await feed.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(payload)
        await writer.drain()
        said = await asyncio.wait_for(reader.read(), 20)  # the studio closes it
        writer.close()
    finally:
        await feed.stop()
    return said, feed


async def test_a_hello_past_the_bound_is_refused_before_its_newline(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_feed, "HELLO_SECONDS", 600.0)  # refused for its size, not at the deadline
    said, feed = await refused_after(tmp_path / "home", b"{" + b"x" * (HELLO_MAX + 10))  # no newline, ever
    assert (said, feed.refused, feed.sessions) == (b"", 1, 0)


async def test_a_silent_peer_is_dropped_at_the_hello_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_feed, "HELLO_SECONDS", 0.2)
    said, feed = await refused_after(tmp_path / "home", b"")
    assert (said, feed.refused) == (b"", 1)


async def test_bounded_lines_keep_what_follows_the_hello_and_bound_each_line() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b'{"token": "t"}\nsecond line\n' + b"y" * 100 + b"\n" + b"tail")
    reader.feed_eof()
    lines = BoundedLines(reader, chunk=7)
    assert await lines.next(HELLO_MAX) == b'{"token": "t"}'
    assert await lines.next(50) == b"second line"
    with pytest.raises(LineTooLong):
        await lines.next(50)
    fresh = asyncio.StreamReader()
    fresh.feed_data(b"a\nlast")
    fresh.feed_eof()
    again = BoundedLines(fresh)
    assert [await again.next(10), await again.next(10), await again.next(10)] == [b"a", b"last", None]
