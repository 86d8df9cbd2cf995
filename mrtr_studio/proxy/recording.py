"""What a recorder (proxy, wrapper) keeps: a trace store with the linter attached, a stitcher
feeding it, and, when asked, a file: a journal while it runs, the `.mrtr.json` when it stops.

The journal (`FILE.journal`, JSON lines, fsync'ed per round, 0600 from its first byte) means a
recorder that is killed loses no completed round; a clean stop writes the trace document atomically
and removes the journal. Told to stop at once (shutdown.StopRequests), or unable to write the
document, it keeps the journal instead: a complete trace the studio opens, and `kept` says so.
"""

import contextlib
from pathlib import Path

from ..trace import TraceStore, files, lint
from ..trace.autosave import Autosave, recover
from ..transport.base import Tap
from .shutdown import Abandoned, StopRequests
from .stitch import Stitcher


class Recording:
    def __init__(self, server_label: str, label: str, trace_path: str | Path | None = None) -> None:
        self.store = TraceStore()
        lint.attach(self.store)
        self.tap = Tap()
        self.stitcher = Stitcher(self.store, server_label, label)
        self.tap.listen(self.stitcher)
        self.trace_path = Path(trace_path) if trace_path else None
        self._journal: Autosave | None = None
        #: Why the trace file was not written and the journal kept instead, as a sentence; or None.
        self.kept: str | None = None
        if self.trace_path is not None:
            self.journal_path.unlink(missing_ok=True)
            self._journal = Autosave(self.store, self.journal_path)

    @property
    def journal_path(self) -> Path:
        assert self.trace_path is not None
        return self.trace_path.with_name(self.trace_path.name + ".journal")

    def close(self, stop: StopRequests | None = None) -> Path | None:
        """Write the trace file (when one was asked for) and drop the journal; returns the file. Asked to
        stop at once (before or during the write) or unable to write, it keeps the journal: None, `kept` set."""
        if self._journal is None or self.trace_path is None:
            return None
        self._journal.close()  # whole lines, fsync'ed: from here the journal is a complete trace
        self._journal = None
        try:
            with stop.saving_phase() if stop is not None else contextlib.nullcontext():
                files.save(self.trace_path, self.store)
        except Abandoned:
            self.kept = f"stopped at once (Ctrl+C twice): {self.trace_path} was not written"
            return None
        except OSError as exc:
            self.kept = f"cannot write {self.trace_path}: {exc.strerror or exc}"
            return None
        self.journal_path.unlink(missing_ok=True)
        return self.trace_path

    def kept_note(self) -> str:
        """The stderr line when the journal was kept: what happened and where the recording is."""
        messages = len(self.store.messages)
        return (f"{self.kept}; {self.journal_path} keeps the {len(self.store.operations)} operation(s) and "
                f"{messages} message(s) recorded, a complete trace the studio opens")


def recovered(trace_path: str | Path) -> tuple[list[object], list[object]]:
    """What a killed recorder's journal holds (for a caller that finds `FILE.journal` left behind)."""
    return recover(Path(str(trace_path) + ".journal"))  # type: ignore[return-value]
