"""`serve --state-audience` end to end: two servers sharing a secret refuse each other's states (reason audience)."""

import json
import subprocess
import sys

import pytest

from tests.cli.test_serve_command import first_state, second_round, serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def test_a_server_with_another_audience_refuses_the_state_and_decode_shows_it() -> None:
    with serve("--secret", "shared", "--state-audience", "billing") as (_, url):
        state = first_state(url)
    with serve("--secret", "shared", "--state-audience", "files", "--explain-rejections") as (_, url):
        refused = second_round(url, state)
    assert refused["error"]["code"] == -32602
    assert refused["error"]["data"]["reason"] == "audience"
    assert "minted for 'billing'" in refused["error"]["data"]["detail"]
    with serve("--secret", "shared", "--state-audience", "files", "--state-audience", "billing") as (_, url):
        assert second_round(url, state)["result"]["content"][0]["text"] == "File deleted"
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "state", "decode", state, "--secret", "shared",
                           "--audience", "files", "--json"], capture_output=True, text=True, timeout=30)
    shown = json.loads(done.stdout)
    assert shown["format"] == "studio" and shown["payload"]["aud"] == "billing"
    assert {c["name"]: c["status"] for c in shown["checks"]}["audience"] == "fail"
    assert done.returncode == 1


def test_without_the_flag_the_state_is_for_the_servers_name() -> None:
    with serve("--secret", "shared") as (_, url):
        state = first_state(url)
        assert second_round(url, state)["result"]["content"][0]["text"] == "File deleted"
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "state", "decode", state, "--json"],
                          capture_output=True, text=True, timeout=30)
    assert json.loads(done.stdout)["payload"]["aud"] == "mrtr-studio-demo"
