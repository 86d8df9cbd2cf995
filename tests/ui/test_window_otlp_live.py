"""`mrtr-studio --otlp-endpoint URL`: the window sends a CLIENT span per JSON-RPC request its client sends,
over OTLP/HTTP to a collector on loopback, each in the trace its request's `_meta.traceparent` names."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_otlp_live import Collector, calls_of, collector  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_the_window_sends_a_client_span_per_request(collector: Collector, tmp_path: Path) -> None:  # noqa: F811
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "MRTR_STUDIO_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "--scenario", "delete_file", "--auto",
                           "--screenshot-dir", str(tmp_path / "shots"), "--otlp-endpoint", collector.url],
                          capture_output=True, timeout=100, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    spans = calls_of(collector)
    assert len(spans) == 2, [s.name for s in collector.spans()]  # type: ignore[attr-defined]
    assert {s.kind for s in spans} == {3}  # type: ignore[attr-defined]  # SPAN_KIND_CLIENT
    first, retry = ({kv.key: kv.value for kv in s.attributes} for s in spans)  # type: ignore[attr-defined]
    assert first["mcp.result_type"].string_value == "input_required"
    assert retry["mcp.result_type"].string_value == "complete"
    # both rounds in one trace (the client's traceparent), each a child of its own round's span
    assert len({s.trace_id for s in spans}) == 1  # type: ignore[attr-defined]
    assert len({s.parent_span_id for s in spans}) == 2 and all(s.parent_span_id for s in spans)  # type: ignore[attr-defined]
    resource = {kv.key: kv.value.string_value for kv in collector.requests[0].resource_spans[0].resource.attributes}
    assert resource["service.name"] == "mrtr-studio"


def test_a_bad_endpoint_is_said_before_the_window_opens(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "--otlp-endpoint", "collector:4318"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "--otlp-endpoint must be an http(s) URL like http://127.0.0.1:4318/v1/traces, not 'collector:4318'"]
