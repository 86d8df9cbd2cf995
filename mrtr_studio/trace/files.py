"""Save and open `.mrtr.json`: a whole trace (operations and their messages) as one JSON document.

A format name and version let a future studio refuse, with a clear message, files it cannot read
instead of misreading them; file_format checks everything else. Writes go to a temporary file first
so a crash never leaves half a file.

The document is written one record per line:

    {"format":"mrtr-studio-trace","version":1,
    "operations":[
    {...},
    {...}
    ],
    "messages":[
    {...}
    ]}

It is ordinary JSON (any tool reads it, and a diff shows one changed message as one line), and it
lets `open_trace` read a large trace record by record, in chunks, never holding the whole text and
the whole parsed tree at once (tools/bench_trace_load.py: 100,000 messages in about 130 MB, a
quarter of what the whole-text reader peaks at).
A file in any other layout (hand-edited, pretty-printed, an older studio's) is read whole instead.
A newer studio's file (format_version) may carry more top-level fields: they go on the first line,
before `"operations"`, and are written back there. An autosave or recording journal (`F.journal`,
what a recorder stopped at once leaves) opens too, as the trace it holds.
"""

import contextlib
import gc
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import defaults
from . import autosave, file_format, format_version
from .file_format import FORMAT, MAX_RECORD_BYTES, VERSION, Contents, TraceFileError
from .file_format import NotOneRecordPerLine as _OtherLayout
from .format_version import Newer
from .memory_fit import check_fits
from .model import Operation, TraceMessage, encode
from .origin import FileRef, Origin
from .private_files import private_writer
from .store import TraceStore

SUFFIX = ".mrtr.json"
_HEAD_START = b'{"format":'
_JOURNAL_START = b'{"type":'
_OPERATIONS = b'"operations":[\n'
_MESSAGES = b'"messages":[\n'
_CHUNK = 512

__all__ = ["FORMAT", "SUFFIX", "VERSION", "Opened", "TraceFileError", "load_into", "open_trace", "read_trace", "save",
           "to_document"]


@dataclass
class Opened(Contents):
    """A trace file read: its contents, the file as it was (for the journal's reference), and, for a
    journal, the sentence saying so."""

    file: FileRef | None = None
    journal: str | None = None

    def origin(self) -> Origin:
        """What the store is told the contents came from (the autosave references it)."""
        return Origin(self.file, frozenset(op.id for op in self.operations),
                      max((m.seq for m in self.messages), default=-1), newer=self.newer)

    def notes(self, source: str) -> list[str]:
        """What the person should be told about the file besides its contents (newer version, journal)."""
        return [note for note in (self.newer.note(source) if self.newer else None, self.journal) if note]


def to_document(operations: list[Operation], messages: list[TraceMessage]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION,
            "operations": [op.to_json() for op in operations],
            "messages": [m.to_json() for m in sorted(messages, key=lambda m: m.seq)]}


def _write_records(handle: IO[bytes], records: Iterator[bytes]) -> None:
    """One record per line, a comma after each but the last."""
    separator = b""
    for record in records:
        handle.write(separator + record)
        separator = b",\n"
    if separator:
        handle.write(b"\n")


def save(path: str | Path, source: TraceStore | tuple[list[Operation], list[TraceMessage]],
         newer: Newer | None = None) -> Path:
    """Write a trace atomically, private to its owner (mkstemp: 0600). A store opened from a newer
    studio's file (or `newer`) is written with that version and its unknown top-level fields."""
    if isinstance(source, TraceStore):
        operations, messages = source.operations, source.messages
        newer = newer or (source.origin.newer if source.origin is not None else None)
    else:
        operations, messages = source
    head: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if newer is not None:
        head = {**head, "version": format_version.written(newer.version), **newer.document}
    with private_writer(path) as handle, _no_cyclic_gc():
        handle.write(encode(head)[:-1] + b",\n" + _OPERATIONS)
        _write_records(handle, (file_format.operation_json(op) for op in operations))
        handle.write(b"],\n" + _MESSAGES)
        _write_records(handle, (file_format.message_json(m) for m in sorted(messages, key=lambda m: m.seq)))
        handle.write(b"]}\n")
    return Path(path)


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Building 100k+ acyclic objects triggers full cyclic collections over an ever larger heap, which
    cost more than the parsing itself; nothing built here is cyclic, so collection can wait."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _records(handle: IO[bytes], opening: bytes, closing: bytes) -> Iterator[list[bytes]]:
    """The record lines of one array section, in chunks; `_OtherLayout` as soon as a line does not fit."""
    if handle.readline(len(opening) + 1) != opening:
        raise _OtherLayout
    chunk: list[bytes] = []
    seen = ended = False
    while True:
        line = handle.readline(MAX_RECORD_BYTES + 3)
        if line == closing:
            if seen and not ended:
                raise _OtherLayout  # a comma after the last record: let the whole-text parser say where
            break
        if ended:
            raise _OtherLayout
        if line.endswith(b",\n"):
            chunk.append(line[:-2])
        elif line.endswith(b"\n"):
            chunk.append(line[:-1])
            ended = True
        else:
            raise _OtherLayout  # a record over the line limit, a torn file, or another layout
        seen = True
        if len(chunk) == _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _head(handle: IO[bytes], source: str) -> Newer | None:
    """The first line, `{"format":...,"version":...,` (and a newer studio's other fields)."""
    from pydantic import ValidationError  # with the first file read, not at every launch (file_records)

    line = handle.readline(MAX_RECORD_BYTES + 1)
    if not line.startswith(_HEAD_START) or not line.endswith(b",\n"):
        raise _OtherLayout
    try:
        head = file_format.HEAD.validate_json(line[:-2] + b"}")
    except ValidationError:
        raise _OtherLayout from None  # the whole-text reader names the problem
    return file_format.head_from(head, source)


