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
"""

import contextlib
import gc
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from . import file_format
from .file_format import FORMAT, MAX_RECORD_BYTES, MAX_TRACE_BYTES, VERSION, TraceFileError
from .file_format import NotOneRecordPerLine as _OtherLayout
from .model import Operation, TraceMessage
from .store import TraceStore

SUFFIX = ".mrtr.json"
_HEAD = b'{"format":"%s","version":%d,\n' % (FORMAT.encode(), VERSION)
_OPERATIONS = b'"operations":[\n'
_MESSAGES = b'"messages":[\n'
_CHUNK = 4096

__all__ = ["FORMAT", "SUFFIX", "VERSION", "TraceFileError", "load_into", "open_trace", "save", "to_document"]


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


def save(path: str | Path, source: TraceStore | tuple[list[Operation], list[TraceMessage]]) -> Path:
    operations, messages = (source.operations, source.messages) if isinstance(source, TraceStore) else source
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as handle, _no_cyclic_gc():
            handle.write(_HEAD + _OPERATIONS)
            _write_records(handle, (file_format.operation_json(op) for op in operations))
            handle.write(b"],\n" + _MESSAGES)
            _write_records(handle, (file_format.message_json(m) for m in sorted(messages, key=lambda m: m.seq)))
            handle.write(b"]}\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


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


def _read_by_records(handle: IO[bytes], source: str) -> tuple[list[Operation], list[TraceMessage]]:
    if handle.readline(len(_HEAD) + 1) != _HEAD:
        raise _OtherLayout
    builder = file_format.Builder()
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
    return operations, messages


def open_trace(path: str | Path) -> tuple[list[Operation], list[TraceMessage]]:
    """A trace file's operations and messages, or a ValueError saying what is wrong and where
    (TraceFileError with the JSON path of the first problem)."""
    source = str(path)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open; /dev/zero never ends
            raise ValueError(f"{source} is not a regular file")
        with open(path, "rb") as handle, _no_cyclic_gc():
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_TRACE_BYTES:
                raise ValueError(f"{source} is {size} bytes, over the limit of {MAX_TRACE_BYTES} bytes for a trace")
            try:
                return _read_by_records(handle, source)
            except _OtherLayout:
                pass
            handle.seek(0)
            return file_format.document_from(handle.read(MAX_TRACE_BYTES + 1), source)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc


def load_into(store: TraceStore, path: str | Path) -> None:
    """Open a file into a store (the GUI's File > Open): one `cleared`, then the adds."""
    store.load(*open_trace(path))
