"""`.mrtr.json` save/open round trip, and the Mermaid export of the delete_file flow."""

import json
from pathlib import Path

import pytest

from mrtr_studio.trace import TraceStore, files, lint
from mrtr_studio.trace.mermaid import escape, to_mermaid

from .flows import run, session

pytestmark = pytest.mark.anyio

DELETE_FILE = """\
sequenceDiagram
    participant C as Client
    participant S as Server
    Note over C,S: tools/call delete_file (modern)
    C->>S: tools/call delete_file (id: 1)
    S-->>C: input_required (id: 1)<br/>confirm: elicitation/create<br/>requestState
    Note over C: round 2
    C->>S: tools/call delete_file (id: 2)<br/>inputResponses: confirm<br/>requestState
    S-->>C: complete (id: 2)
"""

COUNT_ROOTS_LEGACY = """\
sequenceDiagram
    participant C as Client
    participant S as Server
    Note over C,S: tools/call count_roots (legacy)
    C->>S: tools/call count_roots (id: 2)
    S->>C: roots/list (id: server-1)
    C-->>S: result (id: server-1)
    S-->>C: complete (id: 2)
"""


async def test_save_and_open_round_trip_unchanged(tmp_path: Path) -> None:
    client = session()
    lint.attach(client.store)
    await run(client, "delete_file", {"path": "/a"})
    await run(client, "deploy_wizard")

    async def tamper(message: dict, round_number: int) -> dict:
        if round_number == 2:
            message["params"]["requestState"] = "forged"
        return message

    await run(client, "delete_file", {"path": "/b"}, step=tamper)
    client.store.note_answer_time(client.store.operations[0].id, 2, 1.25)
    path = files.save(tmp_path / "flow.mrtr.json", client.store)
    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("mrtr-studio-trace", 1)
    operations, messages = files.open_trace(path)
    assert [op.to_json() for op in operations] == [op.to_json() for op in client.store.operations]
    assert [m.to_json() for m in messages] == [m.to_json() for m in client.store.messages]
    assert any(m.findings for m in messages)
    reopened = TraceStore()
    files.load_into(reopened, path)
    files.save(tmp_path / "again.mrtr.json", reopened)
    assert (tmp_path / "again.mrtr.json").read_text() == path.read_text()


def test_open_refuses_other_files_clearly(tmp_path: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match=r'is not an MRTR Studio trace \(no "format": "mrtr-studio-trace"\)'):
        files.open_trace(other)
    other.write_text('{"format": "mrtr-studio-trace", "version": 99}')
    with pytest.raises(ValueError, match=r"has trace format version 99; this studio reads 1$"):
        files.open_trace(other)


async def test_mermaid_of_the_delete_file_flow() -> None:
    client = session()
    result = await run(client, "delete_file", {"path": "/tmp/a.txt"})
    assert to_mermaid(result.operation, client.store.messages_of(result.operation.id)) == DELETE_FILE


async def test_mermaid_of_a_legacy_flow_shows_server_requests() -> None:
    client = session("legacy")
    result = await run(client, "count_roots")
    assert to_mermaid(result.operation, client.store.messages_of(result.operation.id)) == COUNT_ROOTS_LEGACY


async def test_mermaid_shows_findings_timings_and_the_failure() -> None:
    client = session()
    lint.attach(client.store)

    async def tamper(message: dict, round_number: int) -> dict:
        if round_number == 2:
            message["params"]["requestState"] = "forged;#"
        return message

    result = await run(client, "delete_file", {"path": "/a"}, step=tamper)
    client.store.note_answer_time(result.operation.id, 2, 3.04)
    text = to_mermaid(result.operation, client.store.messages_of(result.operation.id), timings=True)
    assert "    Note over C: answered in 3.0 s\n" in text
    assert "    Note right of S: error: state-altered\n" in text
    assert text.endswith("    Note over C,S: error: -32602 Invalid requestState\n")


def test_escape() -> None:
    assert escape("a;b#c\nd") == "a#59;b#35;c<br/>d"
