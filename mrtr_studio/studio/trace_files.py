"""Trace files for the window: save and open (in the background for big ones), the autosave journal,
what it recovers after a crash, and "Reopen the last session".

A journal left behind means the last run did not close cleanly: its operations come back into the
trace and are kept beside the journal until discarded, so they survive clean quits. A damaged
journal is set aside (renamed, kept), never deleted. An opened file is referenced by the journal,
not copied into it.
"""

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ..trace import Operation, TraceMessage, TraceStore, files
from ..trace.autosave import Autosave, merged, recover, set_aside
from ..trace.origin import FileRef
from ..trace.reopen import with_source
from .events import Events


def last_session_path(journal: Path) -> Path:
    return journal.with_name(journal.stem + ".last" + journal.suffix)


def recovered_path(journal: Path) -> Path:
    """Where operations recovered after a crash are kept until discarded: a trace file next to the journal."""
    return journal.with_name(journal.name.partition(".")[0] + ".recovered" + files.SUFFIX)


class TraceFiles:
    def __init__(self, store: TraceStore, events: Events, busy: Callable[[], bool]) -> None:
        self.store = store
        self.events = events
        self.busy = busy
        self.autosave: Autosave | None = None
        #: What starting the autosave found that the person should know: (level, text), for the window to show.
        self.autosave_notices: list[tuple[Literal["info", "error"], str]] = []
        #: Operations recovered after a crash and kept until `discard_recovered`.
        self.recovered_ids: set[str] = set()
        self._recovered_file: Path | None = None
        self._crashed_source: FileRef | None = None
        #: What Clear took away, for Undo: the operations, the messages and the file they came from.
        self._cleared: tuple[list[Operation], list[TraceMessage], Any] | None = None

    def clear_trace(self) -> int:
        """Empty the trace, keeping what was there so that `undo_clear` can bring it back; how many
        operations were cleared. ValueError while an operation runs."""
        self._check_idle("clearing the trace")
        store = self.store
        if not store.operations:
            return 0
        self._cleared = (list(store.operations), list(store.messages), store.origin)
        store.clear()
        return len(self._cleared[0])

    @property
    def can_undo_clear(self) -> bool:
        return self._cleared is not None

    def undo_clear(self) -> int:
        """Bring back what Clear took, with anything run since; the file referenced, not copied."""
        if self._cleared is None:
            return 0
        operations, messages, origin = self._cleared
        self._cleared = None
        store = self.store
        keep = (list(store.operations), list(store.messages))  # anything run since the clear stays too
        store.load(operations + keep[0], messages + keep[1], origin)
        return len(operations)

    def save_trace(self, path: str | Path) -> Path:
        """Save the whole trace; the journal then references the saved file instead of holding it."""
        saved = files.save(path, self.store)
        if self.autosave is not None:
            self.autosave.rebase(files.saved_origin(saved, self.store))
        return saved

    def open_trace(self, path: str | Path) -> list[str]:
        """Replace the trace with a saved one, findings as they were recorded. A file that is not a
        readable trace raises ValueError (files.TraceFileError names the JSON path) and changes nothing.
        Returns what the person should be told about the file (written by a newer studio, ...)."""
        self._check_idle("opening a trace")
        opened = files.read_trace(path)
        self.store.load(opened.operations, opened.messages, opened.origin())  # the linter skips loads
        return opened.notes(str(path))

    def _check_idle(self, doing: str) -> None:
        """Replacing the trace under a running operation would pull its record from under it."""
        if self.busy():
            raise ValueError(f"stop the running operation before {doing}")

    async def open_trace_in_background(self, path: str | Path) -> list[str]:
        """`open_trace` without holding up the event loop (the window stays responsive on a 100k-message
        trace): the file is read and checked in a worker thread, then loaded into the store here, on
        the loop's thread, where the views listen. Errors as for `open_trace`."""
        self._check_idle("opening a trace")
        opened = await asyncio.to_thread(files.read_trace, path)
        self._check_idle("opening a trace")  # a run may have started while the file was read
        self.store.load(opened.operations, opened.messages, opened.origin())
        return opened.notes(str(path))

    def _notice(self, level: Literal["info", "error"], text: str) -> None:
        self.autosave_notices.append((level, text))
        if level == "error":
            self.events.error(text)
        else:
            self.events.info(text)

    def start_autosave(self, path: str | Path) -> int:
        """Journal this run to `path`; returns how many recovered operations are in the trace.

        A journal left at `path` means the last run did not close cleanly: its operations are
        recovered into the trace and kept in `recovered_path(path)` until `discard_recovered`, so
        they survive clean quits ("Reopen the last session" has them) and later starts. A damaged
        journal is set aside (renamed, kept) with what came before the damage recovered. What the
        person should know lands in `autosave_notices`; nothing here stops the studio starting."""
        path = Path(path)
        self.autosave_notices = []
        kept_file = self._recovered_file = recovered_path(path)
        kept: tuple[list[Operation], list[TraceMessage]] = ([], [])
        if kept_file.exists():
            try:
                kept = files.open_trace(kept_file)
            except ValueError as exc:
                aside = self._set_aside(kept_file)
                self._notice("error", f"The recovered operations could not be read ({exc}); "
                                      f"the file is kept as {aside}.")
        crashed = self._recover_journal(path)
        if crashed is not None and crashed[0]:
            kept = merged(kept, crashed)
        # The file the crashed session had open, reopened under its work (kept alone if gone or changed).
        reopened = with_source(self._crashed_source, *kept)
        if crashed is not None and crashed[0]:
            try:  # the file's unknown fields on its changed operations need its version
                files.save(kept_file, kept, reopened.origin.newer if reopened.origin else None)
            except OSError as exc:
                self._notice("error", f"Cannot keep the recovered operations in {kept_file}: {exc.strerror or exc}")
        try:
            self.autosave = Autosave(self.store, path, on_problem=self.events.error)
        except OSError as exc:
            self._notice("error", f"The autosave is off: cannot write {path}: {exc.strerror or exc}")
        if reopened.problem:
            self._notice("error", reopened.problem)
        for note in reopened.notes:
            self._notice("info", note)
        if reopened.operations:
            # After the journal opened: the new journal (and last session) has them too, the file by reference.
            self.store.load(reopened.operations, reopened.messages, reopened.origin)
        if kept[0]:
            self.recovered_ids = {op.id for op in kept[0]}
            fresh = len(crashed[0]) if crashed is not None else 0
            self._notice("info", (f"Recovered {fresh} operation(s) from the autosave of a run that did not close "
                                  "cleanly. " if fresh else "")
                         + f"{len(kept[0])} recovered operation(s) are kept (in {kept_file}) until you discard them.")
        return len(kept[0])

    def _recover_journal(self, path: Path) -> tuple[list[Operation], list[TraceMessage]] | None:
        """A crashed run's journal: recovered, then moved to the last-session file (or set aside if damaged).
        The trace file it referenced is left in `_crashed_source` for the caller to reopen."""
        self._crashed_source = None
        try:
            if not path.exists() or not path.stat().st_size:
                return None
            recovery = recover(path)
        except OSError as exc:
            aside = self._set_aside(path)
            self._notice("error", f"The autosave journal {path} cannot be read ({exc.strerror or exc}); "
                                  f"it is kept as {aside}.")
            return None
        if recovery.damage:
            aside = self._set_aside(path)
            before = (f"the {len(recovery.operations)} operation(s) before the damage are recovered"
                      if recovery.operations else "nothing before the damage could be recovered")
            self._notice("error", f"The autosave journal was damaged at {recovery.damage}; it is kept as {aside} "
                                  f"and {before}.")
        else:
            try:
                path.replace(last_session_path(path))
            except OSError as exc:
                self._notice("error", f"Cannot move the crashed run's journal {path}: {exc.strerror or exc}")
        self._crashed_source = recovery.source
        return recovery.operations, recovery.messages

    def _set_aside(self, path: Path) -> Path | str:
        try:
            return set_aside(path)
        except OSError as exc:
            return f"{path} (it could not be renamed: {exc.strerror or exc})"

    def discard_recovered(self) -> int:
        """Forget the operations recovered after a crash: out of the trace (and so the journal), and
        their kept file deleted. Returns how many were discarded."""
        ids, self.recovered_ids = self.recovered_ids, set()
        if self._recovered_file is not None:
            self._recovered_file.unlink(missing_ok=True)
        if any(op.id in ids for op in self.store.operations):
            self.store.load([op for op in self.store.operations if op.id not in ids],
                            [m for m in self.store.messages if m.operation_id not in ids], self.store.origin)
        return len(ids)

    def reopen_last_session(self, path: str | Path) -> int:
        """Load the last cleanly closed session's journal; a damage is reported and what came before it loaded."""
        previous = last_session_path(Path(path))
        if self.busy():
            self.events.error("stop the running operation before reopening the last session")
            return 0
        if not previous.exists():
            return 0
        try:
            recovery = recover(previous)
        except OSError as exc:
            self.events.error(f"Cannot read the last session {previous}: {exc.strerror or exc}")
            return 0
        if recovery.damage:
            self.events.error(f"The last session's journal {previous} is damaged at {recovery.damage}; "
                        "what came before the damage is shown.")
        reopened = with_source(recovery.source, recovery.operations, recovery.messages)
        if reopened.problem:
            self.events.error(reopened.problem)
        for note in reopened.notes:
            self.events.info(note)
        self.store.load(reopened.operations, reopened.messages, reopened.origin)
        return len(recovery.operations)

    def close(self) -> None:
        """A clean exit: the journal becomes the last session's."""
        if self.autosave is not None:
            self.autosave.close()
            with contextlib.suppress(OSError):  # nobody is left to tell; the journal stays for the next start
                self.autosave.path.replace(last_session_path(self.autosave.path))
            self.autosave = None
