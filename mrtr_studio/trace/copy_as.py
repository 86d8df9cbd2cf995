"""Copy a recorded request as a command or a snippet: curl, HTTPie, Python httpx, TypeScript fetch, or
`mrtr-studio call` (the window's "Copy as", and `mrtr-studio trace copy`).

The request is reproduced as it crossed the wire: the recorded URL and headers (the Mcp-* ones, the
MCP-Protocol-Version, the Mcp-Session-Id), and the body as the studio's HTTP client sends it (httpx's
compact JSON, byte for byte). A trace keeps credentials masked (trace/redaction.py), and so does every
snippet: `reveal=True` puts the real values back only for the headers the caller supplies in
`credentials` (name -> value: a trace cannot give back what it never stored). Shell words are quoted
with shlex.quote; Python and TypeScript strings are written as their own literals, so nothing in a
recorded value (a quote, `$(...)`, a newline) can break out of the snippet.
"""

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from ..protocol.roundtrip import MRTR_FIELDS
from ..protocol.versions import META_CLIENT_CAPABILITIES
from .model import Operation, TraceMessage, params_of
from .redaction import MASK, Redaction

Style = Literal["curl", "httpie", "httpx", "fetch", "call"]
STYLES: tuple[Style, ...] = ("curl", "httpie", "httpx", "fetch", "call")
#: Headers the HTTP library or the shell's tool sets itself.
_LEFT_OUT = frozenset({"content-length", "host", "connection", "transfer-encoding", "user-agent"})
_TARGET_FLAGS = {"tools/call": "--tool", "prompts/get": "--prompt", "resources/read": "--resource"}


class CopyError(ValueError):
    """The message cannot be copied as a request (not a client request, not over HTTP...)."""


@dataclass(frozen=True)
class RecordedRequest:
    url: str
    method: str
    headers: dict[str, str]
    body: str


def recorded_request(entry: TraceMessage, operation: Operation | None = None,
                     reveal: bool = False, credentials: Mapping[str, str] | None = None) -> RecordedRequest:
    """What was sent, masked (`reveal`: the supplied `credentials` replace the masked values)."""
    if entry.direction != "client->server" or entry.kind not in ("request", "notification", "client_response"):
        raise CopyError(f"message {entry.seq} is a {entry.kind} from the {entry.direction.split('->')[0]}, "
                        "not something the client sent")
    url = entry.transport.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        path = entry.transport.get("http_path")
        server = operation.server if operation is not None else ""
        if isinstance(path, str) and server.startswith(("http://", "https://")):
            parts = urlsplit(server)  # a proxy's recording: the path it was asked for, on its upstream
            url = f"{parts.scheme}://{parts.netloc}{path}"
        else:
            transport = entry.transport.get("transport") or "unknown"
            raise CopyError(f"message {entry.seq} went over {transport}, not HTTP: copy it as `call` instead")
    redaction = Redaction()
    supplied = {k.lower(): v for k, v in (credentials or {}).items()}
    headers: dict[str, str] = {}
    recorded = entry.transport.get("request_headers")
    for name, value in (recorded.items() if isinstance(recorded, dict) else ()):
        if str(name).lower() in _LEFT_OUT:
            continue
        shown = redaction.header(str(name), str(value))
        if reveal and str(name).lower() in supplied:
            shown = supplied[str(name).lower()]
        headers[_title(str(name))] = shown
    method = entry.transport.get("http_method")
    return RecordedRequest(redaction.url(url) if not reveal else url, method if isinstance(method, str) else "POST",
                           headers, _body(entry.message))


def _title(name: str) -> str:
    """Header names as the client wrote them (recordings may have lowered them)."""
    if name != name.lower():
        return name
    special = {"mcp-session-id": "Mcp-Session-Id", "mcp-protocol-version": "MCP-Protocol-Version",
               "dpop": "DPoP"}
    return special.get(name, "-".join(part.capitalize() for part in name.split("-")))


def _body(message: Any) -> str:
    return message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _curl(request: RecordedRequest) -> str:
    words = ["curl", "-sS", "-X", request.method, shlex.quote(request.url)]
    if "text/event-stream" in request.headers.get("Accept", ""):
        words.insert(2, "--no-buffer")
    lines = [" ".join(words)]
    lines += [f"-H {shlex.quote(f'{name}: {value}')}" for name, value in request.headers.items()]
    lines.append(f"--data-binary {shlex.quote(request.body)}")
    return " \\\n  ".join(lines) + "\n"


