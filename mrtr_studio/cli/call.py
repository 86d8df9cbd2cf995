"""`mrtr-studio call`: run one operation headless through every round.

URL forms: `http(s)://host/mcp` (Streamable HTTP), `stdio:COMMAND ARGS` (spawn a server and talk
JSON lines; the rest is split like a shell would), `memory:` (the embedded demo engine; `--bearer`
is then the principal's name). Answers come from `--answers FILE` (input key, then method name,
then `"*"`), else from the terminal; sampling falls back to echoing the prompt and roots to the
current directory. Stdout carries the result (or the `--json` document); prompts, the step view
and the one-line failure reason go to stderr, so scripts can parse stdout.

Exit codes: 0 when the operation completed and its result is not an error (`isError`), 1 when
it failed, 2 for bad command-line input, 141 (128 + SIGPIPE, the shell's convention) when the reader
of stdout went away (`call ... --json | head`), quietly.
"""

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..client import responders as R
from ..client.driver import DriveResult, Respond
from ..client.session import ClientSession, StepHook
from ..client.settings import ClientSettings, parse_flags
from ..protocol.peer_text import printable
from ..protocol.roundtrip import result_type_of
from ..trace import files
from ..transport.base import TransportError
from .check_report import terminal_text
from .flags.auth import oauth_client_of, oauth_settings_of
from .targets import UsageError, limits_from, make_transport

if TYPE_CHECKING:
    from ..auth.flow import OAuthSettings

#: Exit status when stdout's reader closed the pipe: what a process killed by SIGPIPE reports.
EXIT_BROKEN_PIPE = 128 + 13


def make_respond(answers: R.AnswersFile | None, step: bool, terminal: R.Terminal) -> Respond:
    """Answers file first; the terminal when there is no file or when stepping; then safe defaults."""

    def chain(*parts: R.Answer | None) -> R.Answer:
        return R.first_of(*[p for p in parts if p is not None])

    ask = step or answers is None
    return R.compose(
        elicitation=chain(answers, terminal.elicit if ask else None),
        url=chain(answers, terminal.consent if ask else None),
        sampling=chain(answers, terminal.sample if step else None, R.echo),
        roots=chain(answers, R.RootsList.of([Path.cwd().as_uri()])),
        other=chain(answers),
    )


def step_hook(terminal: R.Terminal) -> StepHook:
    """Show each message before it is sent; let the person edit inputResponses and requestState."""

    async def step(message: dict[str, Any], round_number: int) -> dict[str, Any] | None:
        params = message.setdefault("params", {})
        while True:
            terminal.stdout.write(f"--- round {round_number}: about to send ---\n{json.dumps(message, indent=2)}\n")
            choice = terminal.ask("[enter] send, r edit inputResponses, s edit requestState, q stop: ").strip()
            if choice == "":
                return message
            if choice == "q":
                return None
            if choice == "r":
                raw = terminal.ask("inputResponses as one JSON object ('-' removes it): ").strip()
                if raw == "-":
                    params.pop("inputResponses", None)
                    continue
                try:
                    value = json.loads(raw)
                except ValueError as exc:
                    terminal.stdout.write(f"not JSON: {exc}\n")
                    continue
                params["inputResponses"] = value
            elif choice == "s":
                raw = terminal.ask("requestState, sent exactly as typed ('-' removes it): ")
                if raw == "-":
                    params.pop("requestState", None)
                else:
                    params["requestState"] = raw

    return step


def json_document(drive: DriveResult) -> dict[str, Any]:
    error: Any = None
    if drive.outcome == "error":
        error = drive.error
    elif not drive.ok:
        error = {"outcome": drive.outcome, "message": drive.problem}
    document = {"result": drive.result, "error": error,
                "rounds": [{"request": r.request, "response": r.response} for r in drive.rounds]}
    if drive.task is not None:
        document["task"] = drive.task
    return document


def reason(drive: DriveResult) -> str:
    if drive.outcome == "error" and drive.error:
        error = drive.error
        data = error.get("data")
        why = f" ({json.dumps(data, separators=(',', ':'))})" if data is not None else ""
        told = f"; {drive.problem}" if drive.problem else ""
        return f"error {error.get('code')} {error.get('message')}{why}{told}"
    return f"{drive.outcome}: {drive.problem}"


def describe(drive: DriveResult, out: TextIO) -> None:
    """The human summary: one line per message of each round, then the result's text."""
    for number, entry in enumerate(drive.rounds, start=1):
        params = entry.request.get("params") or {}
        extra = [f"inputResponses: {', '.join(params['inputResponses'])}"] if "inputResponses" in params else []
        extra += ["requestState"] if "requestState" in params else []
        target = params.get("name") or params.get("uri") or ""
        out.write(f"round {number} -> {entry.request.get('method')} {target} (id {entry.request.get('id')})"
                  + (f" {'; '.join(extra)}" if extra else "") + "\n")
        response = entry.response if isinstance(entry.response, dict) else {}
        body = response.get("result")
        if isinstance(body, dict) and result_type_of(body) == "input_required":
            asked = [f"{k} ({v.get('method') if isinstance(v, dict) else '?'})"
                     for k, v in (body.get("inputRequests") or {}).items()]
            asked += ["requestState"] if "requestState" in body else []
            out.write(f"round {number} <- input_required: {', '.join(asked)}\n")
        elif isinstance(response.get("error"), dict):
            out.write(f"round {number} <- error {response['error'].get('code')} {response['error'].get('message')}\n")
        elif "error" in response:
            out.write(f"round {number} <- an error that is not an object: {json.dumps(response['error'])[:80]}\n")
        elif isinstance(body, dict) and result_type_of(body) == "task":
            out.write(f"round {number} <- task {body.get('taskId')} ({body.get('status')})\n")
        elif isinstance(body, dict):
            out.write(f"round {number} <- complete\n")
    if drive.task is not None:
        out.write(f"task {drive.task['taskId']}: {drive.task['status']} after {drive.task['polls']} poll(s), "
                  f"{drive.task['inputRounds']} input round(s)\n")
    if drive.result is not None:
        for text in result_texts(drive.result):
            out.write(text + "\n")


