"""A journal's session put back together: the trace file it referenced, reopened, plus the session's
own records over it; or, when that file is gone or has changed, the own records alone and a sentence
saying so (the person must never believe they see the file when they do not).

The session's operations replace the file's of the same id in place (an operation it changed, a
task it resumed); its messages are numbered after the file's last, so the combined trace is what
the session showed, and the new journal again references the file instead of copying it.
"""

from dataclasses import dataclass, field

from . import files
from .model import Operation, TraceMessage
from .origin import FileRef, Origin


@dataclass
class Reopened:
    operations: list[Operation]
    messages: list[TraceMessage]
    #: The file reopened, for `TraceStore.load` (so the journal references it again), or None.
    origin: Origin | None = None
    #: What to tell the person: the file reopened (and its notes), or why it was not.
    notes: list[str] = field(default_factory=list)
    problem: str | None = None


def with_source(source: FileRef | None, operations: list[Operation], messages: list[TraceMessage]) -> Reopened:
    """The session's own `operations` and `messages` over the file `source` names, when it is as it was."""
    if source is None:
        return Reopened(operations, messages)
    change = source.change()
    opened = None
    if change is None:
        try:
            opened = files.read_trace(source.path)
        except ValueError as exc:
            change = f"cannot be opened ({exc})"
    if opened is None or opened.file != source:
        change = change or "has changed since (it was modified while being reopened)"
        ids = {op.id for op in operations}
        own = [m for m in messages if m.operation_id in ids]
        left_out = len(messages) - len(own)
        return Reopened(operations, own, problem=(
            f"The trace file {source.path} that session had open {change}: it was not reopened; the session's "
            f"own {len(operations)} operation(s) are shown"
            + (f" ({left_out} message(s) it added to the file's operations are left out)." if left_out else ".")))
    origin = opened.origin()
    own_by_id = {op.id: op for op in operations}
    combined = [own_by_id.pop(op.id, op) for op in opened.operations] + list(own_by_id.values())
    origin.changed = {op.id for op in operations if op.id in origin.operation_ids}
    for seq, entry in enumerate(sorted(messages, key=lambda m: m.seq), origin.last_seq + 1):
        entry.seq = seq
    notes = [f"Reopened {source.path} ({len(opened.operations)} operation(s)), the trace that session had open.",
             *opened.notes(source.path)]
    return Reopened(combined, opened.messages + messages, origin, notes)
