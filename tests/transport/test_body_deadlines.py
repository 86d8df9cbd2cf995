"""The body deadline's one sweeping timer: a reader past its deadline is cancelled and told so, a
reader that finishes in time is never touched, and the timer stops when nobody reads."""

import asyncio

import pytest

from mrtr_studio.transport.body_deadlines import BodyDeadlines


def test_a_slow_reader_is_cancelled_as_expired_and_a_quick_one_is_not() -> None:
    async def scenario() -> None:
        deadlines = BodyDeadlines(0.2)

        async def read(seconds: float) -> str:
            task = asyncio.current_task()
            assert task is not None
            deadlines.started(task)
            try:
                await asyncio.sleep(seconds)
                return "read"
            except asyncio.CancelledError:
                return "expired" if deadlines.expired(task) else "cancelled"
            finally:
                deadlines.finished(task)

        assert await asyncio.gather(read(0.01), read(5)) == ["read", "expired"]
        await asyncio.sleep(0.2)
        assert deadlines._timer is None  # nobody reads: nothing stays scheduled

    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_the_tick_is_a_fraction_of_the_deadline() -> None:
    assert BodyDeadlines(30).tick == 1.0
    assert BodyDeadlines(0.4).tick == pytest.approx(0.1)
