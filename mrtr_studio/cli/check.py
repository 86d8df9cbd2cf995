"""`mrtr-studio check URL|stdio:CMD [--tool NAME --args JSON ...] [--identity TOKEN ...] [--oauth ...] [--json]
[--junit FILE]`

Runs the lab's attacks (teaching/lab.py) and the protocol checks on each named tool of a server, prints
a MUST/SHOULD table with the wire evidence of every failure, writes JUnit XML, and exits 1 when a
MUST fails (2 for a usage error), so a server's CI can run it against a freshly started server.

Protocol checks: the first call is answered input_required with a state or complete; the state
echoed byte for byte (with answers) is accepted; a state that fails verification gets -32602
exactly; a missing capability gets -32021 with `requiredCapabilities` (or the handler adapts, never
asking for what was not declared); every response carries its request's id; over HTTP, a mirrored
header that contradicts the body is rejected with -32020; every message the server sent is valid
against the shipped schema and clean of the linter's server-side rules. Everything is recorded in
one trace (`--trace FILE` keeps it).

With the OAuth flags (the same as `call`'s), the server is checked as the identity the OAuth flow
authorizes: one `OAuthClient` serves every transport the checks open, so the flow runs once and its
token (refreshed when refused) goes on every request; `--identity` tokens are then further identities.
A server that refuses the checker (HTTP 401/403) cannot be checked: one line says so, exit 1.
"""

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..client.auto_answers import auto_respond
from ..client.driver import IdSource
from ..client.settings import ClientSettings
from ..protocol import jsonrpc, wire_json
from ..protocol.errors import HEADER_MISMATCH, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from ..protocol.roundtrip import Done, Event, Failed, NeedInput, RoundTrip, Send, result_kind
from ..protocol.versions import META_CLIENT_CAPABILITIES
from ..teaching.lab import ATTACKS, Lab, LabTarget
from ..trace import TraceStore, files, lint
from ..trace.recorder import Recorder
from ..transport.base import ClientTransport, TransportError, WireEvent
from . import baseline
from .check_deprecated import deprecated_check
from .check_report import (
    CheckResult,
    any_must_failed,
    json_document,
    print_table,
    terminal_text,
    verdict_for,
    wire,
    write_junit,
    write_report_files,
)
from .flags.auth import oauth_client_of, oauth_settings_of
from .sarif import write_sarif
from .targets import UsageError, make_transport

if TYPE_CHECKING:
    from ..auth.flow import OAuthClient

#: Lab attacks whose state fails verification: the spec requires a rejection (a MUST, whatever the code);
#: -32602 is the code it uses, checked apart as a SHOULD.
INVALID_STATE_ATTACKS = frozenset({"flip-signature", "flip-payload", "truncate", "invent"})
#: Linter rules that judge what a server sent.
SERVER_RULES = frozenset({lint.UNKNOWN_RESULT_TYPE, lint.INPUT_REQUIRED_EMPTY, lint.INPUT_REQUIRED_FORBIDDEN,
                          lint.CAPABILITY_NOT_DECLARED})
#: The identity the OAuth flow authorizes (not a possible bearer token: RFC 6750's b64token has no parentheses).
OAUTH_IDENTITY = "(oauth)"
#: How much of the header check's answer is read (a JSON-RPC error is a few hundred bytes).
HEADER_CHECK_BYTES = 64 * 1024


@dataclass
class ToolCase:
    name: str
    arguments: dict[str, Any]


class Unauthorized(TransportError):
    """The server refused the checker's requests with HTTP 401/403: nothing can be checked."""


