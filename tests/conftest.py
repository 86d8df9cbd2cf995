"""Test configuration shared by the whole suite: Qt runs headless."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import AsyncIterator
from typing import Any

import pytest


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
    from mrtr_studio.app.cluster_services import start_redis

    service = await start_redis()
    try:
        yield service
    finally:
        await service.stop()
