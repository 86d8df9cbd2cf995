"""Collections in the window: an operation of the list saved as a call of a collection file (the
format `mrtr-studio run` reads, client/collection.py), and a collection file run through the window's
own runner, so each call is an operation in the list, its assertions judged by the same evaluator as
`run` (client/collection_run.py).

Saving takes what the operation ran with: its server (the embedded engine is `memory:`), era,
capabilities and identity, its arguments, and the answers that were given (every retry's
inputResponses by key; a legacy flow's answers to server requests by method). With an environment
name, the target is written as `${URL}` (or `${URL_2}`… when the environment already names another
server) and the environment gets its value. A bearer token is never written: the call names
`${NAME_TOKEN}`, read from the process environment when it runs. Assertions can be taken from the
operation's result: how it ended (resultType complete or the error code), the rounds, the inputs
asked, the first text content. The file is appended to (created when missing), written 0600; a file
that cannot be read or is not a collection is a CollectionError naming the problem, and nothing is
written.

Running borrows the connection for each call (its server, era, capabilities, identity, and the
call's answers in place of the window's dialogs) and gives it back after, whatever happened.
"""

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client.collection import (
    DEFAULT_CAPABILITIES,
    Collection,
    CollectionError,
    Outcome,
    SavedCall,
    Verdict,
    check_call,
    load_collection,
    read_document,
)
from ..client.collection_run import outcome_of, respond_for, verdicts_for
from ..protocol.versions import MRTR_METHODS
from ..trace import TraceStore
from ..trace.model import result_of
from ..trace.private_files import write_private
from .controller import Studio
from .identities import IDENTITY_PRESETS, Identity, custom_identity
from .operations import OperationRow, RunSettings
from .server_entries import ServerEntry, target_entry

_COLLECTION_CAPABILITIES = frozenset({"elicitation", "elicitation.url", "sampling", "roots", "tasks"})
_NAME = re.compile(r"[^A-Za-z0-9_]+")


@dataclass(frozen=True)
class AssertionChoice:
    """Which assertions to take from the operation's result."""

    ends_the_same: bool = True
    same_rounds: bool = True
    same_inputs: bool = False
    same_text: bool = False


@dataclass(frozen=True)
class Saved:
    """What saving did, for the window to say: the file, the call's name in it, whether the file is new."""

    path: Path
    name: str
    created: bool
    #: Variables the call needs from the process environment (bearer tokens), to tell the person.
    from_process: tuple[str, ...] = ()


@dataclass
class CallResult:
    call: SavedCall
    operation_id: str | None
    outcome: Outcome
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts)


# --- saving ---------------------------------------------------------------------------------------

def target_of(entry: ServerEntry | None, server: str) -> str:
    """The command line's form of where an operation ran (`memory:` for the embedded engine)."""
    if entry is not None:
        if entry.kind == "embedded":
            return "memory:"
        return entry.url if entry.kind == "http" else "stdio:" + entry.command_line
    if server == "embedded":
        return "memory:"
    if server.startswith(("http://", "https://")):
        return server
    raise CollectionError(f"cannot tell which server this operation ran against ({server!r}); only operations "
                          "run from this window, or recorded against the embedded engine or a URL, can be saved")


def identity_of(client: dict[str, Any]) -> Identity:
    """The identity the client panel's saved settings name (preset or custom)."""
    name = client.get("identity")
    if isinstance(name, str) and name in IDENTITY_PRESETS:
        return IDENTITY_PRESETS[name]
    user = client.get("custom_user")
    if name == "custom" and isinstance(user, str) and user.strip():
        token = client.get("custom_token")
        return custom_identity(user, token if isinstance(token, str) else None)
    return IDENTITY_PRESETS["anonymous"]


def answers_given(store: TraceStore, operation_id: str) -> dict[str, dict[str, Any]]:
    """Every answer the operation's rounds sent: inputResponses by key (the last one of a key wins),
    and a legacy flow's responses to server requests by the request's method."""
    answers: dict[str, dict[str, Any]] = {}
    for entry in store.messages_of(operation_id):
        if entry.direction != "client->server" or not isinstance(entry.message, dict):
            continue
        if entry.kind == "request":
            params = entry.message.get("params")
            given = params.get("inputResponses") if isinstance(params, dict) else None
            if isinstance(given, dict):
                answers.update({str(k): v for k, v in given.items() if isinstance(v, dict)})
        elif entry.kind == "client_response" and isinstance(entry.message.get("result"), dict) and entry.method_name:
            answers[entry.method_name] = entry.message["result"]
    return answers


