"""Redaction profiles: header names, JSON paths and patterns mask what they name (and only that), each
rule's count is right, a bad profile is one line naming the rule, and the store's messages stay as
they were."""

import json
from pathlib import Path

import pytest

from mrtr_studio.trace.model import Operation, TraceMessage
from mrtr_studio.trace.redaction_profiles import (
    TIMES,
    ProfileError,
    default_profile,
    load_profile,
    none_profile,
    parse_path,
    profile_from_json,
    profile_to_json,
    redact_trace,
)

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "login", "arguments": {"user": "ann", "password": "hunter2",
                                                  "note": "use Bearer abcdefgh12345 here"}}}
ERROR = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad password for ann"}}
HEADERS = {"Authorization": "Bearer ***", "X-Tenant-Key": "tenant-secret-1", "Accept": "application/json"}


def trace() -> tuple[list[Operation], list[TraceMessage]]:
    op = Operation("op1", "tools/call", "login", dict(CALL["params"]["arguments"]), "modern",  # type: ignore[index]
                   "http://127.0.0.1:9/mcp", 0.0)
    request = TraceMessage(1, "op1", 1, "client->server", "request", CALL, 1.0, "tools/call", 1,
                           {"transport": "http", "url": "http://127.0.0.1:9/mcp", "request_headers": HEADERS})
    reply = TraceMessage(2, "op1", 1, "server->client", "error", ERROR, 1.1, None, 1,
                         {"transport": "http", "response_headers": {"Set-Cookie": "sid=abc; Path=/"}})
    reply.reply_to = request
    return [op], [request, reply]


def test_the_default_profile_masks_credential_fields_and_bearer_text_and_counts_them() -> None:
    operations, messages = trace()
    redacted = redact_trace(operations, messages, default_profile())
    body = redacted.messages[0].message
    assert body["params"]["arguments"] == {"user": "ann", "password": "***", "note": "use *** here"}
    assert redacted.messages[1].message["error"]["code"] == -32602  # a JSON-RPC code is not a credential
    assert redacted.messages[1].transport["response_headers"]["Set-Cookie"] == "sid=***; Path=/"
    assert redacted.operations[0].arguments["password"] == "***"
    assert redacted.tally.counts == {"$..password": 1, "pattern bearer token in text": 1, "Authorization header": 1,
                                     "X-Tenant-Key header": 1, "Set-Cookie header": 1}
    assert redacted.messages[1].reply_to is redacted.messages[0]
    assert messages[0].message == CALL and operations[0].arguments["password"] == "hunter2"  # copies only


def test_a_profile_file_adds_headers_paths_and_patterns(tmp_path: Path) -> None:
    path = tmp_path / "tenant.json"
    path.write_text(json.dumps({"name": "tenant", "base": "none", "headers": ["X-Tenant-Key"],
                                "paths": ["$.params.arguments.user", "$.error['message']"],
                                "patterns": [{"name": "hunter", "regex": "hunter\\d"}]}))
    profile = load_profile(str(path))
    operations, messages = trace()
    redacted = redact_trace(operations, messages, profile)
    request = redacted.messages[0]
    assert request.message["params"]["arguments"] == {"user": "***", "password": "***",
                                                      "note": "use Bearer abcdefgh12345 here"}
    assert request.transport["request_headers"] == {"Authorization": "Bearer ***", "X-Tenant-Key": "***",
                                                    "Accept": "application/json"}
    assert redacted.messages[1].message["error"] == {"code": -32602, "message": "***"}
    assert redacted.tally.lines() == [f"$.params.arguments.user {TIMES}1", f"pattern hunter {TIMES}1",
                                      f"X-Tenant-Key header {TIMES}1", f"$.error['message'] {TIMES}1"]
    assert profile_from_json(profile_to_json(profile)).rule_lines() == profile.rule_lines()


def test_none_masks_nothing_more_than_the_recording() -> None:
    operations, messages = trace()
    redacted = redact_trace(operations, messages, none_profile())
    assert redacted.messages[0].message == CALL
    assert redacted.messages[0].transport["request_headers"]["X-Tenant-Key"] == "tenant-secret-1"
    assert redacted.tally.summary() == "nothing to mask"


def test_paths_with_wildcards_indexes_and_depth() -> None:
    message = {"result": {"content": [{"text": "a"}, {"text": "b"}], "deep": {"x": {"secret_pin": 1}}}}
    entry = TraceMessage(1, "op", 1, "server->client", "complete", message, 1.0)
    profile = profile_from_json({"base": "none", "paths": ["$.result.content[*].text", "$..secret_pin",
                                                           "$.result.content[0]"]})
    redacted = redact_trace([], [entry], profile)
    assert redacted.messages[0].message == {"result": {"content": ["***", {"text": "***"}],
                                                       "deep": {"x": {"secret_pin": "***"}}}}
    assert redacted.tally.counts["$.result.content[*].text"] == 2