def _items(result: dict[str, Any], key: str) -> list[Any]:
    value = result.get(key)
    return value if isinstance(value, list) else []


def result_texts(result: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for block in _items(result, "content"):
        texts.append(str(block.get("text", json.dumps(block))) if isinstance(block, dict) else json.dumps(block))
    for message in _items(result, "messages"):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, dict):
            texts.append(f"[{message.get('role')}] {content.get('text', json.dumps(content))}")
    for item in _items(result, "contents"):
        if isinstance(item, dict):
            texts.append(f"{item.get('uri')}: {item.get('text', '(binary)')}")
    return texts


def tool_error(drive: DriveResult) -> str | None:
    """The text of a complete result that is the tool's own error (`isError: true`), else None."""
    if not drive.ok or not isinstance(drive.result, dict) or drive.result.get("isError") is not True:
        return None
    texts = result_texts(drive.result)
    return f"the tool reported an error: {texts[0][:300] if texts else '(no text)'}"


def era_hint(drive: DriveResult, era: str) -> str:
    """A hint when `--era modern` met a server that does not speak 2026-07-28 (say why, suggest auto)."""
    if era != "modern" or drive.outcome != "error" or not drive.problem or len(drive.rounds) != 1:
        return ""
    return ("; it does not seem to speak 2026-07-28 (a legacy server answers so when there is no session): "
            "try --era auto")


async def _run(args: argparse.Namespace, arguments: dict[str, Any], settings: ClientSettings,
               answers: R.AnswersFile | None, oauth_settings: "OAuthSettings | None" = None,
               ) -> tuple[DriveResult | None, str | None]:
    terminal = R.Terminal(sys.stdin, sys.stderr)
    oauth = oauth_client_of(args, args.url, oauth_settings) if oauth_settings is not None \
        and args.url.startswith(("http://", "https://")) else None
    transport, label = make_transport(args.url, args.bearer, settings.limits, oauth)
    session = ClientSession(transport, settings, make_respond(answers, args.step, terminal), server_label=label)
    method, target = (("tools/call", args.tool) if args.tool else ("prompts/get", args.prompt) if args.prompt
                      else ("resources/read", args.resource))
    try:
        if method == "tools/call" and hasattr(transport, "header_params"):
            # Learn the tool's x-mcp-header parameters first, as a client MUST mirror them over HTTP.
            with contextlib.suppress(RuntimeError, ConnectionError, TransportError):  # the run reports those
                await session.list_tools()
        run = await session.run(method, target, None if method == "resources/read" else arguments,
                                step=step_hook(terminal) if args.step else None)
        if getattr(args, "trace", None):
            files.save(args.trace, session.store)
        return run.final, None
    except Exception as exc:  # era handshake or probe failures happen before any round
        return None, f"{type(exc).__name__}: {exc}"
    finally:
        await session.close()
        if oauth is not None:
            await oauth.aclose()


def run_call(args: argparse.Namespace) -> int:
    try:
        return _run_call(args)
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): nothing more can be shown; leave without a traceback,
        # and point stdout at /dev/null so the interpreter's final flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def answer_warning(line: str) -> str:
    """A warning about an answer, as stderr shows it: the line quotes the server's schema (its patterns,
    formats), so it is escaped for the terminal."""
    return f"mrtr-studio call: warning: {terminal_text(line)}"


def _run_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
        if not isinstance(arguments, dict):
            raise UsageError(f"--args must be a JSON object, not {args.args!r}")
        flags = parse_flags(args.caps)
        answers = R.AnswersFile.load(args.answers) if args.answers else None
        if answers is not None:  # an answer that breaks its question's schema is sent, and said so
            answers.warn = lambda line: print(answer_warning(line), file=sys.stderr)
        settings = ClientSettings(era=args.era, capabilities=flags, bearer_token=args.bearer, user=args.bearer or "",
                                  max_rounds=getattr(args, "max_rounds", 10), limits=limits_from(args))
        oauth_settings = oauth_settings_of(args)
        if not args.url.startswith(("http://", "https://", "stdio:")) and args.url != "memory:":
            raise UsageError(f"unsupported URL {args.url!r}: use http(s)://…, stdio:COMMAND ARGS or memory:")
    except (UsageError, ValueError) as exc:
        print(f"mrtr-studio call: {exc}", file=sys.stderr)
        return 2
    drive, failure = asyncio.run(_run(args, arguments, settings, answers, oauth_settings))
    if drive is None:
        if args.json:
            print(json.dumps({"result": None, "error": {"outcome": "transport_error", "message": failure},
                              "rounds": []}, indent=2, ensure_ascii=False))
        print(f"mrtr-studio call: {printable(failure, 4000)}", file=sys.stderr)  # peer text: escaped
        return 1
    if args.json:
        print(json.dumps(json_document(drive), indent=2, ensure_ascii=False))
    else:
        describe(drive, sys.stdout)
    sys.stdout.flush()  # a closed pipe shows here, inside run_call, not at the interpreter's exit
    if not drive.ok:
        print(f"mrtr-studio call: {reason(drive)}{era_hint(drive, args.era)}", file=sys.stderr)
        return 1
    failed = tool_error(drive)
    if failed:
        print(f"mrtr-studio call: {failed}", file=sys.stderr)
        return 1
    return 0
