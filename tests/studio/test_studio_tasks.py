"""The studio runs a call that becomes a task, stops it (tasks/cancel) and resumes one from a reopened trace."""

from pathlib import Path
from typing import Any

from mrtr_studio.client.settings import ALL_CAPABILITIES
from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore, files
from tests.studio.test_studio import run, until

TASKS = ALL_CAPABILITIES | {"tasks"}


def test_long_report_becomes_a_task_and_completes() -> None:
    async def body() -> None:
        studio = Studio()
        studio.set_capabilities(TASKS)
        result = await studio.run("tools/call", "long_report", {"sections": 2, "seconds_per_section": 0.01})
        assert result is not None and result.task is not None
        assert result.final.outcome == "complete" and result.operation.task_status == "completed"
        assert "2 sections written" in result.final.result["content"][0]["text"]  # type: ignore[index]
        await studio.close()

    run(body)


def test_stop_cancels_the_task_and_a_reopened_trace_resumes_another(tmp_path: Path) -> None:
    async def body() -> None:
        studio = Studio()
        studio.set_capabilities(TASKS)
        studio.start("tools/call", "slow_compute", {"seconds": 60})
        await until(lambda: bool(studio.store.operations) and studio.store.operations[-1].task_id is not None)
        op = studio.store.operations[-1]
        studio.stop()
        await studio.wait()
        record = await studio.engine.tasks.store.get(str(op.task_id))
        assert record is not None and record.status == "cancelled"
        assert op.outcome == "aborted"

        # a task left running by a client that went away: the trace names it, a new studio resumes it
        held = studio.store.begin_operation("tools/call", "slow_compute", {}, "modern", "embedded")
        created = await studio.engine.tasks.create(_request(), _start())
        studio.store.note_task(held.id, created["taskId"], "working", 1)
        studio.store.finish_operation(held.id, "aborted", "the client went away")
        path = files.save(tmp_path / "t.mrtr.json", studio.store)
        reopened = TraceStore()
        files.load_into(reopened, path)
        again = Studio(store=reopened, engine=studio.engine)
        again.set_capabilities(TASKS)
        resumed = await again.resume(held.id)
        assert resumed is not None and resumed.final.outcome == "complete"
        assert reopened.operation(held.id).task_status == "completed"
        await again.close()
        await studio.close()

    run(body)


def _request() -> Any:
    from mrtr_studio.engine.handler_api import Request, RequestParams
    from mrtr_studio.protocol.versions import Era

    return Request("tools/call", RequestParams("slow_compute", {}, None), Era.MODERN, {}, "", "2026-07-28")


def _start() -> Any:
    from mrtr_studio.engine.handler_api import TaskStart

    async def body(task: Any) -> None:
        await task.sleep(0.05)
        task.result.content.add_text("resumed and done")

    return TaskStart(body, poll_interval_ms=50)
