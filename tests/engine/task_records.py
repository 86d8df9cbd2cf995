"""Task records and a settable clock for the task-store tests (memory and Redis)."""

from mrtr_studio.engine.tasks.task_store import TaskRecord


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(task_id: str, principal: str = "alice", ttl_ms: int | None = 60_000, at: float = 1000.0) -> TaskRecord:
    return TaskRecord(task_id=task_id, principal=principal, method="tools/call", name="t", created_at=at,
                      updated_at=at, ttl_ms=ttl_ms, poll_interval_ms=500)
