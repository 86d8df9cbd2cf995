"""Append-only autosave: a JSON-lines journal of store events, so a crash loses no completed round.

Every event is one line written at once (the OS has it even if the process is killed); when a
round completes (a response, an error or an unreadable reply arrives, or an operation ends) the
journal is also fsync'ed, so it survives a power cut too. `recover` replays the journal: the last
line about an operation or message wins, and a torn last line is ignored.
"""

import json
import os
from pathlib import Path
from typing import IO, Any

from .model import Operation, TraceMessage
from .store import StoreEvent, TraceStore

_ROUND_ENDS = frozenset({"input_required", "complete", "error", "invalid"})
INTERRUPTED = "interrupted: recovered from the autosave"


class Autosave:
    """Journal a store's events to `path` (appending; one file may hold several sessions)."""

    def __init__(self, store: TraceStore, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = self.path.open("a", encoding="utf-8")
        self._unsubscribe = store.subscribe(self._on_event)

    def _on_event(self, event: StoreEvent) -> None:
        if self._file is None:
            return
        durable = False
        if event.operation is not None:
            self._write({"type": "operation", "data": event.operation.to_json()})
            durable = event.operation.outcome != "running"
        if event.message is not None:
            self._write({"type": "message", "data": event.message.to_json()})
            durable = event.message.kind in _ROUND_ENDS and event.message.direction == "server->client"
        if event.kind == "cleared":
            self._write({"type": "cleared"})
        self._file.flush()
        if durable:
            os.fsync(self._file.fileno())

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def close(self) -> None:
        self._unsubscribe()
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None


def recover(path: str | Path) -> tuple[list[Operation], list[TraceMessage]]:
    """The trace as the journal last knew it; operations cut off mid-flow are marked interrupted."""
    operations: dict[str, Operation] = {}
    #: By (operation, seq): a journal appended by several runs repeats seq numbers; dicts keep first-seen order.
    messages: dict[tuple[str, int], TraceMessage] = {}
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line torn by the crash: everything before it is intact
            kind = record.get("type")
            if kind == "cleared":
                operations.clear()
                messages.clear()
            elif kind == "operation":
                op = Operation.from_json(record["data"])
                operations[op.id] = op
            elif kind == "message":
                entry = TraceMessage.from_json(record["data"])
                messages[(entry.operation_id, entry.seq)] = entry
    for op in operations.values():
        if op.outcome == "running":
            op.outcome = "aborted"
            op.problem = INTERRUPTED
    ordered = list(messages.values())
    for seq, entry in enumerate(ordered):  # identity for one run; renumbers runs appended one after another
        entry.seq = seq
    return list(operations.values()), ordered
