"""HAR 1.2 (HTTP Archive) of a trace's HTTP exchanges, for browser dev tools, Charles, Fiddler, haralyzer.

One entry per HTTP exchange the trace recorded: each client->server message sent over HTTP (a request,
a notification, a client's answer to a server's request) with the response that answered it
(`TraceMessage.reply_to`), its recorded transport metadata (URL, headers, status, content type,
duration) and the MCP bodies as `postData` and `content`. One page per operation (`pageref`), so a
HAR viewer groups the rounds of one tools/call together.

What the trace never had is not invented: a response the recorder did not see is `status: 0` with
a comment; headers are the recorded ones, already masked when recorded, and masked again here through
trace/redaction.py (`--redact PROFILE`: the default profile, or `none` to add no masking of its own).
Messages that did not cross HTTP (the embedded engine, stdio) have no place in a HAR: `to_har` counts
them in `HarResult.skipped`.
"""

import datetime
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .. import __version__
from .filter import TraceIndex
from .model import Operation, TraceMessage
from .redaction import Redaction

HTTP_TRANSPORTS = frozenset({"http", "http-proxy", "http-server"})
_SENT_KINDS = frozenset({"request", "notification", "client_response"})


@dataclass(frozen=True)
class HarResult:
    document: dict[str, Any]
    entries: int
    #: Client->server messages that did not cross HTTP (not in the HAR).
    skipped: int


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC).isoformat(timespec="milliseconds")


def _body(message: Any) -> str:
    """A message's body as the studio's HTTP client sends it (httpx's compact JSON); text stays text."""
    if isinstance(message, str):
        return message
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _headers(recorded: Any, redaction: Redaction) -> list[dict[str, str]]:
    if not isinstance(recorded, dict):
        return []
    return [{"name": str(name), "value": redaction.header(str(name), str(value))} for name, value in recorded.items()]


def _url(entry: TraceMessage, operation: Operation | None, redaction: Redaction) -> str:
    url = entry.transport.get("url")
    if not isinstance(url, str) or not url:
        # A proxy's recording: the path it was asked for, on the Host the client named (the proxy's URL).
        server = operation.server if operation is not None else ""
        path = entry.transport.get("http_path")
        headers = entry.transport.get("request_headers")
        host = {str(k).lower(): v for k, v in headers.items()}.get("host") if isinstance(headers, dict) else None
        base = f"http://{host}" if isinstance(host, str) and host \
            else server if server.startswith(("http://", "https://")) else "http://unknown"
        parts = urlsplit(base)
        url = f"{parts.scheme}://{parts.netloc}{path}" if isinstance(path, str) and path else base
    return redaction.url(url)


def _response(reply: TraceMessage | None, redaction: Redaction) -> dict[str, Any]:
    if reply is None:
        return {"status": 0, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1,
                "bodySize": -1, "comment": "no response recorded"}
    meta = reply.transport
    mime = str(meta.get("content_type") or "application/json")
    data = _body(reply.message)
    text = data
    if mime == "text/event-stream":
        event_id = meta.get("event_id")
        text = (f"id: {event_id}\n" if event_id else "") + f"event: message\ndata: {data}\n\n"
    status = meta.get("http_status")
    comment = f"MCP {reply.kind}" + (f"; {meta['error']}" if meta.get("error") else "")
    return {"status": status if isinstance(status, int) else 200, "statusText": "",
            "httpVersion": "HTTP/1.1", "cookies": [], "headers": _headers(meta.get("response_headers"), redaction),
            "content": {"size": len(text.encode()), "mimeType": mime, "text": text}, "redirectURL": "",
            "headersSize": -1, "bodySize": len(text.encode()), "comment": comment}


def _entry(sent: TraceMessage, reply: TraceMessage | None, operation: Operation | None,
           redaction: Redaction) -> dict[str, Any]:
    body = _body(sent.message)
    url = _url(sent, operation, redaction)
    headers = _headers(sent.transport.get("request_headers"), redaction)
    mime = next((h["value"] for h in headers if h["name"].lower() == "content-type"), "application/json")
    waited = reply.transport.get("duration_ms") if reply is not None else None
    if not isinstance(waited, int | float) and reply is not None:
        waited = max(0.0, (reply.timestamp - sent.timestamp) * 1000)
    wait = float(waited) if isinstance(waited, int | float) else -1.0
    method = sent.transport.get("http_method")
    return {
        "pageref": sent.operation_id,
        "startedDateTime": _when(sent.timestamp),
        "time": max(wait, 0.0),
        "request": {"method": method if isinstance(method, str) else "POST", "url": url, "httpVersion": "HTTP/1.1",
                    "cookies": [], "headers": headers,
                    "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query)],
                    "postData": {"mimeType": mime, "params": [], "text": body},
                    "headersSize": -1, "bodySize": len(body.encode())},
        "response": _response(reply, redaction),
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": max(wait, 0.0), "receive": 0,
                    "ssl": -1},
        "comment": f"round {sent.round} {sent.kind} {sent.method_name or ''}".rstrip(),
    }


def to_har(operations: Iterable[Operation], messages: Sequence[TraceMessage],
           redaction: Redaction | None = None) -> HarResult:
    """The HAR 1.2 document of a trace (`redaction`: the default profile unless given)."""
    redaction = redaction or Redaction()
    ops = list(operations)
    index = TraceIndex(ops, messages)
    entries: list[dict[str, Any]] = []
    skipped = 0
    used: set[str] = set()
    for entry in messages:
        if entry.direction != "client->server" or entry.kind not in _SENT_KINDS:
            continue
        if entry.transport.get("transport") not in HTTP_TRANSPORTS:
            skipped += 1
            continue
        entries.append(_entry(entry, index.reply_of(entry), index.operation(entry), redaction))
        used.add(entry.operation_id)
    pages = [{"startedDateTime": _when(op.started), "id": op.id, "title": f"{op.method} {op.target}".strip(),
              "pageTimings": {"onContentLoad": -1, "onLoad": -1},
              "comment": f"era {op.era}, outcome {op.outcome}" + (f": {op.problem}" if op.problem else "")}
             for op in ops if op.id in used]
    document = {"log": {"version": "1.2", "creator": {"name": "mrtr-studio", "version": __version__},
                        "pages": pages, "entries": entries,
                        "comment": "exported by MRTR Studio; credentials masked"
                                   + ("" if redaction.enabled else " when recorded")}}
    return HarResult(document, len(entries), skipped)
