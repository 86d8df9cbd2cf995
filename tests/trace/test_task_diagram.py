"""A task's diagram stays readable: runs of same-status polls collapse into one arrow."""

from typing import Any

from mrtr_studio.trace import TraceStore
from mrtr_studio.trace.diagram_layout import DiagramLayout, layout_operation

TASK = {"taskId": "t1", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
        "ttlMs": 60000, "pollIntervalMs": 100}
ASK = {"go": {"method": "elicitation/create", "params": {"mode": "form", "message": "Go on?",
                                                          "requestedSchema": {"type": "object"}}}}


def task_trace(working_before: int = 50, working_after: int = 10) -> tuple[TraceStore, str]:
    store = TraceStore()
    op = store.begin_operation("tools/call", "long_report", {}, "modern", "embedded")
    ids = iter(range(1, 1000))

    def pair(round_number: int, method: str, params: dict[str, Any], result: dict[str, Any]) -> None:
        msg_id = next(ids)
        store.record(op.id, round_number, "client->server",
                     {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        store.record(op.id, round_number, "server->client", {"jsonrpc": "2.0", "id": msg_id, "result": result})

    pair(1, "tools/call", {"name": "long_report"}, {"resultType": "task", "status": "working", **TASK})
    store.note_task(op.id, "t1", "working", 1)
    for _ in range(working_before):
        pair(2, "tasks/get", {"taskId": "t1"}, {"resultType": "complete", "status": "working", **TASK})
    for _ in range(3):
        pair(2, "tasks/get", {"taskId": "t1"}, {"resultType": "complete", "status": "input_required",
                                                "inputRequests": ASK, **TASK})
    pair(3, "tasks/update", {"taskId": "t1", "inputResponses": {"go": {"action": "accept"}}},
         {"resultType": "complete"})
    for _ in range(working_after):
        pair(3, "tasks/get", {"taskId": "t1"}, {"resultType": "complete", "status": "working", **TASK})
    pair(3, "tasks/get", {"taskId": "t1"}, {"resultType": "complete", "status": "completed",
                                            "result": {"content": [{"type": "text", "text": "done"}]}, **TASK})
    return store, op.id


def test_fifty_polls_collapse_into_runs_with_status_changes_and_the_input_round() -> None:
    store, op_id = task_trace()
    layout = layout_operation(store.operation(op_id), store.messages_of(op_id))
    runs = [a for a in layout.arrows if a.polls > 1]
    assert [(a.polls, a.label.split(" · ")[1]) for a in runs] == [(50, "working"), (3, "input_required"),
                                                                 (10, "working")]
    assert runs[0].label == "⟳ polled 50 times · working · tasks/get · r2"
    wire = [a for a in layout.arrows if a.seq is not None]
    # 131 messages; drawn: the call and its task, then request + answer per run or status change, the update
    assert len(store.messages_of(op_id)) == 2 * (1 + 50 + 3 + 1 + 10 + 1)
    assert len(wire) == 2 + 2 * 3 + 2 + 2
    assert [s.label for s in layout.separators] == ["Round 1", "Round 2 · task: polling",
                                                    "Round 3 · task: after answer 1"]
    assert any(a.label == "ask: go (elicitation/create)" for a in layout.arrows)
    final = wire[-1]
    assert final.sublabel == "completed · done"
    assert layout.height < 20 * 60
    polls = [m for m in store.messages_of(op_id) if m.method == "tasks/get" or m.kind == "complete"]
    folded = [m.seq for m in polls if m.seq in layout.drawn_as]
    assert len(folded) == 2 * (49 + 2 + 9), "every poll after a run's first is drawn as the run's arrow"
    assert {layout.drawn_as[s] for s in folded} == {a.seq for a in runs}


def test_the_live_diagram_draws_the_same_as_the_whole() -> None:
    store, op_id = task_trace(5, 2)
    live = DiagramLayout(store.operation(op_id))
    updated = 0
    for entry in store.messages_of(op_id):
        updated += len(live.add(entry).updated)
    whole = layout_operation(store.operation(op_id), store.messages_of(op_id))
    assert [(a.label, a.y) for a in live.arrows] == [(a.label, a.y) for a in whole.arrows]
    assert updated >= 4 + 1  # each extra poll relabels its run's arrow


def test_the_mermaid_export_collapses_the_same_runs() -> None:
    from mrtr_studio.trace.mermaid import to_mermaid

    store, op_id = task_trace()
    text = to_mermaid(store.operation(op_id), store.messages_of(op_id))
    arrows = [line for line in text.splitlines() if "->>" in line or "-->>" in line]
    assert len(arrows) == 2 + 2 * 3 + 2 + 2
    assert any(line.endswith("task working (id: 2) (polled 50 times)") for line in arrows), arrows
    assert any("task created working" in line for line in arrows)
    assert any("task input_required" in line and "go: elicitation/create" in line for line in arrows)


def test_the_ask_follows_the_poll_that_saw_input_required_not_the_tasks_creation() -> None:
    """One ask and one answer, drawn after the poll that saw input_required and at its time on the
    time scale: none between the call that created the task and its first poll."""
    from mrtr_studio.trace.waterfall import _times

    store, op_id = task_trace(working_before=5, working_after=2)
    messages = store.messages_of(op_id)
    start = messages[0].timestamp
    for index, entry in enumerate(messages):  # the task at 8 s, a poll a second, the question at 14 s
        entry.timestamp = start + (0 if index < 2 else 8 + index // 2)
    layout = layout_operation(store.operation(op_id), messages)
    asks = [a for a in layout.arrows if a.seq is None and a.label.startswith("ask")]
    answers = [a for a in layout.arrows if a.seq is None and a.label.startswith("answered")]
    assert [a.label for a in asks] == ["ask: go (elicitation/create)"] and len(answers) == 1
    assert asks[0].round == 2 and answers[0].round == 3
    saw = next(a for a in layout.arrows if a.seq is not None and "input_required" in a.label)
    assert saw.y < asks[0].y < answers[0].y
    times = dict(zip((id(a) for a in layout.arrows), _times(layout, {m.seq: m for m in messages}), strict=True))
    assert times[id(asks[0])] >= times[id(saw)] == messages[saw.seq].timestamp
    assert times[id(asks[0])] - start >= 14