def _read_by_records(handle: IO[bytes], source: str) -> Contents:
    newer = _head(handle, source)
    builder = file_format.Builder(source, newer)
    references = file_format.References(source)
    operations: list[Operation] = []
    for chunk in _records(handle, _OPERATIONS, b"],\n"):
        built = file_format.operations_from(chunk, source, builder, len(operations))
        references.operations(built, len(operations))
        operations += built
    messages: list[TraceMessage] = []
    for chunk in _records(handle, _MESSAGES, b"]}\n"):
        more = file_format.messages_from(chunk, source, builder, len(messages))
        references.messages(more, len(messages))
        messages += more
    if handle.read(1):
        raise _OtherLayout
    return Contents(operations, messages, newer)


def read_trace(path: str | Path) -> Opened:
    """A trace file's contents and what it was when read, or a ValueError saying what is wrong and
    where (TraceFileError with the JSON path of the first problem; VersionError naming both versions)."""
    source = str(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open; /dev/zero never ends
            raise ValueError(f"{source} is not a regular file")
        with open(path, "rb") as handle, _no_cyclic_gc():
            status = os.fstat(handle.fileno())
            check_fits(source, status.st_size, defaults.TRACE_MEMORY_PER_BYTE)  # no other ceiling on its size
            file = FileRef.of(path, status)
            if handle.read(len(_JOURNAL_START)) == _JOURNAL_START:
                return _journal(path, source, file)
            handle.seek(0)
            try:
                contents = _read_by_records(handle, source)
            except _OtherLayout:
                check_fits(source, status.st_size, defaults.TRACE_MEMORY_PER_BYTE_WHOLE)  # text and tree at once
                handle.seek(0)
                text = handle.read(status.st_size + 1)
                if len(text) > status.st_size:
                    raise ValueError(f"{source} grew while it was being read; open it once written") from None
                contents = file_format.document_from(text, source)
            return Opened(contents.operations, contents.messages, contents.newer, file)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _journal(path: str | Path, source: str, file: FileRef) -> Opened:
    """A journal opened as a trace (what a recorder stopped at once leaves): its records up to any damage."""
    recovery = autosave.recover(path)
    if recovery.damage:
        raise ValueError(f"{source} is a journal damaged at {recovery.damage}")
    if recovery.source is not None:
        raise ValueError(f"{source} is an autosave journal of a session that had {recovery.source.path} open; "
                         "reopen it with File > Reopen the last session")
    return Opened(recovery.operations, recovery.messages, None, file,
                  journal=f"{source} is a journal (a recording that was not finished): its "
                          f"{len(recovery.operations)} operation(s) are shown; save it as a trace to keep it whole.")


def open_trace(path: str | Path) -> tuple[list[Operation], list[TraceMessage]]:
    """A trace file's operations and messages (read_trace without the rest)."""
    opened = read_trace(path)
    return opened.operations, opened.messages


def saved_origin(path: Path, store: TraceStore) -> Origin:
    """What a store's contents are once saved whole to `path`: that file, every operation in it."""
    newer = store.origin.newer if store.origin is not None else None
    return Origin(FileRef.of(path, os.stat(path)), frozenset(op.id for op in store.operations),
                  max((m.seq for m in store.messages), default=-1), newer=newer)


def load_into(store: TraceStore, path: str | Path) -> Opened:
    """Open a file into a store (the GUI's File > Open): one `cleared`, then the adds; the journal
    references the file instead of copying it."""
    opened = read_trace(path)
    store.load(opened.operations, opened.messages, opened.origin())
    return opened
