"""A test that needs redis-server or haproxy fails (never skips) under CI=true when the program is missing."""

import pytest

from tests import services


def test_missing_program_skips_locally_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="redis-server not installed"):
        services.require("redis-server")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"redis-server and haproxy not installed.*not a skip"):
        services.require("redis-server", "haproxy")


def test_present_programs_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setenv("CI", "true")
    services.require("redis-server", "haproxy")
