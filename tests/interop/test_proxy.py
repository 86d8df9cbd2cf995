"""The official Python SDK through `mrtr-studio proxy`: flows complete as they do direct, and the
recorded trace holds one operation per flow with the right rounds and no findings."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.interop.proxy_process import proxy
from tests.interop.test_sdk_client_http import client, run, text_of
from tests.transport.serve_process import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_sdk_client_through_the_proxy_in_front_of_serve(tmp_path: Path) -> None:
    with serve() as served, proxy(served.url, tmp_path / "run.mrtr.json") as proxied:
        async def go() -> list[str]:
            texts = []
            async with client(proxied.url) as c:
                texts.append(text_of(await c.call_tool("delete_file", {"path": "/tmp/x"})))
                texts.append(text_of(await c.call_tool("deploy_wizard", {})))
                texts.append(text_of(await c.call_tool("count_roots", {})))
            async with client(proxied.url, mode="legacy") as legacy:
                texts.append(text_of(await legacy.call_tool("count_roots", {})))
            return texts

        texts = run(go)
        proxied.stop()
    assert texts[0] == "File deleted" and "Deployed" in texts[1]
    assert "2 root(s)" in texts[2] and "2 root(s)" in texts[3]
    store = proxied.store
    sessions = [op for op in store.operations if op.method == "session"]
    calls = [op for op in store.operations if op.method != "session"]
    flows = [(op.target, op.era, op.rounds, op.outcome) for op in calls]
    assert flows == [("delete_file", "modern", 2, "complete"), ("deploy_wizard", "modern", 4, "complete"),
                     ("count_roots", "modern", 2, "complete"), ("count_roots", "legacy", 1, "complete")]
    kinds = [[(m.round, m.kind) for m in store.messages_of(op.id)] for op in calls]
    assert kinds[0] == [(1, "request"), (1, "input_required"), (2, "request"), (2, "complete")]
    assert kinds[3] == [(1, "request"), (1, "server_request"), (1, "client_response"), (1, "complete")]
    sse = [m for op in calls[3:] for m in store.messages_of(op.id) if m.kind == "server_request"]
    assert sse[0].transport["framing"] == "sse"  # the legacy request travelled on the call's SSE stream
    assert [(m.round, f.rule) for m in store.messages for f in m.findings if f.severity != "info"] == []
    # every message is recorded: the legacy client's initialize opens its session's operation, named
    # by the Mcp-Session-Id the server answered with; the modern client's discovery has one too
    legacy = [op for op in sessions if op.era == "legacy"]
    assert len(legacy) == 1 and legacy[0].target and legacy[0].outcome == "complete"
    said = [m.method_name for m in store.messages_of(legacy[0].id)]
    assert said[:3] == ["initialize", "initialize", "notifications/initialized"], said
    first = store.messages_of(calls[0].id)[0]
    assert first.transport["request_headers"]["mcp-method"] == "tools/call"
    assert "tools/call delete_file: 2 round(s), complete" in proxied.stderr


def test_call_through_the_proxy_in_front_of_the_sdk_server(sdk_url: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"*": {"action": "accept", "content": {"confirm": True}}}))
    with proxy(sdk_url, tmp_path / "sdk.mrtr.json") as proxied:
        done = subprocess.run([sys.executable, "-m", "mrtr_studio", "call", proxied.url, "--tool", "sdk_delete",
                               "--args", '{"path": "/srv/a"}', "--answers", str(answers), "--json"],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        proxied.stop()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"] == [{"type": "text", "text": "deleted /srv/a"}]
    (op,) = [op for op in proxied.store.operations if op.method != "session"]
    assert (op.target, op.rounds, op.outcome) == ("sdk_delete", 2, "complete")
