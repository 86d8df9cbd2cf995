"""Save and open `.mrtr.json`: a whole trace (operations and their messages) as one JSON document.

A format name and version let a future studio refuse, with a clear message, files it cannot read
instead of misreading them. Writes go to a temporary file first so a crash never leaves half a file.
"""

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .model import Operation, TraceMessage
from .store import TraceStore

FORMAT = "mrtr-studio-trace"
VERSION = 1
SUFFIX = ".mrtr.json"


def to_document(operations: list[Operation], messages: list[TraceMessage]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION,
            "operations": [op.to_json() for op in operations],
            "messages": [m.to_json() for m in sorted(messages, key=lambda m: m.seq)]}


def from_document(data: Any, source: str = "the trace") -> tuple[list[Operation], list[TraceMessage]]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{source} is not an MRTR Studio trace (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ValueError(f"{source} has trace format version {data.get('version')!r}; this studio reads {VERSION}")
    try:
        operations = [Operation.from_json(op) for op in data["operations"]]
        messages = [TraceMessage.from_json(m) for m in data["messages"]]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{source} is damaged: {exc}") from exc
    return operations, messages


def save(path: str | Path, source: TraceStore | tuple[list[Operation], list[TraceMessage]]) -> Path:
    operations, messages = (source.operations, source.messages) if isinstance(source, TraceStore) else source
    target = Path(path)
    text = json.dumps(to_document(operations, messages), indent=1, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def open_trace(path: str | Path) -> tuple[list[Operation], list[TraceMessage]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    return from_document(data, str(path))


def load_into(store: TraceStore, path: str | Path) -> None:
    """Open a file into a store (the GUI's File > Open): one `cleared`, then the adds."""
    store.load(*open_trace(path))
