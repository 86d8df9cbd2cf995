"""The filter language: parsing (errors with their position), every field on a hand-built trace whose
answers are known, the operations list, and completion; then recorded flows of the demo server."""

import asyncio

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.engine import ServerOptions
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.trace.filter import FilterError, compile_filter, complete
from mrtr_studio.trace.filter_syntax import And, Not, Or, Term, Text, parse
from mrtr_studio.trace.model import Finding
from mrtr_studio.trace.store import TraceStore
from mrtr_studio.transport.memory import MemoryTransport

ASK = {"resultType": "input_required", "requestState": "S1",
       "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"message": "Delete?"}}}}


def hand_built() -> TraceStore:
    """Two operations: delete_file whose retry alters the state and ends in -32602 after 0.8 s, and a
    quick count_roots (legacy, alice) that completes."""
    store = TraceStore()
    one = store.begin_operation("tools/call", "delete_file", {"path": "/a"}, "modern", "http://x/mcp")
    one.started, one.ended = 100.0, 101.0
    store.record(one.id, 1, "client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                               "params": {"name": "delete_file"}}, timestamp=100.0)
    store.record(one.id, 1, "server->client", {"jsonrpc": "2.0", "id": 1, "result": ASK}, timestamp=100.1)
    retry = store.record(one.id, 2, "client->server", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "delete_file", "requestState": "S1-edited", "inputResponses": {"confirm": {"action": "accept"}}}},
        timestamp=100.2)
    store.add_findings(retry, [Finding("mrtr/state-altered", "error", "differs")])
    store.record(one.id, 2, "server->client", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602,
                                                                                 "message": "bad state"}},
                 timestamp=101.0)
    two = store.begin_operation("tools/call", "count_roots", {}, "legacy", "embedded")
    two.started, two.ended = 200.0, 200.05
    store.record(two.id, 1, "client->server", {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                               "params": {"name": "count_roots"}}, timestamp=200.0, principal="alice")
    store.record(two.id, 1, "server->client", {"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": "2 roots \"quoted\""}]}}, timestamp=200.05)
    return store


def seqs(expression: str, store: TraceStore | None = None) -> list[int]:
    store = store or hand_built()
    return [m.seq for m in compile_filter(expression).messages(store.operations, store.messages)]


def ops(expression: str, store: TraceStore) -> list[str]:
    bound = compile_filter(expression).bind(store.operations, store.messages)
    return [op.target for op in store.operations if bound.matches_operation(op)]


def test_the_design_example_parses_into_one_conjunction() -> None:
    tree = parse("tool:delete_file round:>1 kind:error -kind:auth duration:>500ms state:altered")
    assert isinstance(tree, And) and len(tree.items) == 6
    assert tree.items[1] == Term("round", ">", "1", 24, 1.0)
    assert tree.items[3] == Not(Term("kind", "=", "auth", 43))  # positions are the values'
    assert tree.items[4].number == 500.0  # type: ignore[union-attr]


def test_precedence_and_grouping() -> None:
    assert parse("a or b c") == Or((Text("a", 0), And((Text("b", 5), Text("c", 7)))))
    assert parse("(a or b) and not c") == And((Or((Text("a", 1), Text("b", 6))), Not(Text("c", 17))))
    assert parse('text:"two words"') == Term("text", "=", "two words", 5)
    assert parse("size:>=1.5KB").number == 1536  # type: ignore[union-attr]
    assert parse("duration:<2s").number == 2000  # type: ignore[union-attr]
    assert parse("code:-32602").number == -32602  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "position", "words"), [
    ("kind:bogus", 5, "expected one of request"),
    ("round:x", 6, "expected a whole number"),
    ("duration:>5 parsecs", 12, None),  # parsecs is a bare word: fine; the error comes below
    ("size:>1XB", 6, "a size like"),
    ("(a or b", 7, "expected ')' to close the '(' at 1"),
    ("a )", 2, "no '(' opened it"),
    ('text:"open', 5, "unclosed quote"),
    ("foo:bar", 0, "unknown field 'foo'"),
    ("not", 3, "expected a term or '('"),
    ("a or", 4, "expected a term at the end"),
    ("kind:>error", 5, "compares with ':' or '='"),
    ("round:", 6, "expected a value after round:"),
])
def test_errors_name_the_position_and_what_was_expected(text: str, position: int, words: str | None) -> None:
    if words is None:
        parse(text)
        return
    with pytest.raises(FilterError) as caught:
        parse(text)
    assert caught.value.position == position, caught.value
    assert words in caught.value.message


def test_a_huge_or_deeply_nested_filter_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(FilterError, match="nested deeper"):
        parse("(" * 150 + "a" + ")" * 150)
    with pytest.raises(FilterError, match="over"):
        parse("a " * 6000)


