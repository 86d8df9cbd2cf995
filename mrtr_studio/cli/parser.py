"""`mrtr-studio` command line (docs/architecture.md): the GUI by default, plus serve, call and state decode."""

import argparse
import sys
from collections.abc import Callable, Sequence

from ..studio.trace_argument import split_trace_file
from .baseline_flags import add_baseline_flags
from .flags.auth import add_oauth_flags, add_serve_auth_flags
from .flags.data import add_diff_parser, add_list_parser, add_run_parser, add_trace_parser
from .flags.limits import add_limit_flags
from .flags.own import (
    add_check_client_parser,
    add_check_parser,
    add_proxy_parser,
    add_wrap_config_parser,
    add_wrap_parser,
)
from .flags.replay import add_load_parser, add_replay_parser, add_replay_server_parser
from .flags.skills import add_skills_parser
from .flags.state import DEFAULT_STATE_TTL, SECRET_ENV, SECRET_HELP, add_decode_flags, secrets_from, state_ttl
from .lazy import Commands, run_lazily
from .otlp_flag import add_otlp_flag


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mrtr-studio", description="Debugger for MCP Multi Round-Trip Requests")
    parser.add_argument("--scenario", help="open the studio on this demo scenario")
    parser.add_argument("--auto", action="store_true", help="run the scenario, answering with schema defaults")
    parser.add_argument("--screenshot-dir", help="save one PNG per step into this folder, then exit")
    parser.add_argument("--screen-size", metavar="WxH",
                        help="open the window as on a screen of this size (e.g. 1366x768), for screenshots")
    parser.add_argument("--install-desktop", action="store_true",
                        help="add a desktop entry and the .mrtr.json file type for this user, then exit")
    parser.add_argument("--otlp-endpoint", metavar="URL",
                        help="send a span per JSON-RPC request the window sends over OTLP/HTTP to this collector "
                             "URL (e.g. http://127.0.0.1:4318/v1/traces), in the trace of its _meta.traceparent")
    commands = parser.add_subparsers(dest="command")

    serve = commands.add_parser("serve", help="serve the demo server on Streamable HTTP at /mcp")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--secret", action="append", default=None, metavar="S", help=SECRET_HELP)
    serve.add_argument("--state-ttl", type=state_ttl, default=DEFAULT_STATE_TTL, metavar="SEC",
                       help=f"requestState lifetime in seconds, above 0 (default {DEFAULT_STATE_TTL})")
    serve.add_argument("--state-audience", action="append", default=None, metavar="NAME",
                       help="who the requestStates are for (their aud); repeatable: the first is minted, all are "
                            "accepted. Nodes of one service share it (default: the server's name)")
    serve.add_argument("--user", action="append", default=[], metavar="NAME:TOKEN",
                       help="map bearer TOKEN to principal NAME (repeatable)")
    serve.add_argument("--explain-rejections", action="store_true",
                       help="name the failed check in error.data.reason")
    serve.add_argument("--store", default="memory", metavar="memory|redis://HOST:PORT/DB",
                       help="where what nodes must share lives (consumed single-use states): this process's "
                            "memory (default), or a Redis database every node names")
    serve.add_argument("--store-prefix", metavar="PREFIX",
                       help="the namespace of this deployment's Redis keys (default: mrtr-studio:KID: with KID "
                            "the signing secret's key id, so deployments with different secrets never share keys)")
    serve.add_argument("--draft", action="append", default=[], choices=["sep-2643", "sep-3221"],
                       help="switch on a draft SEP as an experiment (repeatable): sep-2643 structured authorization "
                            "denials, sep-3221 secure parameters; off by default")
    add_limit_flags(serve)
    add_otlp_flag(serve)
    add_serve_auth_flags(serve)

    call = commands.add_parser("call", help="run one operation headless, every round")
    call.add_argument("url", help="http(s)://…/mcp, or stdio:COMMAND, or memory: for the embedded engine")
    target = call.add_mutually_exclusive_group(required=True)
    target.add_argument("--tool")
    target.add_argument("--prompt")
    target.add_argument("--resource")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--era", choices=["modern", "legacy", "auto"], default="modern")
    call.add_argument("--caps", default="elicitation,elicitation.url,sampling,roots",
                      help="comma-separated declared capabilities ('' for none); 'tasks' declares the "
                           "io.modelcontextprotocol/tasks extension")
    call.add_argument("--answers", help="JSON file: input key -> the result to send ('*' as fallback)")
    call.add_argument("--bearer", help="Authorization: Bearer token")
    call.add_argument("--step", action="store_true", help="ask on the terminal before every retry")
    call.add_argument("--json", action="store_true", help="print result, error and rounds as JSON")
    call.add_argument("--max-rounds", type=int, default=10)
    call.add_argument("--trace", metavar="FILE", help="also save the recorded trace to FILE (.mrtr.json)")
    call.add_argument("--max-body", metavar="SIZE",
                      help="largest response body, SSE event or stdio line accepted (bytes, or 512K, 16M; "
                           "default 16M)")
    call.add_argument("--timeout", type=float, metavar="SEC",
                      help="silence allowed while waiting for a response (default 30)")
    call.add_argument("--request-timeout", type=float, metavar="SEC",
                      help="overall deadline of each request, however many events keep arriving (default 300)")
    add_oauth_flags(call)

    add_proxy_parser(commands)
    add_otlp_flag(commands.choices["proxy"])
    add_check_parser(commands)
    add_baseline_flags(commands.choices["check"])
    add_wrap_parser(commands)
    add_otlp_flag(commands.choices["wrap"])
    add_wrap_config_parser(commands)
    add_check_client_parser(commands)
    add_replay_server_parser(commands)
    add_replay_parser(commands)
    add_load_parser(commands)
    add_trace_parser(commands)
    add_list_parser(commands)
    add_diff_parser(commands)
    add_run_parser(commands)
    add_skills_parser(commands)

    state = commands.add_parser("state", help="requestState tools")
    state_commands = state.add_subparsers(dest="state_command", required=True)
    decode = state_commands.add_parser("decode", help="print a requestState's payload and each check")
    decode.add_argument("token")
    decode.add_argument("--secret", action="append", default=None, metavar="S",
                        help="a key to verify or decrypt with: hex:…, base64:… or the key's UTF-8 text; "
                             f"repeatable, any one may match (default: ${SECRET_ENV})")
    decode.add_argument("--state-ttl", type=state_ttl, default=DEFAULT_STATE_TTL, metavar="SEC",
                        help="the server's --state-ttl: a longer lifetime fails the expiry check "
                             f"(default {DEFAULT_STATE_TTL})")
    decode.add_argument("--json", action="store_true")
    add_decode_flags(decode)
    return parser


