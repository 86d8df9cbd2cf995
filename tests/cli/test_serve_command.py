"""`mrtr-studio serve` as a user runs it: flags, the listening line, the secret, clean signals."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


@contextmanager
def serve(*flags: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    command = [sys.executable, "-m", "mrtr_studio", "serve", "--port", "0", *flags]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:\d+/mcp)\n", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        yield proc, found.group(1)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def call(url: str, params: dict[str, Any], token: str | None = None) -> httpx.Response:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": params["name"]}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {**params, "_meta": META}}
    return httpx.post(url, json=body, headers=headers, timeout=10)


def first_state(url: str, token: str | None = None) -> str:
    return str(call(url, {"name": "delete_file", "arguments": {"path": "/a"}}, token).json()["result"]["requestState"])


def second_round(url: str, state: str, token: str | None = None) -> dict[str, Any]:
    answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    response = call(url, {"name": "delete_file", "arguments": {"path": "/a"}, "inputResponses": answer,
                          "requestState": state}, token)
    return dict(response.json())


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_serves_then_stops_cleanly_on_signal(signum: int) -> None:
    with serve() as (proc, url):
        assert "requestState" in call(url, {"name": "delete_file", "arguments": {"path": "/a"}}).json()["result"]
        proc.send_signal(signum)
        assert proc.wait(10) == 0


def test_users_map_bearer_tokens_to_principals() -> None:
    with serve("--user", "alice:tok-a", "--user", "bob:tok-b", "--explain-rejections") as (_, url):
        state = first_state(url, "tok-a")
        replayed = second_round(url, state, "tok-b")
        assert replayed["error"]["data"]["reason"] == "principal"
        assert second_round(url, state, "tok-a")["result"]["content"][0]["text"] == "File deleted"
        assert call(url, {"name": "delete_file", "arguments": {}}, "wrong").status_code == 401


def test_secret_from_environment_outlives_the_process() -> None:
    env = {"MRTR_STUDIO_SECRET": "shared-secret"}
    with serve(env=env) as (proc, url):
        state = first_state(url)
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    with serve(env=env) as (_, url):
        assert second_round(url, state)["result"]["content"][0]["text"] == "File deleted"
    with serve("--secret", "another") as (_, url):
        assert second_round(url, state)["error"]["code"] == -32602


def test_bad_user_flag_and_busy_port_fail_clearly() -> None:
    bad = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--user", "nocolon"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert "NAME:TOKEN" in bad.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        taken = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--port", str(port)],
                               capture_output=True, text=True, timeout=30)
    assert taken.returncode == 1
    assert "cannot listen" in taken.stderr
    assert json.dumps(taken.stdout) == '""'


def test_repeated_secrets_rotate_keys_the_first_signs_all_verify() -> None:
    with serve("--secret", "old") as (_, url):
        old_state = first_state(url)
    with serve("--secret", "new", "--secret", "old") as (_, url):
        assert second_round(url, old_state)["result"]["content"][0]["text"] == "File deleted"
        new_state = first_state(url)
    with serve("--secret", "new") as (_, url):
        assert second_round(url, new_state)["result"]["content"][0]["text"] == "File deleted"
    with serve("--secret", "old", "--explain-rejections") as (_, url):
        assert second_round(url, new_state)["error"]["data"]["reason"] == "signature"
    with serve("--secret", "new,old", "--explain-rejections") as (_, url):  # one key that is neither
        assert second_round(url, old_state)["error"]["data"]["reason"] == "signature"


def test_command_line_secrets_take_precedence_over_the_environment() -> None:
    with serve("--secret", "flag", env={"MRTR_STUDIO_SECRET": "env"}) as (_, url):
        state = first_state(url)
    with serve(env={"MRTR_STUDIO_SECRET": "flag"}) as (_, url):
        assert second_round(url, state)["result"]["content"][0]["text"] == "File deleted"


def test_state_decode_verifies_with_any_of_the_secrets_and_the_given_ttl() -> None:
    with serve("--secret", "new", "--state-ttl", "3600") as (_, url):
        state = first_state(url)

    def decode(*flags: str) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "state", "decode", state, "--json", *flags],
                              capture_output=True, text=True, timeout=30, env={**os.environ, "MRTR_STUDIO_SECRET": ""})
        return {check["name"]: check["status"] for check in json.loads(done.stdout)["checks"]}

    rotated = decode("--secret", "old", "--secret", "new", "--state-ttl", "3600")
    assert (rotated["signature"], rotated["expired"]) == ("pass", "pass")
    assert decode("--secret", "old", "--state-ttl", "3600")["signature"] == "fail"
    assert decode("--secret", "new")["expired"] == "fail"  # a 3600 s lifetime against the default 600 s TTL


@pytest.mark.parametrize("command", [["serve"], ["state", "decode", "v1.x.y"]])
@pytest.mark.parametrize(("value", "why"), [("0", "above 0"), ("-5", "above 0"), ("ten", "whole number"),
                                            ("1.5", "whole number")])
def test_a_state_ttl_that_is_not_positive_whole_seconds_is_refused(command: list[str], value: str, why: str) -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", *command, "--state-ttl", value],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "argument --state-ttl" in done.stderr and why in done.stderr
    assert done.stdout == ""


def test_help_says_how_to_rotate_keys() -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--help"], capture_output=True, text=True,
                          timeout=30)
    text = " ".join(done.stdout.split())
    assert "repeat it to rotate keys: the first signs, all verify" in text
    assert "MRTR_STUDIO_SECRET" in text


def test_help_lists_the_limit_flags() -> None:
    shown = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--help"], capture_output=True, text=True,
                           timeout=30)
    assert shown.returncode == 0
    for flag in ("--allow-host", "--max-sessions", "--session-idle", "--max-connections", "--header-timeout",
                 "--body-timeout", "--keep-alive-timeout", "--legacy-request-timeout"):
        assert flag in shown.stdout


def test_a_bad_limit_fails_clearly() -> None:
    bad = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--session-idle", "0"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2
    assert "--session-idle: must be greater than 0" in bad.stderr


def test_deeply_nested_arguments_get_a_clear_error_over_http() -> None:
    """40 levels pass any message-level bound and meet the engine's; 1000 may be stopped by the reader first."""
    with serve() as (proc, url):
        for depth in (40, 1000):
            arguments = "1"
            for _ in range(depth):
                arguments = '{"a":' + arguments + "}"
            body = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_file","arguments":'
                    + arguments + ',"_meta":' + json.dumps(META) + "}}")
            headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "delete_file",
                       "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            reply = httpx.post(url, content=body, headers=headers, timeout=10).json()
            if depth == 40:
                assert reply["error"]["code"] == -32602
                assert reply["error"]["message"] == "Invalid params: arguments is nested deeper than 32 levels"
            else:
                assert reply["error"]["code"] in (-32602, -32600, -32700)
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        assert proc.stderr is not None
        assert "Traceback" not in proc.stderr.read()
