"""Test configuration shared by the whole suite: Qt runs headless."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import AsyncIterator
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def tap_listeners_never_fail(request: pytest.FixtureRequest) -> Any:
    """A recorder or view that raises on a wire event would drop a message from the trace: fail loudly
    (a test that breaks a listener on purpose says so with `@pytest.mark.tap_failure_expected`)."""
    from mrtr_studio.transport.base import on_listener_failure

    if request.node.get_closest_marker("tap_failure_expected"):
        yield
        return

    failures: list[str] = []
    stop = on_listener_failure(lambda exc, event: failures.append(f"{type(exc).__name__}: {exc} "
                                                                 f"({event.direction})"))
    yield
    stop()
    assert not failures, f"a tap listener raised, so the trace lost messages: {failures}"


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (`pytest.mark.anyio`) run on asyncio, the loop the studio uses."""
    return "asyncio"


@pytest.fixture
async def redis() -> AsyncIterator[Any]:
    """A throw-away redis-server on a free loopback port, stopped after the test; skipped, with the
    reason, where redis-server is not installed, and failed so under CI=true (`.ci/run` installs it)."""
    from tests.services import require

    require("redis-server")
    from mrtr_studio.teaching.cluster_services import start_redis

    service = await start_redis()
    try:
        yield service
    finally:
        await service.stop()