#: Each command's module, imported when it runs (`trace`, `list`, `diff` and `run` go through
#: data_commands, which quiets a broken pipe around them).
COMMANDS: Commands = {
    "serve": ("serve", "run_serve"),
    "call": ("call", "run_call"),
    "proxy": ("proxy", "run_proxy"),
    "check-client": ("check_client", "run_check_client"),
    "wrap-config": ("wrap_config", "run_wrap_config"),
    "wrap": ("wrap", "run_wrap"),
    "check": ("check", "run_check"),
    "skills": ("skills", "run_skills"),
    "replay-server": ("replay_server", "run_replay_server"),
    "replay": ("replay", "run_replay"),
    "load": ("load", "run_load"),
    **{name: ("data_commands", "run_data_command") for name in ("trace", "list", "diff", "run")},
}


def main(argv: Sequence[str] | None = None, gui: Callable[[argparse.Namespace], int] | None = None) -> int:
    """Run a command; the GUI launcher is passed in so this layer never imports Qt."""
    parser = build_parser()
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    trace_file, rest = split_trace_file(sys.argv[1:] if argv is None else argv, list(commands or ()))
    args = parser.parse_args(rest)
    args.trace_file = trace_file  # `mrtr-studio FILE.mrtr.json`: the window opens it
    if args.install_desktop:
        if args.command or trace_file:
            parser.error("--install-desktop takes no command or file")
        from .install_desktop import run_install_desktop

        return run_install_desktop()
    if args.command in COMMANDS:
        return run_lazily(COMMANDS, args)
    if args.command == "state":
        return state_decode(args)
    if gui is None:
        print("mrtr-studio: the GUI is not available from here; run `mrtr-studio` or `python -m mrtr_studio`",
              file=sys.stderr)
        return 2
    return gui(args)


def state_decode(args: argparse.Namespace) -> int:
    from .state_decode import run_state_decode

    return run_state_decode(args, secrets_from(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
