"""The filter language over columns picks exactly the messages the per-message predicate picks."""

from pathlib import Path

import pytest

from mrtr_studio.trace.filter import compile_filter
from mrtr_studio.trace.filter_columns import Cancelled, Columns, Condition, context_free, narrows, select
from mrtr_studio.trace.filter_syntax import parse
from mrtr_studio.trace.model import Finding, Operation, TraceMessage, pack
from mrtr_studio.trace.store import link_replies
from tools.bench_filter import build

EXPRESSIONS = [
    "kind:error", "kind:complete", "-kind:request", "dir:s2c", "dir:c2s round:2", "round:>1", "round:<=1",
    "method:tools/call", "method:tools/*", "-method:tools/call", "tool:delete_file", "tool:deploy*", "op:op00000003",
    "era:modern", "era:legacy", "principal:nobody", "task:*", "code:-32602", "code:<0", "finding:error",
    "finding:lint-*", "state:present", "state:absent", "state:altered", "duration:>100ms", "size:>200B",
    "production", "PRODUCTION", "text:\"File deleted\"", "f", "deploy_wizard", "no", "état", '"quote\\"d"',
    "kind:error or finding:warning", "not (kind:complete or kind:request)", "tool:delete_file -text:production",
    "(dir:s2c or round:1) and -code:-32602", "round:2 kind:request state:present",
]


def trace() -> tuple[list[Operation], list[TraceMessage]]:
    operations, messages = build(400)
    messages[5].findings = [Finding("lint-state", "error", "bad")]
    messages[9].findings = [Finding("lint-echo", "warning", "odd")]
    odd = Operation("odd", "prompts/get", "p", {}, "legacy", "embedded", started=0.0, ended=1.0)
    operations.append(odd)
    for seq, (direction, body) in enumerate([
            ("client->server", {"jsonrpc": "2.0", "id": "x", "method": "prompts/get", "params": {"name": "état"}}),
            ("server->client", {"jsonrpc": "2.0", "id": "x", "result": {"text": 'a "quote\\"d" here'}})],
            start=len(messages)):
        kind = "request" if direction == "client->server" else "complete"
        messages.append(TraceMessage(seq, "odd", 1, direction, kind, pack(body), 1000.0 + seq,  # type: ignore[arg-type]
                                     body.get("method"), "x"))
    return operations, link_replies(messages)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_columns_pick_what_the_predicate_picks(expression: str) -> None:
    operations, messages = trace()
    bound = compile_filter(expression).bind(operations, messages)
    expected = [row for row, entry in enumerate(messages) if bound.matches(entry)]
    selected = select(Columns(messages), bound)
    assert list(selected.rows) == expected
    assert selected.mask == bytes(1 if row in set(expected) else 0 for row in range(len(messages)))


def test_the_log_boxes_are_conditions_beside_the_expression() -> None:
    operations, messages = trace()
    columns = Columns(messages)
    conditions = [Condition("direction", "server->client"), Condition("method", "tools/call"),
                  Condition("finding", test=lambda m: bool(m.findings))]
    assert list(select(columns, None, conditions).rows) == [5, 9]
    bound = compile_filter("kind:error").bind(operations, messages)
    assert list(select(columns, bound, [Condition("operation", "op00000010")]).rows) == [43]


def test_a_domain_limits_the_run_and_rows_past_it_are_tested() -> None:
    operations, messages = trace()
    columns = Columns(messages[:8])
    bound = compile_filter("kind:request").bind(operations, messages)
    first = select(columns, bound)
    assert list(first.rows) == [0, 2, 4, 6]
    columns.messages = messages  # appended to: the new rows are coded and tested, the old ones kept
    narrower = compile_filter("kind:request round:2").bind(operations, messages)
    again = select(columns, narrower, domain=first.mask)
    assert list(again.rows) == [row for row, m in enumerate(messages) if narrower.matches(m)]
    only = select(Columns(messages), bound, domain=b"\x00" * 4 + b"\x01" * (len(messages) - 4))
    assert list(only.rows)[:2] == [4, 6]


