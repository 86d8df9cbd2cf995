"""Saving an operation to a collection, without the window: an HTTP call as alice never writes her
token (the call names ${ALICE_TOKEN}), each server gets a variable of its own in the environment, a
legacy flow's answers are kept by method, and what is written loads with `run`'s loader."""

import json
from pathlib import Path

import pytest

from mrtr_studio.client.collection import CollectionError, load_collection
from mrtr_studio.studio.collection_runs import AssertionChoice, call_from, save_call
from mrtr_studio.studio.operations import OperationRow, RunSettings
from mrtr_studio.studio.server_entries import http_entry, stdio_entry
from mrtr_studio.trace import TraceStore

CLIENT = {"era": "modern", "capabilities": ["elicitation", "sampling.tools", "roots"], "identity": "alice"}


def recorded(store: TraceStore, server: str) -> OperationRow:
    op = store.begin_operation("tools/call", "delete_file", {"path": "/a"}, "modern", server)
    store.finish_operation(op.id, "complete")
    return OperationRow(op, "live")


def test_an_http_call_as_alice_names_her_token_and_its_server(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    store = TraceStore()
    path = tmp_path / "c.json"
    for url in ("http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"):
        row = recorded(store, url)
        row.settings = RunSettings("tools/call", "delete_file", {"path": "/a"}, "alice", CLIENT, http_entry(url))
        call, identity = call_from(store, row, "delete", AssertionChoice(same_rounds=False))
        assert call["capabilities"] == ["elicitation", "roots"]  # what a collection can declare
        saved = save_call(path, call, identity, "local")
        assert saved.from_process == ("ALICE_TOKEN",)
    text = path.read_text()
    assert "alice-token" not in text
    document = json.loads(text)
    assert document["environments"] == {"local": {"URL": "http://127.0.0.1:1/mcp", "URL_2": "http://127.0.0.1:2/mcp"}}
    assert [c["target"] for c in document["calls"]] == ["${URL}", "${URL_2}"]
    assert [c["name"] for c in document["calls"]] == ["delete", "delete (2)"]
    with pytest.raises(CollectionError, match=r"\$\{ALICE_TOKEN\} is not defined"):
        load_collection(path, "local")
    monkeypatch.setenv("ALICE_TOKEN", "alice-token")
    calls = load_collection(path, "local")
    assert [(c.target, c.identity) for c in calls] == [("http://127.0.0.1:1/mcp", "alice-token"),
                                                        ("http://127.0.0.1:2/mcp", "alice-token")]


def test_a_legacy_flow_keeps_its_answers_by_method(tmp_path: Path) -> None:
    store = TraceStore()
    row = recorded(store, "python server.py")
    op = row.operation
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create",
                                              "params": {"message": "Delete?"}})
    store.record(op.id, 1, "client->server", {"jsonrpc": "2.0", "id": "s1",
                                              "result": {"action": "accept", "content": {"confirm": True}}})
    row.settings = RunSettings("tools/call", "delete_file", {"path": "/a"}, "anonymous",
                               {**CLIENT, "era": "legacy", "identity": "anonymous"}, stdio_entry("python server.py"))
    call, identity = call_from(store, row, "", AssertionChoice())
    assert call["answers"] == {"elicitation/create": {"action": "accept", "content": {"confirm": True}}}
    assert call["target"] == "stdio:python server.py" and call["era"] == "legacy" and "identity" not in call
    save_call(tmp_path / "l.json", call, identity)
    [loaded] = load_collection(tmp_path / "l.json")
    assert loaded.name == "delete_file" and loaded.target == "stdio:python server.py"


def test_the_embedded_engine_as_alice_keeps_her_principal(tmp_path: Path) -> None:
    store = TraceStore()
    row = recorded(store, "embedded")
    row.settings = RunSettings("tools/call", "delete_file", {"path": "/a"}, "alice", CLIENT, None)
    call, identity = call_from(store, row, "mine", AssertionChoice())
    saved = save_call(tmp_path / "m.json", call, identity, "local")
    assert saved.from_process == ()
    [loaded] = load_collection(tmp_path / "m.json", "local")
    assert (loaded.target, loaded.identity) == ("memory:", "alice")
