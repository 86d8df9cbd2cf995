"""The named demo runs behind `--scenario NAME`: what to call, with which client, and what to break."""

from dataclasses import dataclass, field
from typing import Any

from ..client.settings import ALL_CAPABILITIES, EraChoice


@dataclass(frozen=True)
class DemoRun:
    name: str
    title: str
    method: str
    target: str
    arguments: dict[str, Any] = field(default_factory=dict)
    era: EraChoice = "modern"
    capabilities: frozenset[str] = ALL_CAPABILITIES
    identity: str = "anonymous"
    #: A tamper applied to the first retry that carries a requestState (see Studio.tamper).
    tamper: str | None = None
    #: What the run is expected to end with: "complete" or a JSON-RPC error code.
    expect: str | int = "complete"


DEMO_RUNS: dict[str, DemoRun] = {run.name: run for run in (
    DemoRun("delete_file", "Delete a file after a confirmation (two rounds)", "tools/call", "delete_file",
            {"path": "/tmp/report.txt"}),
    DemoRun("deploy_wizard", "A three-step wizard carrying its answers in requestState", "tools/call",
            "deploy_wizard"),
    DemoRun("summarize", "Sampling: the server asks the client's LLM", "tools/call", "summarize",
            {"text": "MRTR lets a server ask the client for input inside one request."}),
    DemoRun("count_roots", "Roots: the server asks which folders the client exposes", "tools/call", "count_roots"),
    DemoRun("connect_account", "URL-mode elicitation: consent happens in the browser", "tools/call",
            "connect_account", {"service": "github"}),
    DemoRun("code_review", "A prompt that asks what to focus on", "prompts/get", "code_review",
            {"code": "def add(a, b):\n    return a + b\n"}),
    DemoRun("secrets", "A resource that asks before revealing", "resources/read", "config://secrets"),
    DemoRun("legacy_delete_file", "A legacy (2025-11-25) client: input_required is refused with -32603",
            "tools/call", "delete_file", {"path": "/tmp/report.txt"}, era="legacy", expect=-32603),
    DemoRun("missing_capability", "Elicitation not declared: the server answers -32021", "tools/call",
            "delete_file", {"path": "/tmp/report.txt"},
            capabilities=ALL_CAPABILITIES - {"elicitation"}, expect=-32021),
    DemoRun("tampered_state", "The requestState is altered before the retry: -32602 (signature)", "tools/call",
            "delete_file", {"path": "/tmp/report.txt"}, tamper="signature", expect=-32602),
    DemoRun("expired_state", "The clock moves past the state's lifetime before the retry: -32602 (expired)",
            "tools/call", "delete_file", {"path": "/tmp/report.txt"}, tamper="expire", expect=-32602),
    DemoRun("identity_swap", "alice starts, bob retries with her state: -32602 (principal)", "tools/call",
            "delete_file", {"path": "/tmp/report.txt"}, identity="alice", tamper="identity:bob", expect=-32602),
    DemoRun("long_report", "A long job as a task (SEP-2663): polled, asks half-way, then completes", "tools/call",
            "long_report", {"sections": 4, "seconds_per_section": 0.6}, capabilities=ALL_CAPABILITIES | {"tasks"}),
)}