def _httpie(request: RecordedRequest) -> str:
    lines = [f"http --ignore-stdin --stream {request.method} {shlex.quote(request.url)}"]
    lines += [shlex.quote(f"{name}:{value}") for name, value in request.headers.items()]
    lines.append(f"--raw {shlex.quote(request.body)}")
    return " \\\n  ".join(lines) + "\n"


def _httpx(request: RecordedRequest) -> str:
    headers = "".join(f"        {name!r}: {value!r},\n" for name, value in request.headers.items())
    return ("import httpx\n\n"
            f"response = httpx.request(\n    {request.method!r},\n    {request.url!r},\n"
            f"    headers={{\n{headers}    }},\n"
            f"    content={request.body!r}.encode(),\n    timeout=30,\n)\n"
            "print(response.status_code, response.headers.get(\"content-type\"))\nprint(response.text)\n")


def _js(value: str) -> str:
    """A TypeScript string literal (JSON's, with the two line separators JavaScript reads as newlines escaped)."""
    return json.dumps(value, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _fetch(request: RecordedRequest) -> str:
    headers = "".join(f"    {_js(name)}: {_js(value)},\n" for name, value in request.headers.items())
    return (f"const response = await fetch({_js(request.url)}, {{\n  method: {_js(request.method)},\n"
            f"  headers: {{\n{headers}  }},\n  body: {_js(request.body)},\n}});\n"
            "console.log(response.status, response.headers.get(\"content-type\"));\n"
            "console.log(await response.text());\n")


def _caps(meta: Any) -> str | None:
    declared = meta.get(META_CLIENT_CAPABILITIES) if isinstance(meta, dict) else None
    if not isinstance(declared, dict):
        return None
    flags = []
    for name in ("elicitation", "sampling", "roots"):
        if name in declared:
            flags.append(name)
            if name == "elicitation" and isinstance(declared[name], dict) and "url" in declared[name]:
                flags.append("elicitation.url")
    extensions = declared.get("extensions")
    if isinstance(extensions, dict) and any("tasks" in str(key) for key in extensions):
        flags.append("tasks")
    return ",".join(flags)


def _call(entry: TraceMessage, operation: Operation | None, reveal: bool, credentials: Mapping[str, str] | None,
          ) -> str:
    message = entry.message
    method = message.get("method") if isinstance(message, dict) else None
    if method not in _TARGET_FLAGS:
        raise CopyError(f"message {entry.seq} is {method or entry.kind}: `mrtr-studio call` runs tools/call, "
                        "prompts/get and resources/read")
    params = params_of(message)
    target = params.get("uri") if method == "resources/read" else params.get("name")
    url = entry.transport.get("url") if isinstance(entry.transport.get("url"), str) else None
    server = url or (operation.server if operation is not None else "memory:")
    if server == "embedded":
        server = "memory:"
    words = ["mrtr-studio", "call", shlex.quote(Redaction().url(server) if not reveal else server),
             _TARGET_FLAGS[method], shlex.quote(str(target))]
    arguments = {k: v for k, v in (params.get("arguments") or {}).items()} \
        if isinstance(params.get("arguments"), dict) else None
    if arguments and method != "resources/read":
        words += ["--args", shlex.quote(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")))]
    era = operation.era if operation is not None else ("modern" if "_meta" in params else "legacy")
    words += ["--era", shlex.quote(era)]
    caps = _caps(params.get("_meta"))
    if caps is not None:
        words += ["--caps", shlex.quote(caps)]
    authorization = {k.lower(): v for k, v in (entry.transport.get("request_headers") or {}).items()}.get(
        "authorization") if isinstance(entry.transport.get("request_headers"), dict) else None
    if isinstance(authorization, str) and authorization.lower().startswith("bearer "):
        supplied = {k.lower(): v for k, v in (credentials or {}).items()}.get("authorization", "")
        token = supplied.split(" ", 1)[1] if reveal and " " in supplied else MASK
        words += ["--bearer", shlex.quote(token)]
    if any(field in params for field in MRTR_FIELDS):
        words.append("  # a retry: `call` runs every round from the first, answering with --answers FILE")
    return " ".join(words) + "\n"


def copy_as(entry: TraceMessage, style: Style, operation: Operation | None = None, reveal: bool = False,
            credentials: Mapping[str, str] | None = None) -> str:
    """The snippet for one recorded request (CopyError when the message is not one that style can send)."""
    if style == "call":
        return _call(entry, operation, reveal, credentials)
    request = recorded_request(entry, operation, reveal, credentials)
    return {"curl": _curl, "httpie": _httpie, "httpx": _httpx, "fetch": _fetch}[style](request)