def assertions_from(store: TraceStore, row: OperationRow, choice: AssertionChoice) -> list[dict[str, Any]]:
    op = row.operation
    messages = store.messages_of(op.id)
    final = next((m for m in reversed(messages) if m.direction == "server->client"
                  and m.kind in ("complete", "error")), None)
    result = result_of(final.message) if final is not None and final.kind == "complete" else {}
    out: list[dict[str, Any]] = []
    if choice.ends_the_same:
        if op.outcome == "complete":
            out.append({"path": "$.resultType", "equals": "complete"} if result.get("resultType") == "complete"
                       else {"schema": {"type": "object"}})
        elif op.error_code is not None:
            out.append({"errorCode": op.error_code})
    if choice.same_rounds and op.rounds:
        out.append({"rounds": op.rounds})
    if choice.same_inputs:
        asked: list[str] = []
        for entry in messages:
            if entry.kind == "input_required":
                requests = result_of(entry.message).get("inputRequests")
                asked += [str(k) for k in requests] if isinstance(requests, dict) else []
        out.append({"inputsAsked": asked})
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    if choice.same_text and isinstance(first.get("text"), str):
        out.append({"path": "$.content[0].text", "equals": first["text"]})
    return out


def call_from(store: TraceStore, row: OperationRow, name: str,
              choice: AssertionChoice) -> tuple[dict[str, Any], Identity]:
    """The call, written literally (target, identity as they are), and the identity it ran as."""
    op = row.operation
    if op.method not in MRTR_METHODS:
        raise CollectionError(f"only tools/call, prompts/get and resources/read can be saved, not {op.method}")
    settings = row.settings
    client = settings.client if settings is not None else {}
    entry = settings.entry if settings is not None else None
    target = target_of(entry, op.server)
    era = client.get("era") if client.get("era") in ("modern", "legacy", "auto") else op.era
    caps = client.get("capabilities")
    capabilities = [c for c in caps if c in _COLLECTION_CAPABILITIES] if isinstance(caps, list) \
        else list(DEFAULT_CAPABILITIES)
    identity = identity_of(client)
    key = {"tools/call": "tool", "prompts/get": "prompt", "resources/read": "resource"}[op.method]
    call: dict[str, Any] = {"name": name.strip() or f"{op.target}", "target": target, key: op.target}
    if op.method != "resources/read":
        call["arguments"] = dict(op.arguments)
    call["era"] = era if era in ("modern", "legacy", "auto") else "modern"
    call["capabilities"] = capabilities
    who = identity.user if target == "memory:" else identity.bearer
    if who:
        call["identity"] = who
    answers = answers_given(store, op.id)
    if answers:
        call["answers"] = answers
    assertions = assertions_from(store, row, choice)
    if assertions:
        call["assert"] = assertions
    check_call(call, "the call")
    return call, identity


def _free_variable(values: dict[str, str], base: str, value: str) -> str:
    name, number = base, 1
    while name in values and values[name] != value:
        number += 1
        name = f"{base}_{number}"
    return name


