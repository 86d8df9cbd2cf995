"""A step edit of the first request is what the operation records: the store's operation (and so a
saved trace and Run again) carries the arguments that were sent, announced by operation_updated."""

import json
from pathlib import Path

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import StoreEvent
from tests.studio.test_studio import DELETE, run, until


def test_an_edited_first_send_updates_the_operations_arguments(tmp_path: Path) -> None:
    async def body() -> None:
        studio = Studio()
        events: list[StoreEvent] = []
        studio.store.subscribe(events.append)
        task = studio.start(*DELETE, step=True)
        await until(lambda: studio.state == "paused")
        assert studio.pending is not None and studio.pending.round == 1
        edited = studio.pending.message
        edited["params"]["arguments"] = {"path": "/tmp/edited", "edited": True}
        studio.edit_pending(edited)
        studio.continue_()
        result = await task
        assert result is not None
        op = studio.store.operation(result.operation.id)
        assert op.arguments == {"path": "/tmp/edited", "edited": True}
        assert any(e.kind == "operation_updated" and e.operation is op and e.operation.arguments == op.arguments
                   for e in events)
        saved = studio.save_trace(tmp_path / "edited.mrtr.json")
        text = json.loads(saved.read_text())
        assert [o["arguments"] for o in text["operations"]] == [{"path": "/tmp/edited", "edited": True}]
        # an unedited step run keeps the arguments it was started with
        plain = await studio.run(*DELETE, step=False)
        assert plain is not None and studio.store.operation(plain.operation.id).arguments == DELETE[2]
        await studio.close()

    run(body)
