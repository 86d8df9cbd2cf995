"""The named demo runs behind `--scenario NAME`: what to call, with which client, and what to break."""

from dataclasses import dataclass, field

from ..client.call_plan import ClientCall
from ..client.settings import ALL_CAPABILITIES


@dataclass(frozen=True)
class DemoRun(ClientCall):
    #: The `--scenario` name and what the scenario shows.
    name: str = field(kw_only=True)
    title: str = field(kw_only=True)
    #: An identity preset (IDENTITY_PRESETS).
    identity: str = "anonymous"
    #: A tamper applied to the first retry that carries a requestState (see Studio.tamper).
    tamper: str | None = None
    #: What the run is expected to end with: "complete" or a JSON-RPC error code.
    expect: str | int = "complete"


DEMO_RUNS: dict[str, DemoRun] = {run.name: run for run in (
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"},
            name="delete_file", title="Delete a file after a confirmation (two rounds)"),
    DemoRun("tools/call", "deploy_wizard",
            name="deploy_wizard", title="A three-step wizard carrying its answers in requestState"),
    DemoRun("tools/call", "summarize", {"text": "MRTR lets a server ask the client for input inside one request."},
            name="summarize", title="Sampling: the server asks the client's LLM"),
    DemoRun("tools/call", "count_roots",
            name="count_roots", title="Roots: the server asks which folders the client exposes"),
    DemoRun("tools/call", "connect_account", {"service": "github"},
            name="connect_account", title="URL-mode elicitation: consent happens in the browser"),
    DemoRun("prompts/get", "code_review", {"code": "def add(a, b):\n    return a + b\n"},
            name="code_review", title="A prompt that asks what to focus on"),
    DemoRun("resources/read", "config://secrets",
            name="secrets", title="A resource that asks before revealing"),
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, era="legacy", expect=-32603,
            name="legacy_delete_file", title="A legacy (2025-11-25) client: input_required is refused with -32603"),
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, capabilities=ALL_CAPABILITIES - {"elicitation"},
            expect=-32021, name="missing_capability", title="Elicitation not declared: the server answers -32021"),
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, tamper="signature", expect=-32602,
            name="tampered_state", title="The requestState is altered before the retry: -32602 (signature)"),
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, tamper="expire", expect=-32602,
            name="expired_state", title="The clock moves past the state's lifetime before the retry: -32602 (expired)"),
    DemoRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, identity="alice", tamper="identity:bob",
            expect=-32602, name="identity_swap", title="alice starts, bob retries with her state: -32602 (principal)"),
    DemoRun("tools/call", "long_report", {"sections": 4, "seconds_per_section": 0.6},
            capabilities=ALL_CAPABILITIES | {"tasks"},
            name="long_report", title="A long job as a task (SEP-2663): polled, asks half-way, then completes"),
)}