def test_a_cancelled_run_stops() -> None:
    operations, messages = trace()
    bound = compile_filter("production").bind(operations, messages)
    with pytest.raises(Cancelled):
        select(Columns(messages), bound, cancelled=lambda: True)


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("f1", "f12", True), ("text:f1", "F12", True), ("f12", "f1", False), ("", "kind:error", True),
    ("kind:error", "kind:error f", True), ("kind:error f", "f1   kind:error", True),
    ("kind:error", "kind:complete", False),
    ("kind:error or f", "kind:error or f1", False), ("-f", "-f1", False), ("round:>1", "round:>1 tool:x", True),
])
def test_what_narrows(old: str, new: str, expected: bool) -> None:
    assert narrows(parse(old), parse(new)) is expected


def test_context_free() -> None:
    assert context_free(parse("kind:error -f round:>1"))
    assert not context_free(parse("kind:error -duration:>1s"))
    assert not context_free(parse("kind:error or state:altered"))


#: Messages a text search can get wrong: case, escapes, unicode, a needle twice in one message, a
#: message that could not be packed, one whose only match is its request's method.
TRICKY = [
    ("client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "Delete_File"}}),
    ("server->client", {"jsonrpc": "2.0", "id": 1, "result": {"text": 'say "HI" \\ back', "n": "ÉTÉ été"}}),
    ("client->server", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"p": "/F1234/f1234"}}),
    ("server->client", {"jsonrpc": "2.0", "id": 2, "result": {"text": "line\nbreak\ttab \u0001 ctl"}}),
    ("client->server", {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"big": 2**70}}),  # not packable
    ("server->client", {"jsonrpc": "2.0", "id": 3, "result": {}}),  # matches "ping" by its request's method
    ("client->server", {"jsonrpc": "2.0", "id": 4, "method": "notifications/X", "params": {"k": "Kelvin \u212a"}}),
    ("server->client", {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "BAD \\\"quoted\\\""}}),
]
NEEDLES = ["f", "F1234", "f1234/", "delete_file", "DELETE", '"hi"', "say \\\"hi", "\\", '"', "line\\nbreak",
           "\\u0001", "ping", "x", "été", "ÉTÉ", "kelvin k", "k", "bad \\\\\\\"quoted", "2.0", "zzz", "ctl",
           '":{"', "}", "1", "id\":4"]


def tricky_trace() -> tuple[list[Operation], list[TraceMessage]]:
    operation = Operation("op", "tools/call", "t", {}, "modern", "embedded", started=0.0)
    messages = []
    for seq, (direction, body) in enumerate(TRICKY * 3):
        kind = ("request" if "method" in body else "client_response") if direction == "client->server" else \
            "error" if "error" in body else "complete"
        messages.append(TraceMessage(seq, "op", 1, direction, kind, pack(body), float(seq),  # type: ignore[arg-type]
                                     body.get("method"), body["id"]))
    assert not isinstance(messages[4].message_json(), type(messages[0]._message))  # one stays unpacked
    return [operation], link_replies(messages)


