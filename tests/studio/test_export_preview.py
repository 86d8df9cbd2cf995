"""The prepared export behind the window's redaction preview: the text the file gets under the
chosen profile, a bounded preview of it, and a clear reason when there is nothing to export."""

import json

import pytest

from mrtr_studio.studio.export_preview import ExportRequest, PrepareError, prepare
from mrtr_studio.trace.model import Operation, TraceMessage
from mrtr_studio.trace.redaction_profiles import default_profile, none_profile

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "login", "arguments": {"user": "ann", "password": "hunter2", "blob": "x" * 5000}}}
OP = Operation("op1", "tools/call", "login", dict(CALL["params"]["arguments"]), "modern",  # type: ignore[index]
               "http://127.0.0.1:9/mcp", 0.0)


def request() -> TraceMessage:
    return TraceMessage(1, "op1", 1, "client->server", "request", CALL, 1.0, "tools/call", 1,
                        {"transport": "http", "url": "http://127.0.0.1:9/mcp", "http_method": "POST",
                         "request_headers": {"Authorization": "Bearer ***"}})


@pytest.mark.parametrize("kind", ["html", "md", "har", "otlp", "curl", "httpx", "call"])
def test_every_kind_masks_the_profile_s_fields(kind: str) -> None:
    prepared = prepare([OP], [request()], ExportRequest(kind, "op1", 1), default_profile())  # type: ignore[arg-type]
    assert "hunter2" not in prepared.text and prepared.tally.counts["$..password"] == 1
    if kind in ("har", "curl", "httpx", "md"):
        assert "ann" in prepared.text  # what no rule names is kept
    if kind != "otlp":  # OTLP carries span attributes, not bodies: nothing to unmask there
        unmasked = prepare([OP], [request()], ExportRequest(kind, "op1", 1), none_profile())  # type: ignore[arg-type]
        assert "hunter2" in unmasked.text


def test_the_preview_is_bounded_and_says_how_much_is_left_out() -> None:
    prepared = prepare([OP], [request()], ExportRequest("har"), default_profile())
    assert len(prepared.text) > 5000 and json.loads(prepared.text)["log"]["entries"]
    short = prepared.preview(limit=1000)
    assert short.startswith(prepared.text[:1000])
    assert f"{len(prepared.text) - 1000:,} more characters, not shown here" in short
    assert prepared.preview() == prepared.text


def test_nothing_to_export_is_a_reason() -> None:
    with pytest.raises(PrepareError, match="The trace is empty"):
        prepare([], [], ExportRequest("har"), default_profile())
    with pytest.raises(PrepareError, match="Run or select a flow"):
        prepare([OP], [request()], ExportRequest("html", "nope"), default_profile())
    reply = TraceMessage(2, "op1", 1, "server->client", "complete", {"jsonrpc": "2.0", "id": 1, "result": {}}, 1.1)
    with pytest.raises(PrepareError, match="not something the client sent"):
        prepare([OP], [request(), reply], ExportRequest("curl", seq=2), default_profile())
