"""The diagram's layout, without Qt: arrows, their order, styles, nesting and the person's time."""

from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.diagram_layout import (
    STYLES,
    Activation,
    Arrow,
    DiagramLayout,
    Separator,
    layout_operation,
    message_summary,
)

from .view_flows import run_flow


def message_arrows(layout: DiagramLayout) -> list[Arrow]:
    return [a for a in layout.arrows if a.seq is not None]


def test_two_round_delete_file_has_four_arrows_in_order() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    layout = layout_operation(op, store.messages_of(op.id))
    arrows = message_arrows(layout)
    assert [(a.kind, a.src, a.dst, a.round) for a in arrows] == [
        ("request", "Client", "Server", 1), ("input_required", "Server", "Client", 1),
        ("request", "Client", "Server", 2), ("complete", "Server", "Client", 2)]
    assert [a.y for a in arrows] == sorted(a.y for a in arrows)
    assert arrows[0].label.startswith("tools/call #") and arrows[0].label.endswith("· r1")
    # Responses carry no method on the wire: the label takes it from the request with the same id.
    assert "tools/call" in arrows[1].label and "input_required" in arrows[1].label
    assert "confirm" in arrows[1].sublabel
    assert [s.label for s in layout.separators] == ["Round 1", "Round 2"]


def test_answer_time_is_drawn_between_rounds_on_the_user_lane() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    layout = layout_operation(op, store.messages_of(op.id))
    arrows = message_arrows(layout)
    ask, answer = (a for a in layout.arrows if a.kind == "interaction" and a.round >= 1)
    assert (ask.src, ask.dst, answer.src, answer.dst) == ("Client", "User", "User", "Client")
    assert arrows[1].y < ask.y < answer.y < arrows[2].y
    assert "confirm" in ask.label
    assert answer.label == f"answered in {op.answer_seconds[2]:.1f} s"


def test_answer_time_arriving_later_relabels_the_arrow() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    op.answer_seconds.clear()
    layout = layout_operation(op, store.messages_of(op.id))
    assert layout.interactions[2].label == "answered"
    op.answer_seconds[2] = 12.34
    assert layout.refresh_answers() == [layout.interactions[2]]
    assert layout.interactions[2].label == "answered in 12.3 s"


def test_answers_are_distinguishable_without_colour() -> None:
    looks = {kind: (STYLES[kind].colour, STYLES[kind].line, STYLES[kind].tag)
             for kind in ("input_required", "complete", "error")}
    for position in range(3):
        assert len({look[position] for look in looks.values()}) == 3


def test_legacy_delete_file_is_an_error_arrow() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file", era="legacy")
    arrows = message_arrows(layout_operation(op, store.messages_of(op.id)))
    assert [a.kind for a in arrows] == ["request", "error"]
    assert arrows[1].style == STYLES["error"]
    assert "✖ error" in arrows[1].label
    assert "-32603" in arrows[1].sublabel


def test_legacy_server_request_is_nested_inside_the_open_call() -> None:
    store = TraceStore()
    op = run_flow(store, "count_roots", era="legacy", arguments={})
    layout = layout_operation(op, store.messages_of(op.id))
    call, server_request, client_response, done = message_arrows(layout)
    assert (server_request.kind, client_response.kind) == ("server_request", "client_response")
    assert call.y < server_request.y < client_response.y < done.y
    assert (server_request.src, server_request.dst, server_request.depth) == ("Server", "Client", 1)
    assert (client_response.src, client_response.dst, client_response.depth) == ("Client", "Server", 1)
    outer = next(a for a in layout.activations if a.lane == "Server")
    inner = next(a for a in layout.activations if a.lane == "Client")
    assert (outer.y0, outer.y1) == (call.y, done.y)
    assert (inner.y0, inner.y1, inner.depth) == (server_request.y, client_response.y, 1)
    assert outer.y0 < inner.y0 and inner.y1 is not None and outer.y1 is not None and inner.y1 < outer.y1
    assert "roots/list" in server_request.label and "roots/list" in client_response.label


def test_add_is_incremental() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file")
    messages = store.messages_of(op.id)
    layout = DiagramLayout(op)
    first = layout.add(messages[0])
    assert [type(x) for x in first.added] == [Separator, Arrow, Activation]
    before = list(layout.arrows)
    change = layout.add(messages[1])
    assert layout.arrows[: len(before)] == before
    assert [x.seq for x in change.added if isinstance(x, Arrow)] == [messages[1].seq]
    assert [type(x) for x in change.updated] == [Activation] and change.updated[0].y1 is not None


def test_summary_names_the_rejected_check() -> None:
    store = TraceStore()
    op = run_flow(store, "delete_file", era="legacy")
    error = store.messages_of(op.id)[-1]
    assert message_summary(error) == "-32603 input_required needs protocol 2026-07-28"
