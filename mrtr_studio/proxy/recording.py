"""What a recorder (proxy, wrapper) keeps: a trace store with the linter attached, a stitcher
feeding it, and, when asked, a file: a journal while it runs, the `.mrtr.json` when it stops.

The journal (`FILE.journal`, JSON lines, fsync'ed per round) means a recorder that is killed loses
no completed round; a clean stop writes the trace document atomically and removes the journal.
"""

from pathlib import Path

from ..trace import TraceStore, files, lint
from ..trace.autosave import Autosave, recover
from ..transport.base import Tap
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
        if self.trace_path is not None:
            self.journal_path.unlink(missing_ok=True)
            self._journal = Autosave(self.store, self.journal_path)

    @property
    def journal_path(self) -> Path:
        assert self.trace_path is not None
        return self.trace_path.with_name(self.trace_path.name + ".journal")

    def close(self) -> Path | None:
        """Write the trace file (when one was asked for) and drop the journal; returns the file."""
        if self._journal is None or self.trace_path is None:
            return None
        self._journal.close()
        self._journal = None
        files.save(self.trace_path, self.store)
        self.journal_path.unlink(missing_ok=True)
        return self.trace_path


def recovered(trace_path: str | Path) -> tuple[list[object], list[object]]:
    """What a killed recorder's journal holds (for a caller that finds `FILE.journal` left behind)."""
    return recover(Path(str(trace_path) + ".journal"))  # type: ignore[return-value]
