"""Test configuration shared by the whole suite: Qt runs headless."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (`pytest.mark.anyio`) run on asyncio, the loop the studio uses."""
    return "asyncio"
