"""Diagram and log labels show arguments as JSON (not Python reprs), and every cut ends in "…"."""

from typing import Any

from mrtr_studio.trace.brief_json import brief, brief_members, clip
from mrtr_studio.trace.diagram_layout import message_summary
from mrtr_studio.trace.model import TraceMessage


def entry(kind: str, message: dict[str, Any], method: str | None = "tools/call") -> TraceMessage:
    return TraceMessage(seq=1, operation_id="op", round=1, direction="client->server", kind=kind,
                        message=message, timestamp=0.0, method=method, jsonrpc_id=1)


def test_request_arguments_are_json() -> None:
    request = entry("request", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "delete_file", "arguments": {"path": "/tmp/demo.txt", "edited": True, "params": {"mode": "x"}}}})
    summary = message_summary(request)
    assert summary == 'delete_file · path: "/tmp/demo.txt", edited: true, params: {"mode": "x"}'
    assert "=" not in summary and "True" not in summary and "'" not in summary


def test_long_texts_end_in_an_ellipsis() -> None:
    result = entry("complete", {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": "word " * 60}]}}, method=None)
    summary = message_summary(result)
    assert len(summary) == 120 and summary.endswith("…")
    assert clip("abc", 3) == "abc" and clip("abcd", 3) == "ab…"
    assert brief_members({"a": 1, "b": None, "c": [1, 2], "d": 4}, 200) == "a: 1, b: null, c: [1, 2], …"
    assert brief({"k": {"deep": {"deeper": 1}}}, depth=2) == '{"k": {"deep": {…}}}'
