from pathlib import Path

import pytest

from tests.replay.processes import SDK_TEXTS, record_sdk_flows


@pytest.fixture(scope="session")
def sdk_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official SDK client's flows (both eras) recorded by `mrtr-studio proxy` in front of `serve`."""
    path = tmp_path_factory.mktemp("recorded") / "sdk.mrtr.json"
    assert record_sdk_flows(path) == SDK_TEXTS
    return path