class Checker:
    """Runs every check against one server and keeps the trace they produced.

    `oauth`: the run's one OAuth flow; it then acts as the first identity (OAUTH_IDENTITY) on every
    transport the checks open, and is closed with the checker."""

    def __init__(self, url: str, identities: list[str], timeout: float = 30.0,
                 oauth: "OAuthClient | None" = None) -> None:
        self.url = url
        self.oauth = oauth
        self.identities = [OAUTH_IDENTITY, *identities] if oauth is not None else identities
        self.timeout = timeout
        self.store = TraceStore()
        self.recorder = Recorder(self.store)
        lint.attach(self.store)
        self.ids = IdSource("check-")
        self.settings = ClientSettings(era="modern")
        self._transport: ClientTransport | None = None
        self._refused: int | None = None

    def connect(self, identity: str) -> ClientTransport:
        if identity == OAUTH_IDENTITY and self.oauth is not None:
            transport, _ = make_transport(self.url, None, auth=self.oauth)
        else:
            transport, _ = make_transport(self.url, identity or None)
        return transport

    @property
    def transport(self) -> ClientTransport:
        if self._transport is None:
            self._transport = self.connect(self.identities[0] if self.identities else "")
            self.recorder.attach(self._transport.tap)
            self._transport.tap.listen(self._watch_refusals)
        return self._transport

    def _watch_refusals(self, event: WireEvent) -> None:
        status = event.meta.get("http_status") if event.direction == "server->client" else None
        if isinstance(status, int):  # the last answer counts: an OAuth flow's 401 is followed by the retry's
            self._refused = status if status in (401, 403) else None

    async def send(self, message: dict[str, Any], op_id: str, round_number: int) -> dict[str, Any] | None:
        # The first request of an OAuth run waits for the flow (a person may be authorizing in a browser):
        # the transport's own limits and the redirect's timeout bound it, not the per-request timeout.
        authorizing = self.oauth is not None and self.oauth.authorization() is None
        self._refused = None
        with self.recorder.at(op_id, round_number):
            reply = await asyncio.wait_for(self.transport.send(message), None if authorizing else self.timeout)
        if self._refused is not None:
            raise Unauthorized(self.refusal(self._refused))
        return reply

    def refusal(self, status: int) -> str:
        identity = self.identities[0] if self.identities else ""
        if identity == OAUTH_IDENTITY:
            return f"HTTP {status}: the server refused the token the OAuth flow obtained"
        if identity:
            return f"HTTP {status}: the server refused the first --identity token"
        return (f"HTTP {status}: the server needs authorization; check it with --oauth (or "
                "--oauth-headless) to run its OAuth flow, or --identity TOKEN")

    def first_call(self, case: ToolCase, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        meta = self.settings.request_meta()
        if capabilities is not None:
            meta[META_CLIENT_CAPABILITIES] = capabilities
        return jsonrpc.request(self.ids(), "tools/call", {"name": case.name, "arguments": case.arguments,
                                                          "_meta": meta})

    def evidence(self, op_id: str, last: int = 2) -> list[str]:
        return [wire("->" if m.direction == "client->server" else "<-", m.message)
                for m in self.store.messages_of(op_id)[-last:]]

    async def close(self) -> None:
        try:
            if self._transport is not None:
                await self._transport.close()
        finally:
            if self.oauth is not None:
                await self.oauth.aclose()

    # --- the checks ------------------------------------------------------------------------

    async def run(self, cases: list[ToolCase]) -> list[CheckResult]:
        results: list[CheckResult] = []
        try:
            for case in cases:
                checks, state_rounds = await self.tool_checks(case)
                results += checks
                results += await self.lab_checks(case, state_rounds)
            if self.url.startswith(("http://", "https://")) and cases:
                results.append(await self.header_check(cases[0]))
        finally:
            await self.close()
        results += self.trace_checks()
        return results

    async def tool_checks(self, case: ToolCase) -> tuple[list[CheckResult], list[int]]:
        """The honest flow, every round through the one round-trip machine: its checks, and the rounds
        whose answer carried a requestState (each of which the lab then attacks)."""
        prefix = f"{case.name}: "
        op = self.store.begin_operation("tools/call", case.name, case.arguments, "modern", self.url, "check")
        machine = RoundTrip(self.first_call(case))
        step: Send | Failed = machine.start()
        event: Event | None = None
        state_rounds: list[int] = []
        while isinstance(step, Send):
            event = machine.receive(await self.send(step.message, op.id, step.round))
            if not isinstance(event, NeedInput):
                break
            if event.state is not None:
                state_rounds.append(event.round)
            step = machine.answer(await auto_respond(event.requests, event.round), self.ids())
        first = machine.rounds[0].response if machine.rounds else None
        kind, _ = result_kind(first)
        shape_ok = kind in ("complete", "input_required")
        results = [CheckResult(prefix + "first-round", "a first call is answered input_required or complete", "MUST",
                               verdict_for(shape_ok, "MUST"), f"answered {kind if kind != 'invalid' else 'an error'}",
                               [] if shape_ok else self.evidence(op.id))]
        done = isinstance(event, Done) and event.outcome == "complete"
        self.store.finish_operation(op.id, "complete" if done else "error")
        if kind != "input_required":
            results.append(CheckResult(prefix + "state-echo", "the state echoed byte for byte is accepted", "MUST",
                                       "skipped", "the tool asked for nothing"))
        else:
            results.append(CheckResult(prefix + "state-echo", "the state echoed byte for byte, with answers, is "
                                       "accepted until the call completes", "MUST", verdict_for(done, "MUST"),
                                       f"{machine.round} round(s)" + (f", requestState in round(s) "
                                       f"{', '.join(map(str, state_rounds))}" if state_rounds else ""),
                                       [] if done else self.evidence(op.id)))
        results.append(await self.capability_check(case))
        return results, state_rounds

    async def capability_check(self, case: ToolCase) -> CheckResult:
        title = "a missing capability gets -32021 with requiredCapabilities (or the handler adapts)"
        op = self.store.begin_operation("tools/call", case.name, case.arguments, "modern", self.url,
                                        "check: no capabilities")
        reply = await self.send(self.first_call(case, capabilities={}), op.id, 1)
        check_id = f"{case.name}: capability-error"
        error = reply.get("error") if isinstance(reply, dict) else None
        body = reply.get("result") if isinstance(reply, dict) else None
        self.store.finish_operation(op.id, "error" if error else "complete")
        if isinstance(error, dict) and error.get("code") == MISSING_REQUIRED_CLIENT_CAPABILITY:
            data = error.get("data")
            required = data.get("requiredCapabilities") if isinstance(data, dict) else None
            ok = isinstance(required, dict) and bool(required)
            return CheckResult(check_id, title, "MUST", verdict_for(ok, "MUST"),
                               f"requiredCapabilities {json.dumps(required)}" if ok
                               else "-32021 without a requiredCapabilities object in error.data",
                               [] if ok else self.evidence(op.id))
        if isinstance(body, dict) and body.get("resultType") == "input_required":
            asked = body.get("inputRequests")
            if isinstance(asked, dict) and asked:
                return CheckResult(check_id, title, "MUST", "fail", "asked for input from a client that declared no "
                                   "capabilities", self.evidence(op.id))
        shown = f"error {error.get('code')}" if isinstance(error, dict) else "a result"
        return CheckResult(check_id, title, "MUST", "pass", f"the handler adapted ({shown})")

    async def lab_checks(self, case: ToolCase, state_rounds: list[int]) -> list[CheckResult]:
        """The lab's attacks on the requestState of every round that carried one (a server may mint its
        state only in a later round: that state is as attackable as a first round's)."""
        if not state_rounds:
            return [CheckResult(f"{case.name}: lab", "the lab's attacks on the requestState", "MUST", "skipped",
                                "no round carried a requestState: nothing to attack")]
        results: list[CheckResult] = []
        for at_round in state_rounds:
            results += await self._lab_round(case, at_round, len(state_rounds) > 1 or at_round != 1)
        return results

    async def _lab_round(self, case: ToolCase, at_round: int, name_round: bool) -> list[CheckResult]:
        second = self.identities[1] if len(self.identities) > 1 else None
        target = LabTarget(connect=self.connect, identities=(self.identities[0] if self.identities else "", second),
                           label=self.url)
        lab = Lab(target, self.store, self.settings)
        suffix = f" round {at_round}" if name_round else ""
        try:
            run = await asyncio.wait_for(lab.run("tools/call", case.name, case.arguments, attacks=ATTACKS,
                                                 at_round=at_round), self.timeout * len(ATTACKS) * at_round)
        except (TransportError, TimeoutError) as exc:
            return [CheckResult(f"{case.name}: lab{suffix}", "the lab's attacks", "MUST", "fail",
                                f"could not run: {exc}")]
        results = []
        codes: list[int | None] = []
        for result in run.results:
            attack = result.attack
            verdict: Any = result.verdict
            detail = f"{result.status}: {result.answer}"
            if attack.id in INVALID_STATE_ATTACKS and result.status == "rejected":
                codes.append(result.code)
            if verdict == "skipped":
                detail = f"not run: {result.detail}" if result.detail else "not run"
            evidence = self.evidence(result.operation_id) if result.operation_id and verdict in ("fail", "warn") \
                else []
            title = attack.requirement + (f" ({result.detail})" if result.detail and verdict != "skipped" else "")
            results.append(CheckResult(f"{case.name}: lab {attack.id}{suffix}", title, attack.level, verdict, detail,
                                       evidence))
        if codes:
            wrong = [c for c in codes if c != INVALID_PARAMS]
            seen = sorted({"no code" if c is None else str(c) for c in codes})
            results.append(CheckResult(
                f"{case.name}: rejection-code{suffix}", f"a state that fails verification is rejected with "
                f"{INVALID_PARAMS} (Invalid params), naming the failed check in data.reason", "SHOULD",
                verdict_for(not wrong, "SHOULD"),
                f"rejected with {', '.join(seen)}" + ("" if not wrong else
                                                                   f"; {INVALID_PARAMS} is the code the spec's "
                                                                   "examples use")))
        return results

    async def header_check(self, case: ToolCase) -> CheckResult:
        import httpx

        from ..transport.mcp_headers import ACCEPT, modern_headers

        title = "a mirrored header that contradicts the body is rejected with -32020"
        message = self.first_call(case)
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **modern_headers(message),
                   "Mcp-Name": case.name + "-not-this-one"}
        authorization = self.oauth.authorization() if self.oauth is not None else None
        if authorization:
            headers["Authorization"] = authorization
        elif self.oauth is None and self.identities and self.identities[0]:
            headers["Authorization"] = f"Bearer {self.identities[0]}"
        async def post() -> tuple[int, bytes]:
            # Streamed and capped: a trickling or endless answer ends at the timeout or at HEADER_CHECK_BYTES.
            async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as http, \
                    http.stream("POST", self.url, json=message, headers=headers) as answer:
                body = b""
                async for chunk in answer.aiter_bytes():
                    body += chunk
                    if len(body) >= HEADER_CHECK_BYTES:
                        break
                return answer.status_code, body[:HEADER_CHECK_BYTES]

        try:
            status, raw = await asyncio.wait_for(post(), self.timeout)
        except (httpx.HTTPError, TimeoutError) as exc:
            return CheckResult("header-mirroring", title, "MUST", "fail",
                               f"no answer within {self.timeout:g} s: {type(exc).__name__}: {exc}")
        text = raw.decode("utf-8", errors="replace")[:2000]
        body = _json_answer(raw)
        error = body.get("error") if isinstance(body, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        ok = code == HEADER_MISMATCH
        evidence = [wire("->", f"Mcp-Name: {headers['Mcp-Name']} with params.name {case.name!r}"),
                    wire("<-", f"HTTP {status} {text}")]
        return CheckResult("header-mirroring", title, "MUST", verdict_for(ok, "MUST"),
                           f"HTTP {status}, " + (f"error {code}" if code is not None else "no error"),
                           [] if ok else evidence)

    def trace_checks(self) -> list[CheckResult]:
        """Over everything recorded: ids echoed, schema validity, the linter's server-side rules. An HTTP
        401/403 and the OAuth flow's exchanges are the authorization layer's, not MCP answers: not judged."""
        bad_ids, invalid, server_lint = [], [], []
        judged = 0
        for op in self.store.operations:
            messages = self.store.messages_of(op.id)
            requests = {m.jsonrpc_id for m in messages if m.kind == "request"}
            for m in messages:
                if m.direction != "server->client" or m.kind == "auth" or m.transport.get("http_status") in (401, 403):
                    continue
                judged += 1
                if m.kind in ("complete", "input_required", "error") and m.jsonrpc_id not in requests \
                        and not (m.kind == "error" and m.jsonrpc_id is None):
                    bad_ids.append(wire("<-", m.message))
                for f in m.findings:
                    if f.rule == lint.SCHEMA_INVALID and f.severity == "error":
                        invalid.append(f"{f.message} | " + wire("<-", m.message))
                    elif f.rule in SERVER_RULES:
                        server_lint.append(f"{f.rule}: {f.message} | " + wire("<-", m.message))
        return [
            CheckResult("response-ids", "every response carries the id of the request it answers", "MUST",
                        verdict_for(not bad_ids, "MUST"), f"{len(bad_ids)} response(s) with an unknown id"
                        if bad_ids else "", bad_ids[:3]),
            CheckResult("schema-valid", "every message the server sent is valid against the shipped schema", "MUST",
                        verdict_for(not invalid, "MUST"), f"{len(invalid)} invalid message(s)" if invalid else
                        f"{judged} message(s)",
                        invalid[:3]),
            CheckResult("server-lint", "no server-side lint findings (resultType, empty input_required, input "
                        "asked of a legacy request or beyond the declared capabilities)", "MUST",
                        verdict_for(not server_lint, "MUST"), f"{len(server_lint)} finding(s)" if server_lint else "",
                        server_lint[:3]),
        ]




def _json_answer(raw: bytes) -> Any:
    """The JSON-RPC answer in a capped body: plain JSON, or the first SSE data line holding one."""
    text = raw.decode("utf-8", errors="replace")
    candidates = [text] + [line[5:] for line in text.splitlines() if line.startswith("data:")]
    for candidate in candidates:
        try:
            return wire_json.loads(candidate.encode())
        except ValueError:
            continue
    return None


def tool_cases(names: list[str], arguments: list[str]) -> list[ToolCase]:
    if len(arguments) > len(names):
        raise UsageError("each --args belongs to the --tool before it; there are more --args than --tool")
    cases = []
    for index, name in enumerate(names):
        text = arguments[index] if index < len(arguments) else "{}"
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"--args for {name!r} is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError(f"--args for {name!r} must be a JSON object")
        cases.append(ToolCase(name, value))
    return cases


def run_check(args: argparse.Namespace) -> int:
    try:
        cases = tool_cases(args.tool, args.args)
        if not cases and not baseline.wanted(args):
            raise UsageError("name at least one --tool to check (it is called for real)")
        drift_baseline = baseline.load_baseline(args)
        make_transport(args.url, None)  # the URL's form, before anything runs
        oauth_settings = oauth_settings_of(args)
        if oauth_settings is not None and not args.url.startswith(("http://", "https://")):
            raise UsageError("the OAuth flags need an http(s):// URL")
    except (UsageError, ValueError) as exc:
        print(f"mrtr-studio check: {exc}", file=sys.stderr)
        return 2
    oauth = oauth_client_of(args, args.url, oauth_settings) if oauth_settings is not None else None
    checker = Checker(args.url, args.identity, args.timeout, oauth)
    try:
        results = asyncio.run(checker.run(cases)) if cases else []
        if baseline.wanted(args):
            results += baseline.baseline_results(args, drift_baseline)
    except (TransportError, OSError, TimeoutError) as exc:
        print(f"mrtr-studio check: cannot check {terminal_text(args.url)}: {terminal_text(str(exc))}",
              file=sys.stderr)
        return 1
    except Exception as exc:  # a server so broken that a check itself failed: say so, no traceback
        print(f"mrtr-studio check: checking {terminal_text(args.url)} failed: {type(exc).__name__}: "
              f"{terminal_text(str(exc))}", file=sys.stderr)
        return 1
    results.append(deprecated_check(checker.store, "deprecated" in (getattr(args, "fail_on", None) or [])))
    secrets = [token for token in args.identity if token]
    written = write_report_files("check", [
        ("--trace", args.trace, lambda path: files.save(path, checker.store)),
        ("--junit", args.junit, lambda path: write_junit(path, args.url, results, secrets=secrets)),
        ("--sarif", getattr(args, "sarif", None), lambda path: write_sarif(path, args.url, results, secrets=secrets)),
    ])
    if args.json:
        print(json.dumps(json_document(args.url, results, secrets=secrets), indent=2, ensure_ascii=True))
    else:
        print_table(args.url, results, sys.stdout, secrets=secrets)
    return 1 if any_must_failed(results) or not written else 0