def save_call(path: str | Path, call: dict[str, Any], identity: Identity, environment: str = "") -> Saved:
    """Append `call` to the collection at `path` (created when missing); CollectionError when the file
    is there but is not a collection, and then nothing is written."""
    path, call = Path(path), dict(call)
    in_memory = call["target"] == "memory:"  # its identity is a principal's name, not a secret
    created = not path.exists()
    document = Collection(calls=[{}]) if created else read_document(path)
    calls = [] if created else list(document.calls)
    names = {str(c.get("name")) for c in calls}
    base, number = call["name"], 1
    while call["name"] in names:
        number += 1
        call["name"] = f"{base} ({number})"
    needs: list[str] = []
    if environment:
        values = document.environments.setdefault(environment, {})
        variable = _free_variable(values, "URL", call["target"])
        values[variable] = call["target"]
        call["target"] = f"${{{variable}}}"
    if "identity" in call and not in_memory and identity.bearer:
        variable = (_NAME.sub("_", identity.name).strip("_").upper() or "BEARER") + "_TOKEN"
        call["identity"] = f"${{{variable}}}"
        needs.append(variable)
    calls.append(call)
    out = {"version": 1, "variables": document.variables, "environments": document.environments, "calls": calls}
    written = write_private(path, json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    return Saved(written, call["name"], created, tuple(needs))


def environments(path: str | Path) -> list[str]:
    """The environments a collection file names (CollectionError when it cannot be read)."""
    return list(read_document(path).environments)


# --- running ---------------------------------------------------------------------------------------

def entry_for(target: str) -> ServerEntry:
    try:
        entry = target_entry(target)
    except ValueError as exc:  # stdio: without a command, an unclosed quote
        raise CollectionError(f"target {target!r}: {exc}") from None
    if entry is None:
        raise CollectionError(f"unsupported target {target!r}: use http(s)://…, stdio:COMMAND or memory:")
    return entry


def run_settings(call: SavedCall) -> RunSettings:
    """How a collection's call ran, as the operations list keeps it (Run again, Save to collection)."""
    method, target = call.method
    entry = entry_for(call.target)
    who = call.identity or ""
    preset = next((name for name, known in IDENTITY_PRESETS.items()
                   if who and (known.user == who if entry.kind == "embedded" else known.bearer == who)), None)
    identity = preset or ("custom" if who else "anonymous")
    client = {"era": call.era, "capabilities": list(call.capabilities), "identity": identity,
              "custom_user": "" if preset or entry.kind != "embedded" else who,
              "custom_token": "" if preset or entry.kind == "embedded" else who}
    return RunSettings(method, target, dict(call.arguments), preset or ("collection" if who else "anonymous"),
                       client, entry)


class CollectionRuns:
    """Runs collection files through the studio's runner, one call after the other."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio

    async def load(self, path: str | Path, environment: str | None) -> list[SavedCall]:
        calls = await asyncio.to_thread(load_collection, path, environment)
        for call in calls:
            try:
                entry_for(call.target)
            except (CollectionError, ValueError) as exc:
                raise CollectionError(f"{call.name}: {exc}") from exc
        return calls

    async def run(self, path: str | Path, environment: str | None = None,
                  on_result: Callable[[CallResult], None] | None = None) -> list[CallResult]:
        """Every call of the file, in order (CollectionError before any runs when the file is bad)."""
        if self.studio.busy:
            raise CollectionError("stop the running operation before running a collection")
        calls = await self.load(path, environment)
        results = []
        for call in calls:
            result = await self.run_call(call)
            results.append(result)
            if on_result is not None:
                on_result(result)
        return results

    async def run_call(self, call: SavedCall) -> CallResult:
        studio = self.studio
        method, target = call.method
        started = time.monotonic()
        errors_before = studio.events.last_error
        async with self._borrowed(call):
            with contextlib.suppress(Exception):  # a tool's x-mcp-header parameters, as `run` learns them
                session = await studio.connection.client()
                if method == "tools/call" and hasattr(session.transport, "header_params"):
                    await session.list_tools()
            run = await studio.runner.run(method, target, None if method == "resources/read" else call.arguments)
            operation_id = studio.runner.current_operation_id
        problem = None
        if run is None:
            op = studio.store.operation(operation_id) if operation_id else None
            said = studio.events.last_error if studio.events.last_error != errors_before else None
            problem = (op.problem if op is not None else None) or said or "the call did not run"
        outcome = outcome_of(run, (time.monotonic() - started) * 1000, problem)
        return CallResult(call, operation_id, outcome, verdicts_for(call, outcome))

    @contextlib.asynccontextmanager
    async def _borrowed(self, call: SavedCall) -> AsyncIterator[None]:
        """The connection set to the call's server, era, capabilities, identity, round limit and answers,
        then put back."""
        studio, connection = self.studio, self.studio.connection
        kept = (connection.entry, connection.era, connection.capabilities, connection.identity, studio.answerer,
                connection.max_rounds)
        entry = entry_for(call.target)
        who = call.identity or ""
        identity = Identity(who or "anonymous", who) if entry.kind == "embedded" else \
            Identity("collection" if who else "anonymous", "", who or None)
        await connection.drop_session()
        connection.entry, connection.era = entry, call.era
        connection.capabilities = frozenset(call.capabilities)
        connection.identity, studio.answerer = identity, respond_for(call)
        connection.max_rounds = call.max_rounds
        connection.stale = True
        try:
            yield
        finally:
            await connection.drop_session()
            (connection.entry, connection.era, connection.capabilities, connection.identity, studio.answerer,
             connection.max_rounds) = kept
            connection.stale = True
