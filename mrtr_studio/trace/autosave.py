"""Append-only autosave: a JSON-lines journal of store events, so a crash loses no completed round.

Every event is one line written at once (the OS has it even if the process is killed); when a
round completes (a response, an error or an unreadable reply arrives, or an operation ends) the
journal is also fsync'ed, so it survives a power cut too. `recover` replays the journal: the last
line about an operation or message wins, and a torn last line (the crash cut it) is ignored. When
the trace is cleared or replaced (a file opened), the journal starts again: it holds one trace.

A journal is only ever read, never trusted: each line is validated by file_format's models. A line
that is not a record (damage: a bad disk, a hand edit, another program) ends the replay there, and
`Recovery.damage` says where and why, so the caller can keep the file aside and start clean with
everything before the damage, instead of refusing to start.
"""

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from . import file_format
from .file_format import MAX_RECORD_BYTES
from .model import Operation, TraceMessage
from .store import StoreEvent, TraceStore

_ROUND_ENDS = frozenset({"input_required", "complete", "error", "invalid"})
INTERRUPTED = "interrupted: recovered from the autosave"


class Autosave:
    """Journal a store's events to `path` (appending; one file may hold several sessions)."""

    def __init__(self, store: TraceStore, path: str | Path,
                 on_problem: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = self.path.open("ab")
        #: Why journaling stopped (a full disk, say), or None while it works; also told to `on_problem`.
        self.problem: str | None = None
        self._on_problem = on_problem
        self.store = store
        self._unsubscribe = store.subscribe(self._on_event, bulk=True)

    def _on_event(self, event: StoreEvent) -> None:
        if self._file is None:
            return
        if event.kind == "loaded":  # a file opened: its records at once, buffered (it is on disk already)
            try:  # a line at a time into the file's buffer: never the whole journal in memory at once
                for op in self.store.operations:
                    self._file.write(b'{"type":"operation","data":' + file_format.operation_json(op) + b"}\n")
                for entry in self.store.messages:
                    self._file.write(b'{"type":"message","data":' + file_format.message_json(entry) + b"}\n")
                self._file.flush()
            except OSError as exc:
                self._stop(exc)
            return
        durable = False
        lines = []
        if event.operation is not None:
            lines.append(b'{"type":"operation","data":' + file_format.operation_json(event.operation) + b"}\n")
            durable = event.operation.outcome != "running"
        if event.message is not None:
            lines.append(b'{"type":"message","data":' + file_format.message_json(event.message) + b"}\n")
            durable = event.message.kind in _ROUND_ENDS and event.message.direction == "server->client"
        try:
            if event.kind == "cleared":
                # Replay forgets everything before a `cleared`, so the file can too: opening a trace
                # ten times must not leave ten copies of it in the journal.
                self._file.truncate(0)
                lines.append(b'{"type":"cleared"}\n')
            self._file.write(b"".join(lines))
            if event.loaded:
                return  # a file being opened: it is on disk already; the next live event flushes
            self._file.flush()
            if durable:
                os.fsync(self._file.fileno())
        except OSError as exc:  # a full disk must not break the run being recorded
            self._stop(exc)

    def _stop(self, exc: OSError) -> None:
        self.problem = f"The autosave stopped: cannot write {self.path}: {exc.strerror or exc}"
        self._close_file()
        if self._on_problem is not None:
            self._on_problem(self.problem)

    def _close_file(self) -> None:
        handle, self._file = self._file, None
        if handle is None:
            return
        try:
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as exc:
            self.problem = self.problem or f"The autosave could not finish writing {self.path}: {exc.strerror or exc}"
        with contextlib.suppress(OSError):  # close flushes again what could not be written: lost either way
            handle.close()

    def close(self) -> None:
        self._unsubscribe()
        self._close_file()


@dataclass
class Recovery:
    """The trace as a journal last knew it, and where the journal stopped being readable, if it did."""

    operations: list[Operation] = field(default_factory=list)
    messages: list[TraceMessage] = field(default_factory=list)
    #: `line 12: data.seq: Input should be a valid integer (got '3')`, or None for an intact journal.
    damage: str | None = None


def recover(path: str | Path) -> Recovery:
    """Replay a journal up to its end or its first damaged line; operations cut off mid-flow are
    marked interrupted. Raises OSError only when the file cannot be read at all."""
    operations: dict[str, Operation] = {}
    #: By (operation, seq): a journal appended by several runs repeats seq numbers; dicts keep first-seen order.
    messages: dict[tuple[str, int], TraceMessage] = {}
    builder = file_format.Builder()
    damage = None
    with Path(path).open("rb") as handle:
        number = 0
        while line := handle.readline(MAX_RECORD_BYTES + 1):
            number += 1
            complete = line.endswith(b"\n")
            try:
                record = file_format.JOURNAL_RECORD.validate_json(line)
            except ValidationError as exc:
                if not complete and len(line) <= MAX_RECORD_BYTES:
                    break  # the last line, torn by the crash: everything before it is intact
                where, problem = file_format.first_problem(exc, tags=file_format.JOURNAL_TAGS)
                damage = f"line {number}: " + (f"{where}: {problem}" if where else problem)
                break
            if record["type"] == "cleared":
                operations.clear()
                messages.clear()
            elif record["type"] == "operation":
                op = builder.operation(record["data"])
                operations[op.id] = op
            else:
                entry = builder.messages([record["data"]])[0]
                if entry.operation_id not in operations:
                    damage = f"line {number}: data.operation_id: no operation {entry.operation_id!r} before it"
                    break
                messages[(entry.operation_id, entry.seq)] = entry
    for op in operations.values():
        if op.outcome == "running":
            op.outcome = "aborted"
            op.problem = INTERRUPTED
    ordered = list(messages.values())
    for seq, entry in enumerate(ordered):  # identity for one run; renumbers runs appended one after another
        entry.seq = seq
    return Recovery(list(operations.values()), ordered, damage)


def set_aside(path: Path) -> Path:
    """Rename a damaged journal next to itself (`autosave.damaged-20261201-091500.mrtr.jsonl`), never over another."""
    base, _, rest = path.name.partition(".")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for attempt in range(1000):
        suffix = f"-{attempt}" if attempt else ""
        target = path.with_name(f"{base}.damaged-{stamp}{suffix}" + (f".{rest}" if rest else ""))
        if not target.exists():
            path.replace(target)
            return target
    raise FileExistsError(f"no free name to set {path} aside")


def merged(older: tuple[list[Operation], list[TraceMessage]],
           newer: tuple[list[Operation], list[TraceMessage]]) -> tuple[list[Operation], list[TraceMessage]]:
    """Two traces as one: an operation in both is taken, with its messages, from `newer`; seqs renumbered."""
    newer_ids = {op.id for op in newer[0]}
    operations = [op for op in older[0] if op.id not in newer_ids] + newer[0]
    messages = [m for m in sorted(older[1], key=lambda m: m.seq) if m.operation_id not in newer_ids]
    messages += sorted(newer[1], key=lambda m: m.seq)
    for seq, entry in enumerate(messages):
        entry.seq = seq
    return operations, messages