@pytest.mark.parametrize("needle", NEEDLES)
@pytest.mark.parametrize("block", [2, 5, 8192])  # hits at the ends of blocks, and one block for all
def test_the_block_text_search_finds_what_the_per_message_search_finds(needle: str, block: int,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from mrtr_studio.trace import filter_columns

    monkeypatch.setattr(filter_columns, "BLOCK", block)
    operations, messages = tricky_trace()
    expression = "text:" + json.dumps(needle, ensure_ascii=False)
    bound = compile_filter(expression).bind(operations, messages)
    expected = [row for row, entry in enumerate(messages) if bound.matches(entry)]
    assert list(select(Columns(messages), bound).rows) == expected
    some = bytes(row % 3 != 1 for row in range(len(messages)))  # a domain: only some rows considered
    assert list(select(Columns(messages), bound, domain=some).rows) == [row for row in expected if some[row]]


def test_the_tricky_needles_do_find_something() -> None:
    """The comparison above would pass on a search that finds nothing: most needles must match."""
    operations, messages = tricky_trace()
    hits = [needle for needle in NEEDLES
            if select(Columns(messages), compile_filter("text:" + __import__("json").dumps(needle, ensure_ascii=False))
                      .bind(operations, messages)).rows]
    assert set(NEEDLES) - set(hits) <= {"zzz", "ÉTÉ", "kelvin k"}, set(NEEDLES) - set(hits)


@pytest.mark.parametrize("expression", ["tool:delete_file", "method:tools/*", "kind:error or finding:warning",
                                        "f", "-op:op00000003 round:2"])
def test_spans_of_a_column_are_spread_and_gathered_in_order(expression: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from mrtr_studio.trace import filter_columns

    monkeypatch.setattr(filter_columns, "SPAN", 7)  # many spans, the last one short
    operations, messages = trace()
    bound = compile_filter(expression).bind(operations, messages)
    expected = [row for row, entry in enumerate(messages) if bound.matches(entry)]
    assert list(select(Columns(messages), bound).rows) == expected


@pytest.mark.parametrize("needle", NEEDLES)
def test_the_native_text_column_finds_what_the_per_message_search_finds(needle: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages sealed in blocks (as a store seals them), searched by the polars column: runs of a block,
    holes (a message that could not be packed), a block's messages out of order, and an unsealed tail."""
    import json

    from mrtr_studio.trace import filter_columns, text_column
    from mrtr_studio.trace.model import PackedBlock, seal

    monkeypatch.setattr(filter_columns, "NATIVE_FROM", 1)
    monkeypatch.setattr(text_column, "SLICE", 4)  # searched in slices of 4 rows, the last one short
    operations, single = tricky_trace()
    messages = [TraceMessage(seq, m.operation_id, m.round, m.direction, m.kind, pack(m.message), m.timestamp, m.method,
                             m.jsonrpc_id) for seq, m in enumerate(single * 3)]
    link_replies(messages)
    for start in range(0, len(messages) - 2, 5):
        seal(messages[start:start + 5])
    messages[10], messages[11] = messages[11], messages[10]  # one block's messages in the other order
    calls = []
    search = text_column.TextColumn.search
    monkeypatch.setattr(text_column.TextColumn, "search",
                        lambda self, p, cancelled: calls.append(p) or search(self, p, cancelled))
    bound = compile_filter("text:" + json.dumps(needle, ensure_ascii=False)).bind(operations, messages)
    expected = [row for row, entry in enumerate(messages) if bound.matches(entry)]
    columns = Columns(messages)
    assert list(select(columns, bound).rows) == expected
    some = bytes(row % 3 != 1 for row in range(len(messages)))
    assert list(select(columns, bound, domain=some).rows) == [row for row in expected if some[row]]
    assert type(messages[0]._message) is PackedBlock and columns.texts.loose  # sealed, with holes
    assert columns.texts.count < len(messages)  # the unsealed tail is left to the block search
    assert calls if needle.isascii() else not calls  # the column answered every ASCII word


@pytest.mark.parametrize("mask", [b"", b"\x00" * 70_000, b"\x01" * 70_001,
                                  bytes(int(c) for c in bin(3**60000)[2:70_002])])
def test_the_rows_of_a_big_mask_are_its_set_rows_in_order(mask: bytes) -> None:
    from mrtr_studio.trace.text_column import rows_of

    assert list(rows_of(mask)) == [row for row, flag in enumerate(mask) if flag]


def test_without_polars_the_text_search_answers_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from mrtr_studio.trace import filter_columns
    from mrtr_studio.trace.model import seal

    monkeypatch.setattr(filter_columns, "NATIVE_FROM", 1)
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars raises ImportError
    operations, messages = tricky_trace()
    seal(messages[:10])
    bound = compile_filter("text:delete").bind(operations, messages)
    columns = Columns(messages)
    assert list(select(columns, bound).rows) == [row for row, m in enumerate(messages) if bound.matches(m)] != []
    assert columns.texts.count == 0


def test_where_polars_would_crash_it_is_not_loaded_and_the_search_still_answers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """polars warns "Missing required CPU features" before loading a binary that would then die of an
    illegal instruction: the warning stops the import (simulated by a polars that only warns)."""
    import subprocess
    import sys

    fake = tmp_path / "polars"
    fake.mkdir()
    (fake / "__init__.py").write_text("import warnings\nwarnings.warn('Missing required CPU features.\\n', "
                                      "RuntimeWarning)\nraise SystemExit('the binary was loaded')\n")
    code = ("from mrtr_studio.trace.text_column import TextColumn, rows_of\n"
            "from mrtr_studio.trace.model import TraceMessage, pack, seal\n"
            "ms = [TraceMessage(i, 'op', 1, 'client->server', 'request', pack({'n': i}), 0.0) for i in range(600)]\n"
            "seal(ms[:256])\n"
            "column = TextColumn(); column.sync(ms, 600)\n"
            "print(column.count, rows_of(b'\\x01'), column.search([b'n']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "None", "b''"]


def test_coding_the_text_column_stops_when_cancelled() -> None:
    """Runs of a block are coded whole, so the column asks `cancelled` by rows passed, not at exact
    multiples: a long coding (a million rows after a file opened) stops soon after it is typed over."""
    from mrtr_studio.trace.model import seal
    from mrtr_studio.trace.text_column import TextColumn

    unpackable = TraceMessage(0, "op", 1, "client->server", "request", {"n": 2**70}, 0.0)  # a hole first: the
    messages = [unpackable] + [TraceMessage(seq, "op", 1, "client->server", "request",  # runs start off 8192s
                                            pack({"n": seq}), 0.0) for seq in range(1, 40_001)]
    for start in range(1, len(messages), 256):
        seal(messages[start:start + 256])
    asked = iter([False, False, True])
    column = TextColumn()
    column.sync(messages, len(messages), lambda: next(asked))
    assert 8192 <= column.count < len(messages)  # coded up to the third look, not to the end
    column.sync(messages, len(messages))
    assert column.count == len(messages) and list(column.loose) == [0]  # then the rest


def test_a_stale_search_stops_between_slices_and_the_run_is_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newer keystroke makes the running search stale: the column asks between slices and stops (None),
    and `select` raises Cancelled rather than returning a half-searched mask."""
    from mrtr_studio.trace import filter_columns, text_column
    from mrtr_studio.trace.model import seal

    monkeypatch.setattr(text_column, "SLICE", 1000)
    monkeypatch.setattr(filter_columns, "NATIVE_FROM", 1)
    messages = [TraceMessage(seq, "op", 1, "client->server", "request", pack({"n": f"word-{seq}"}), 0.0)
                for seq in range(5000)]
    for start in range(0, len(messages), 256):
        seal(messages[start:start + 256])
    columns = Columns(messages)
    columns.sync()
    whole = columns.texts.search([b"word-12"])
    assert whole is not None and len(whole) == columns.texts.count
    assert [row for row, hit in enumerate(whole) if hit] == [12, *range(120, 130), *range(1200, 1300)]
    looks = iter([False, False, True])
    asked = []
    assert columns.texts.search([b"word-12"], lambda: asked.append(1) or next(looks)) is None
    assert len(asked) == 3  # stopped at the third slice, not at the end
    bound = compile_filter("word-12").bind([], messages)
    answers = iter([False] * 3 + [True] * 100)
    with pytest.raises(Cancelled):
        select(columns, bound, cancelled=lambda: next(answers))
