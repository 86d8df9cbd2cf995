"""Copy as: recorded values that try to break out of the snippet stay inside it, credentials stay
masked unless supplied, and what is not an HTTP request is refused with the reason."""

import ast
import json
import shlex

import pytest

from mrtr_studio.trace.copy_as import CopyError, copy_as
from mrtr_studio.trace.model import Operation, TraceMessage

HOSTILE = "x'; rm -rf ~; echo \"$(id)\" `id` \\ \n\u2028end"
BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "delete_file", "arguments": {"path": HOSTILE}, "_meta": {
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "roots": {}}}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "Mcp-Method": "tools/call", "Mcp-Name": "delete_file", "Mcp-Session-Id": "sess-1",
           "X-Odd": HOSTILE, "Authorization": "Bearer ***", "Content-Length": "99"}


def request(transport: dict[str, object] | None = None) -> TraceMessage:
    meta = {"transport": "http", "url": "http://127.0.0.1:9/mcp?q='x'", "request_headers": HEADERS}
    return TraceMessage(4, "op", 1, "client->server", "request", BODY, 1.0, "tools/call", 1,
                        transport if transport is not None else meta)


OP = Operation("op", "tools/call", "delete_file", {"path": HOSTILE}, "modern", "http://127.0.0.1:9/mcp", 0.0)


def sent_body() -> str:
    return json.dumps(BODY, ensure_ascii=False, separators=(",", ":"))


def test_curl_and_httpie_words_come_back_exactly() -> None:
    words = shlex.split(copy_as(request(), "curl", OP).replace("\\\n", ""))
    assert words[:6] == ["curl", "-sS", "--no-buffer", "-X", "POST", "http://127.0.0.1:9/mcp?q='x'"]
    headers = [words[i + 1] for i, word in enumerate(words) if word == "-H"]
    assert f"X-Odd: {HOSTILE}" in headers and "Mcp-Session-Id: sess-1" in headers
    assert "Authorization: Bearer ***" in headers and not any(h.startswith("Content-Length") for h in headers)
    assert words[-2:] == ["--data-binary", sent_body()]
    words = shlex.split(copy_as(request(), "httpie", OP).replace("\\\n", ""))
    assert f"X-Odd:{HOSTILE}" in words and words[-2:] == ["--raw", sent_body()]


def test_python_and_typescript_literals_hold_the_values() -> None:
    tree = ast.parse(copy_as(request(), "httpx", OP))
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "attr", "")
                == "request")
    keywords = {k.arg: k.value for k in call.keywords}
    assert ast.literal_eval(keywords["headers"])["X-Odd"] == HOSTILE
    assert ast.literal_eval(keywords["content"].func.value) == sent_body()  # type: ignore[attr-defined]
    script = copy_as(request(), "fetch", OP)
    assert "\u2028" not in script  # a raw line separator would end a JavaScript string literal
    body_line = next(line for line in script.splitlines() if line.startswith("  body: "))
    assert json.loads(body_line[len("  body: "):-1]) == sent_body()


def test_revealing_needs_the_value_from_the_caller() -> None:
    assert "Bearer ***" in copy_as(request(), "curl", OP)
    revealed = copy_as(request(), "curl", OP, reveal=True, credentials={"authorization": "Bearer real"})
    assert "Authorization: Bearer real" in revealed
    line = copy_as(request(), "call", OP, reveal=True, credentials={"Authorization": "Bearer real"})
    words = shlex.split(line)
    assert words[words.index("--bearer") + 1] == "real"
    assert words[words.index("--caps") + 1] == "elicitation,elicitation.url,roots"
    assert json.loads(words[words.index("--args") + 1]) == {"path": HOSTILE}


def test_what_cannot_be_copied_says_why() -> None:
    answer = TraceMessage(5, "op", 1, "server->client", "complete", {"jsonrpc": "2.0", "id": 1, "result": {}}, 1.0)
    with pytest.raises(CopyError, match="not something the client sent"):
        copy_as(answer, "curl", OP)
    over_stdio = request({"transport": "stdio"})
    with pytest.raises(CopyError, match="went over stdio, not HTTP"):
        copy_as(over_stdio, "httpx", Operation("op", "tools/call", "t", {}, "modern", "stdio:x", 0.0))
    embedded = Operation("op", "tools/call", "t", {}, "modern", "embedded", 0.0)
    assert copy_as(over_stdio, "call", embedded).startswith("mrtr-studio call memory: --tool delete_file")
    listing = TraceMessage(6, "op", 1, "client->server", "request", {"jsonrpc": "2.0", "id": 2,
                                                                      "method": "tools/list"}, 1.0)
    with pytest.raises(CopyError, match="runs tools/call, prompts/get and resources/read"):
        copy_as(listing, "call", OP)
