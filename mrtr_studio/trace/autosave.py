"""Append-only autosave: a JSON-lines journal of store events, so a crash loses no completed round.

Every event is one line written at once (the OS has it even if the process is killed); when a
round completes (a response, an error or an unreadable reply arrives, or an operation ends) the
journal is also fsync'ed, so it survives a power cut too. `recover` replays the journal: the last
line about an operation or message wins, and a torn last line (the crash cut it) is ignored. When
the trace is cleared or replaced (a file opened), the journal starts again: it holds one trace.

A file opened is referenced, never copied: a `source` line names it (path, size, modification time,
its last seq) and the journal then holds only this session's own work, so opening a trace of a
million messages costs the journal a line, not a gigabyte. Recovery reopens it (trace/reopen.py).
The journal holds traffic: it is created readable by its owner only (0600) from its first byte.

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

from . import file_format
from .file_format import MAX_RECORD_BYTES
from .model import Operation, TraceMessage, encode
from .origin import FileRef, Origin
from .store import StoreEvent, TraceStore

_ROUND_ENDS = frozenset({"input_required", "complete", "error", "invalid"})
INTERRUPTED = "interrupted: recovered from the autosave"


class Autosave:
    """Journal a store's events to `path` (appending; one file may hold several sessions)."""

    def __init__(self, store: TraceStore, path: str | Path,
                 on_problem: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = open_private(self.path)
        #: Why journaling stopped (a full disk, say), or None while it works; also told to `on_problem`.
        self.problem: str | None = None
        self._on_problem = on_problem
        self.store = store
        self._unsubscribe = store.subscribe(self._on_event, bulk=True)

    def _on_event(self, event: StoreEvent) -> None:
        if self._file is None:
            return
        if event.kind == "loaded":
            self._loaded()
            return
        durable = False
        lines = []
        origin = self.store.origin
        if origin is not None and event.operation is not None and event.operation.id in origin.operation_ids:
            origin.changed.add(event.operation.id)  # the file's operation changed: now the session's work too
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

    def _loaded(self) -> None:
        """The store's contents replaced: a reference to the file they came from and the session's own
        records, or (no file) every record; a line at a time into the file's buffer, then flushed."""
        origin = self.store.origin
        assert self._file is not None
        try:
            if origin is not None and origin.file is not None:
                reference = {"path": origin.file.path, "size": origin.file.size, "mtime_ns": origin.file.mtime_ns,
                             "last_seq": origin.last_seq}
                self._file.write(b'{"type":"source","data":' + encode(reference) + b"}\n")
                own = origin.is_own_operation
                last = origin.last_seq
                operations = (op for op in self.store.operations if own(op.id))
                messages = (m for m in self.store.messages if m.seq > last)
            else:
                operations = (op for op in self.store.operations)
                messages = (m for m in self.store.messages)
            for op in operations:
                self._file.write(b'{"type":"operation","data":' + file_format.operation_json(op) + b"}\n")
            for entry in messages:
                self._file.write(b'{"type":"message","data":' + file_format.message_json(entry) + b"}\n")
            self._file.flush()
            os.fsync(self._file.fileno())  # recovered work and the reference: on disk before anything new
        except OSError as exc:
            self._stop(exc)

    def rebase(self, origin: Origin) -> None:
        """The whole trace was just saved to `origin.file`: from now on the journal references that file
        (a `cleared` and a `source` line) instead of holding the session's work, and recovery reopens it."""
        self.store.origin = origin
        if self._file is None:
            return
        try:
            self._file.truncate(0)
            self._file.write(b'{"type":"cleared"}\n')
        except OSError as exc:
            self._stop(exc)
            return
        self._loaded()

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
    #: The trace file the session had opened (referenced, not copied), and its last message seq.
    source: FileRef | None = None
    source_last_seq: int = -1


def recover(path: str | Path) -> Recovery:
    """Replay a journal up to its end or its first damaged line; operations cut off mid-flow are
    marked interrupted. Raises OSError only when the file cannot be read at all."""
    from pydantic import ValidationError  # with the first journal read, not at every launch (file_records)

    operations: dict[str, Operation] = {}
    #: By (operation, seq): a journal appended by several runs repeats seq numbers; dicts keep first-seen order.
    messages: dict[tuple[str, int], TraceMessage] = {}
    builder = file_format.Builder(str(path), keep_unknown=True)  # an opened newer file's fields ride along
    damage = None
    source: FileRef | None = None
    last_seq = -1
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
                source, last_seq = None, -1
            elif record["type"] == "source":
                data = record["data"]
                source, last_seq = FileRef(data["path"], data["size"], data["mtime_ns"]), data["last_seq"]
            elif record["type"] == "operation":
                op = builder.operation(record["data"])
                operations[op.id] = op
            else:
                entry = builder.messages([record["data"]])[0]
                if entry.operation_id not in operations and source is None:  # else: the file's operation
                    damage = f"line {number}: data.operation_id: no operation {entry.operation_id!r} before it"
                    break
                messages[(entry.operation_id, entry.seq)] = entry
    for op in operations.values():
        if op.outcome == "running":
            op.outcome = "aborted"
            op.problem = INTERRUPTED
    ordered = list(messages.values())
    for seq, entry in enumerate(ordered, last_seq + 1):  # identity for one run; renumbers runs appended
        entry.seq = seq
    return Recovery(list(operations.values()), ordered, damage, source, last_seq)


def open_private(path: Path) -> IO[bytes]:
    """`path` for appending, created 0600 (never readable by others, not even for an instant); an
    existing file is made 0600 too."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


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
