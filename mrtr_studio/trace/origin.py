"""Where a trace store's contents came from when a file was opened: what the autosave journals
instead of a copy of the file (a reference: path, size, modification time), and what a saved
trace must write back (the unknown fields of a newer studio's file).

Opening a trace of a million messages must not write a second copy of it into the journal; the
journal names the file and then holds only this session's own work (new operations, operations of
the file that changed, recovered work). Recovery reopens the file and says when it is gone or has
changed since (trace/reopen.py).
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from .format_version import Newer


@dataclass(frozen=True)
class FileRef:
    """A file as it was when opened: its absolute path, size and modification time (nanoseconds)."""

    path: str
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str | Path, stat: os.stat_result) -> "FileRef":
        return cls(os.path.abspath(path), stat.st_size, stat.st_mtime_ns)

    def change(self) -> str | None:
        """None while the file is as referenced; else what happened to it, as a sentence's end."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return "is gone"
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if now.st_size != self.size:
            return f"has changed since (it was {self.size} bytes, it is {now.st_size})"
        if now.st_mtime_ns != self.mtime_ns:
            return "has changed since (it was modified after it was opened)"
        return None


@dataclass
class Origin:
    """The opened file behind a store's first `len(operation_ids)` operations and its messages up to
    `last_seq`; `changed`: those of its operations this session changed (journaled as new work)."""

    file: FileRef | None
    operation_ids: frozenset[str] = frozenset()
    last_seq: int = -1
    changed: set[str] = field(default_factory=set)
    #: The file was written by a newer studio: its version and unknown top-level fields, written back on save.
    newer: Newer | None = None

    def is_own_operation(self, operation_id: str) -> bool:
        """Whether an operation is this session's work (not the file's, or the file's but changed)."""
        return operation_id not in self.operation_ids or operation_id in self.changed