@pytest.mark.parametrize(("document", "error"), [
    ({"paths": ["params.password"]}, "paths[0]: JSON path 'params.password': must start with $"),
    ({"paths": ["$.a["]}, "paths[0]: JSON path '$.a[': cannot read from character 4"),
    ({"patterns": ["(unclosed"]}, "patterns[0]: '(unclosed' is not a regular expression"),
    ({"headers": ["Bad: name"]}, "headers[0]: 'Bad: name' is not a header name"),
    ({"base": "all"}, "base: 'all' is not default or none"),
    ({"masks": []}, "unknown field(s) masks"),
    ([], "a redaction profile is a JSON object"),
])
def test_a_bad_profile_names_the_rule(document: object, error: str) -> None:
    with pytest.raises(ProfileError) as caught:
        profile_from_json(document)
    assert str(caught.value).startswith(error)


def test_a_profile_file_that_is_not_json_or_missing_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for spec in (str(bad), str(tmp_path / "missing.json")):
        with pytest.raises(ProfileError) as caught:
            load_profile(spec, "--redact")
        assert str(caught.value).startswith("--redact: ") and "\n" not in str(caught.value)
    assert parse_path("$..x").steps == (("deep", "x"),)


def test_the_quick_look_at_the_json_text_never_skips_a_match() -> None:
    """A pattern anchored to a string's start, or one whose match holds a character JSON escapes,
    finds nothing in the compact JSON text: the body is still read and masked."""
    message = {"result": {"content": [{"text": "secret-1 here"}, {"text": 'say "hi" now'}, {"text": "tab\there"}]}}
    entry = TraceMessage(1, "op", 1, "server->client", "complete", message, 1.0)
    profile = profile_from_json({"base": "none", "patterns": ["^secret-\\d", '"hi"', "tab\\t"]})
    texts = [c["text"] for c in redact_trace([], [entry], profile).messages[0].message["result"]["content"]]
    assert texts == ["*** here", "say *** now", "***here"]
    untouched = redact_trace([], [entry], profile_from_json({"base": "none", "patterns": ["absent"],
                                                            "paths": ["$..nothing"]}))
    assert untouched.messages[0].message == message and untouched.tally.summary() == "nothing to mask"


def test_a_pattern_that_backtracks_badly_masks_the_whole_text_instead_of_hanging() -> None:
    """A peer's text can make a profile's pattern backtrack for minutes: each match is bounded, an
    overdue one masks the whole string (never leaves it readable), and the rule then masks the rest
    of that message's strings whole without matching, so one message costs at most one timeout."""
    slow = "x" * 5000
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"a": slow, "b": "plain", "c": slow}}}
    op = Operation("op1", "tools/call", "echo", {}, "modern", "http://127.0.0.1:9/mcp", 0.0)
    request = TraceMessage(1, "op1", 1, "client->server", "request", call, 1.0, "tools/call", 1, None)
    profile = profile_from_json({"name": "slow", "base": "none", "patterns": [{"name": "xy", "regex": "(x+x+)+y"}]})
    redacted = redact_trace([op], [request], profile)
    arguments = redacted.messages[0].message["params"]["arguments"]
    assert arguments == {"a": "***", "b": "***", "c": "***"}  # "b" cannot match: masked as after a timeout
    assert redacted.messages[0].message["params"]["name"] == "echo"  # read before the timeout: matched normally
    assert redacted.tally.lines()[0].startswith("pattern xy (too slow: whole text masked)")


def test_copies_of_messages_sealed_in_a_block_keep_each_its_own_text() -> None:
    """A sealed message's copy is its own text, not its block's first message's (the store and the
    file reader seal every 256 messages)."""
    from mrtr_studio.trace.model import pack, seal

    operation = Operation("op", "tools/call", "t", {}, "modern", "embedded", started=0.0)
    messages = [TraceMessage(seq, "op", 1, "client->server", "request",
                             pack({"jsonrpc": "2.0", "id": seq, "method": "tools/call", "params": {"n": seq}}),
                             float(seq)) for seq in range(5)]
    seal(messages)
    copies = redact_trace([operation], messages, default_profile()).messages
    assert [copy.message["id"] for copy in copies] == [0, 1, 2, 3, 4]
    assert all(copy.packed() for copy in copies)
