"""`serve --otlp-endpoint` and `proxy --otlp-endpoint`: real processes send their spans over OTLP/HTTP
to a collector on loopback (a plain HTTP server here, decoding what arrives as ExportTraceServiceRequest);
each server span is a child of the round span the studio's client named in `_meta.traceparent`."""

import json
import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from mrtr_studio.cli.parser import main
from mrtr_studio.trace import files
from tests.cli.test_serve_command import serve
from tests.interop.proxy_process import proxy

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
CONFIRM = {"confirm": {"action": "accept", "content": {"confirm": True}}}


class Collector:
    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.paths: list[str] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(min(length, 16 * 1024 * 1024))
                collector.paths.append(self.path)
                collector.requests.append(ExportTraceServiceRequest.FromString(body))
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def spans(self) -> list[object]:
        return [span for request in self.requests for rs in request.resource_spans for ss in rs.scope_spans
                for span in ss.spans]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def collector() -> Iterator[Collector]:
    running = Collector()
    yield running
    running.close()


def record_call(url: str, tmp_path: Path) -> list[tuple[str, str]]:
    """Run delete_file through `url`; the (trace id, span id) of each round's traceparent."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(CONFIRM))
    trace = tmp_path / "client.mrtr.json"
    assert main(["call", url, "--tool", "delete_file", "--args", '{"path": "/a"}', "--answers", str(answers),
                 "--trace", str(trace)]) == 0
    _, messages = files.open_trace(trace)
    sent = [m.message["params"]["_meta"]["traceparent"] for m in messages
            if m.kind == "request" and m.method == "tools/call"]
    return [(value.split("-")[1], value.split("-")[2]) for value in sent]


def calls_of(collector: Collector) -> list[object]:
    return [span for span in collector.spans() if span.name == "tools/call delete_file"]  # type: ignore[attr-defined]


def test_serve_sends_a_child_span_per_request(collector: Collector, tmp_path: Path) -> None:
    with serve("--otlp-endpoint", collector.url) as (proc, url):
        rounds = record_call(url, tmp_path)
        proc.send_signal(signal.SIGTERM)  # shutting down flushes the batch
        assert proc.wait(30) == 0
    assert set(collector.paths) == {"/v1/traces"}
    spans = calls_of(collector)
    assert len(spans) == 2
    assert [(s.trace_id.hex(), s.parent_span_id.hex()) for s in spans] == rounds  # type: ignore[attr-defined]
    first, retry = ({kv.key: kv.value for kv in s.attributes} for s in spans)  # type: ignore[attr-defined]
    assert first["mcp.result_type"].string_value == "input_required"
    assert retry["mcp.result_type"].string_value == "complete"
    assert first["mcp.tool.name"].string_value == "delete_file"
    resource = {kv.key: kv.value.string_value for kv in collector.requests[0].resource_spans[0].resource.attributes}
    assert resource["service.name"] == "mrtr-studio serve"


def test_proxy_sends_a_span_per_relayed_request(collector: Collector, tmp_path: Path) -> None:
    with serve() as (_, upstream), proxy(upstream, tmp_path / "proxied.mrtr.json",
                                         "--otlp-endpoint", collector.url) as proxied:
        rounds = record_call(proxied.url, tmp_path)
        proxied.stop()
    spans = calls_of(collector)
    assert [(s.trace_id.hex(), s.parent_span_id.hex()) for s in spans] == rounds  # type: ignore[attr-defined]


def test_a_bad_endpoint_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0", "--otlp-endpoint", "collector:4318"]) == 2
    assert "--otlp-endpoint must be an http(s) URL" in capsys.readouterr().err


ANSWER_ONE = ("import sys, json\nline = sys.stdin.readline()\nrequest = json.loads(line)\n"
              "print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': {'resultType': 'complete', "
              "'content': []}}), flush=True)\nsys.stdin.read()\n")


def test_wrap_sends_a_span_per_relayed_request(collector: Collector, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    trace_id, span_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "delete_file", "arguments": {"path": "/a"},
                          "_meta": {"traceparent": f"00-{trace_id}-{span_id}-01"}}}
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "MRTR_STUDIO_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "wrap", "--no-feed", "--otlp-endpoint", collector.url,
                           "--trace", str(tmp_path / "w.mrtr.json"), "--", sys.executable, "-c", ANSWER_ONE],
                          input=(json.dumps(request) + "\n").encode(), capture_output=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert b'"resultType": "complete"' in done.stdout
    spans = calls_of(collector)
    assert [(s.trace_id.hex(), s.parent_span_id.hex()) for s in spans] == [(trace_id, span_id)]  # type: ignore[attr-defined]
    resource = {kv.key: kv.value.string_value for kv in collector.requests[0].resource_spans[0].resource.attributes}
    assert resource["service.name"] == "mrtr-studio wrap"


def test_a_bad_wrap_endpoint_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wrap", "--otlp-endpoint", "collector:4318", "--", "true"]) == 2
    assert "--otlp-endpoint must be an http(s) URL" in capsys.readouterr().err