def test_every_field_on_the_hand_built_trace() -> None:
    assert seqs("") == [0, 1, 2, 3, 4, 5]
    assert seqs("tool:delete_file round:>1") == [2, 3]
    assert seqs("kind:error") == [3]
    assert seqs("code:-32602") == [3] and seqs("code:<-32700") == []
    assert seqs("method:tools/call kind:error") == [3]  # a response's method is its request's
    assert seqs("dir:c2s") == [0, 2, 4] and seqs("dir:server->client") == [1, 3, 5]
    assert seqs("era:legacy") == [4, 5]
    assert seqs("principal:alice") == [4, 5] and seqs("principal:bob") == []
    assert seqs("finding:error") == [2] and seqs("finding:mrtr/state-*") == [2] and seqs("finding:warning") == []
    assert seqs("state:present") == [1, 2] and seqs("state:altered") == [2]
    assert seqs("duration:>500ms") == [2, 3]  # the retry waited 0.8 s for its error, both sides match
    assert seqs("duration:<60ms") == [4, 5]
    assert seqs("size:>150B") == [1, 2]
    assert seqs("op:" + hand_built().operations[0].id) == []  # ids are new per store: see below
    assert seqs('"quoted"') == [5] and seqs("ROOTS") == [4, 5]  # text search: JSON escapes, any case
    assert seqs("-kind:request -kind:complete") == [1, 3]
    assert seqs("kind:error or era:legacy") == [3, 4, 5]
    assert seqs("not (kind:error or era:legacy)") == [0, 1, 2]
    assert seqs("tool:count_*") == [4, 5] and seqs("tool:DELETE_FILE") == [0, 1, 2, 3]


def test_op_matches_the_id_and_the_label() -> None:
    store = hand_built()
    first = store.operations[0]
    first.label = "the slow one"
    assert seqs(f"op:{first.id}", store) == [0, 1, 2, 3]
    assert seqs('op:"the slow*"', store) == [0, 1, 2, 3]


def test_the_operations_list_reads_terms_as_some_message_matches() -> None:
    store = hand_built()
    assert ops("kind:error", store) == ["delete_file"]
    assert ops("-kind:error", store) == ["count_roots"]  # operations without any error
    assert ops("duration:>500ms", store) == ["delete_file"]  # the operation's own duration (1 s)
    assert ops("principal:alice round:1", store) == ["count_roots"]
    assert ops("state:altered or era:legacy", store) == ["delete_file", "count_roots"]


def test_completion_offers_fields_then_values() -> None:
    names = [c.replacement for c in complete("ro", 2)]
    assert names == ["round:"]
    kinds = complete("tool:x kind:in", 14)
    assert [c.replacement for c in kinds] == ["input_required", "invalid"]
    assert all((c.start, c.end) == (12, 14) for c in kinds)
    assert [c.replacement for c in complete("-di", 3)] == ["dir:"]  # after a negation, fields only
    seen = complete("tool:", 5, known={"tool": ["delete_file", "two words"]})
    assert "delete_file" in [c.replacement for c in seen] and '"two words"' in [c.replacement for c in seen]
    assert complete("nosuch:", 7) == []
    assert [c.replacement for c in complete("a o", 3)] == ["op:", "or"]


async def _recorded() -> TraceStore:
    server = build_demo_server(ServerOptions())
    session = ClientSession(MemoryTransport(server, user="bob"), ClientSettings(),
                            R.compose(elicitation=R.first_of(R.AnswersFile({"*": {
                                "action": "accept", "content": {"confirm": True, "environment": "production",
                                                                "version": "3.1"}}}))))
    await session.run("tools/call", "delete_file", {"path": "/a"})
    await session.run("tools/call", "deploy_wizard", {})
    await session.close()
    return session.store


def test_recorded_flows_of_the_demo_server() -> None:
    store = asyncio.run(_recorded())
    assert seqs("tool:deploy_wizard kind:input_required", store) == [
        m.seq for m in store.messages if m.kind == "input_required" and m.operation_id == store.operations[1].id]
    assert len(seqs("tool:deploy_wizard kind:input_required", store)) == 3
    # the studio's states name the principal; every retry echoed the state as sent
    assert ops("principal:bob", store) == ["delete_file", "deploy_wizard"]
    assert seqs("state:altered", store) == []
    assert seqs("round:>3 kind:complete", store) == [store.messages[-1].seq]
    assert seqs("text:production kind:request", store) != []


def test_a_filter_compiles_once_and_binds_to_any_trace() -> None:
    compiled = compile_filter("kind:error")
    first, second = hand_built(), TraceStore()
    assert [m.seq for m in compiled.messages(first.operations, first.messages)] == [3]
    assert compiled.messages(second.operations, second.messages) == []


class _NotWalked(list):  # type: ignore[type-arg]
    def __iter__(self):  # type: ignore[no-untyped-def]
        raise AssertionError("every message of the trace was walked")


def test_state_altered_reads_only_the_operation_asked_about() -> None:
    """The operations list and the log's colouring ask about the rows on screen: with the store's own
    lookup, `state:altered` decides one operation from its messages, never from the whole trace."""
    store = hand_built()
    expected = [m.seq for m in store.messages if compile_filter("state:altered").bind(
        store.operations, store.messages).matches(m)]
    bound = compile_filter("state:altered").bind(store.operations, _NotWalked(store.messages),
                                                 messages_of=store.live_messages_of)
    assert [m.seq for m in store.messages if bound.matches(m)] == expected == [2]
    assert [op.target for op in store.operations if bound.matches_operation(op)] == ["delete_file"]
