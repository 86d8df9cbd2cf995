"""The diagram widget of a task: a live run of polls grows one arrow's label; a folded poll highlights it."""

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.selection import Selection
from tests.trace.test_task_diagram import task_trace
from tests.ui.test_main_window import arun, settings, window  # noqa: F401  (fixtures)


def test_live_polls_relabel_the_run_arrow_and_selecting_a_folded_poll_highlights_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    source, op_id = task_trace(working_before=20, working_after=0)
    store = TraceStore()
    selection = Selection()
    view = SequenceDiagramView(store, selection)
    qtbot.addWidget(view)
    view.resize(900, 700)
    op = source.operation(op_id)
    store.load([op], [])  # the operation first, then its messages arrive live
    selection.select_operation(op_id)
    qtbot.waitUntil(lambda: view.operation_id == op_id)
    for entry in source.messages_of(op_id):
        store._append(entry)  # replays the recorded messages as if they arrived now
    labels = [item.arrow.label for item in view.arrow_items.values()]
    assert "⟳ polled 20 times · working · tasks/get · r2" in labels
    assert len(view.arrow_items) == 2 + 2 * 2 + 2 + 2
    run_arrow = next(item for item in view.arrow_items.values() if item.arrow.polls == 20)
    assert run_arrow.label_text.startswith("⟳ polled 20 times")
    folded = [m for m in source.messages_of(op_id) if m.method == "tasks/get"][10]
    selection.select_message(folded.seq, op_id)
    assert run_arrow.highlighted


def test_the_window_resumes_the_selected_task(qtbot, arun, window) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from tests.studio.test_studio_tasks import _request, _start
    from tests.ui.test_main_window import until

    studio = window.studio
    studio.set_capabilities(studio.capabilities | {"tasks"})

    async def body() -> None:
        created = await studio.engine.tasks.create(_request(), _start())
        op = studio.store.begin_operation("tools/call", "slow_compute", {}, "modern", "embedded")
        studio.store.note_task(op.id, created["taskId"], "working", 1)
        studio.store.finish_operation(op.id, "aborted", "the client went away")
        window.selection.select_operation(op.id)
        assert window.resume_task()
        await until(lambda: studio.store.operation(op.id).task_status == "completed")
        await studio.wait()
        assert studio.store.operation(op.id).outcome == "complete"
        from tests.ui.test_operations_view import cell

        row = window.operations.model.index_.row_of(op.id)
        assert cell(window, row, "outcome") == "✓ complete (task)"

    arun(body())
    window.selection.select_operation(None)
    assert not window.resume_task()
