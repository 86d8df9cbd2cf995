"""`mrtr-studio call`: run one operation headless through every round (DESIGN.md).

URL forms: `http(s)://host/mcp` (Streamable HTTP), `stdio:COMMAND ARGS` (spawn a server and talk
JSON lines; the rest is split like a shell would), `memory:` (the embedded demo engine; `--bearer`
is then the principal's name). Answers come from `--answers FILE` (input key, then method name,
then `"*"`), else from the terminal; sampling falls back to echoing the prompt and roots to the
current directory. Stdout carries the result (or the `--json` document); prompts, the step view
and the one-line failure reason go to stderr, so scripts can parse stdout.
"""

import argparse
import asyncio
import contextlib
import json
import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

from ..client import responders as R
from ..client.driver import DriveResult, Respond
from ..client.session import ClientSession, StepHook
from ..client.settings import ClientSettings, parse_flags
from ..trace import files
from ..transport.base import ClientTransport, TransportError


class UsageError(Exception):
    """Bad command-line input: exit 2 with the message."""


def make_transport(url: str, bearer: str | None) -> tuple[ClientTransport, str]:
    """The transport for a `call` URL, and the label the trace shows for the server."""
    if url.startswith(("http://", "https://")):
        from ..transport.http_client import HttpClientTransport

        return HttpClientTransport(url, bearer_token=bearer), url
    if url.startswith("stdio:"):
        from ..transport.stdio_client import StdioClientTransport

        command = shlex.split(url[len("stdio:"):])
        if not command:
            raise UsageError("stdio: needs a command, e.g. stdio:python server.py")
        return StdioClientTransport(command), url
    if url == "memory:":
        from ..engine import ServerOptions
        from ..engine.options import MrtrOptions
        from ..scenarios import build_demo_server
        from ..transport.memory import MemoryTransport

        server = build_demo_server(ServerOptions(mrtr=MrtrOptions(explain_rejections=True)))
        return MemoryTransport(server, user=bearer or ""), "embedded"
    raise UsageError(f"unsupported URL {url!r}: use http(s)://…, stdio:COMMAND ARGS or memory:")


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
    return {"result": drive.result, "error": error,
            "rounds": [{"request": r.request, "response": r.response} for r in drive.rounds]}


def reason(drive: DriveResult) -> str:
    if drive.outcome == "error" and drive.error:
        error = drive.error
        data = error.get("data")
        why = f" ({json.dumps(data, separators=(',', ':'))})" if data is not None else ""
        return f"error {error.get('code')} {error.get('message')}{why}"
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
        if isinstance(body, dict) and body.get("resultType") == "input_required":
            asked = [f"{k} ({v.get('method') if isinstance(v, dict) else '?'})"
                     for k, v in (body.get("inputRequests") or {}).items()]
            asked += ["requestState"] if "requestState" in body else []
            out.write(f"round {number} <- input_required: {', '.join(asked)}\n")
        elif "error" in response:
            out.write(f"round {number} <- error {response['error'].get('code')} {response['error'].get('message')}\n")
        elif isinstance(body, dict):
            out.write(f"round {number} <- complete\n")
    if drive.result is not None:
        for text in result_texts(drive.result):
            out.write(text + "\n")


def result_texts(result: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for block in result.get("content") or []:
        texts.append(block.get("text", json.dumps(block)) if isinstance(block, dict) else str(block))
    for message in result.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, dict):
            texts.append(f"[{message.get('role')}] {content.get('text', json.dumps(content))}")
    for item in result.get("contents") or []:
        if isinstance(item, dict):
            texts.append(f"{item.get('uri')}: {item.get('text', '(binary)')}")
    return texts


async def _run(args: argparse.Namespace, arguments: dict[str, Any], settings: ClientSettings,
               answers: R.AnswersFile | None) -> tuple[DriveResult | None, str | None]:
    terminal = R.Terminal(sys.stdin, sys.stderr)
    transport, label = make_transport(args.url, args.bearer)
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
        return run.drive, None
    except Exception as exc:  # era handshake or probe failures happen before any round
        return None, f"{type(exc).__name__}: {exc}"
    finally:
        await session.close()


def run_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
        if not isinstance(arguments, dict):
            raise UsageError(f"--args must be a JSON object, not {args.args!r}")
        flags = parse_flags(args.caps)
        answers = R.AnswersFile.load(args.answers) if args.answers else None
        settings = ClientSettings(era=args.era, capabilities=flags, bearer_token=args.bearer, user=args.bearer or "",
                                  max_rounds=getattr(args, "max_rounds", 10))
        if not args.url.startswith(("http://", "https://", "stdio:")) and args.url != "memory:":
            raise UsageError(f"unsupported URL {args.url!r}: use http(s)://…, stdio:COMMAND ARGS or memory:")
    except (UsageError, ValueError) as exc:
        print(f"mrtr-studio call: {exc}", file=sys.stderr)
        return 2
    drive, failure = asyncio.run(_run(args, arguments, settings, answers))
    if drive is None:
        if args.json:
            print(json.dumps({"result": None, "error": {"outcome": "transport_error", "message": failure},
                              "rounds": []}, indent=2, ensure_ascii=False))
        print(f"mrtr-studio call: {failure}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(json_document(drive), indent=2, ensure_ascii=False))
    else:
        describe(drive, sys.stdout)
    if not drive.ok:
        print(f"mrtr-studio call: {reason(drive)}", file=sys.stderr)
        return 1
    return 0
