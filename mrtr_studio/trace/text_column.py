"""The log's free-text search over a million messages in one native call: the messages' JSON read in
place from their sealed blocks (model.PackedBlock), as Arrow strings polars searches on its threads.

Python cannot search a million texts case-insensitively in a keystroke: lowering each block of text
and finding the word in it took 0.6 s at a million messages, and a lowered copy to search instead would
cost another half of the trace in memory. Here each run of consecutive rows sealed in the same block
becomes an Arrow large-string array over the block's own bytes and offsets (nanoarrow builds it without
a copy), polars holds those arrays as the chunks of one column, and a keystroke is one
`str.contains` with an ASCII-only case-insensitive pattern (`(?i-u)`): the same verdict as
trace/filter.py's `_search` (compact JSON lowered byte by byte, `bytes.lower`) for an ASCII word,
computed in Rust on both cores with the GIL released.

Rows not in a block when coded (a message that could not be packed, one of another store's) are holes
in the column, tested one by one by the caller (`loose`); so are the last rows, which the store has not
sealed yet (`count` stops before them, and the next `sync` codes them once they are).

polars and nanoarrow are imported when the first big log is coded, not with the window. The column
is an accelerator: without them (`count` stays 0) the caller's own search answers for every row.
"""

import warnings
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from .model import BLOCK_MESSAGES, PackedBlock, TraceMessage, places_of

#: Rows coded between two looks at `cancelled`.
_LOOK = 8192
#: Rows searched between two looks at `cancelled`.
SLICE = 131_072


def _never() -> bool:
    return False


def _native() -> tuple[Any, Any] | None:
    """nanoarrow and polars, or None where polars cannot run. On a CPU without the features its build
    needs, polars warns before loading its binary and would then crash the process with an illegal
    instruction; that warning is turned into the refusal here, so the import stops before the binary."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="Missing required CPU features", category=RuntimeWarning)
            import nanoarrow
            import polars
    except (ImportError, RuntimeWarning):
        return None
    return nanoarrow, polars


class TextColumn:
    """The messages' JSON as one polars column, row for row with a list of messages appended to only."""

    def __init__(self) -> None:
        #: Rows coded into the column (the rows after them are tested one by one until coded).
        self.count = 0
        #: Coded rows whose message is in no block: holes in the column, tested one by one.
        self.loose = array("I")
        self._series: Any = None

    def sync(self, messages: Sequence[TraceMessage], total: int, cancelled: Callable[[], bool] = _never) -> None:
        """Code rows up to `total`, stopping before an unsealed tail of fewer than BLOCK_MESSAGES rows
        (the store seals it when it fills). Without polars (a platform it has no build for) nothing is
        coded, and the caller searches every row itself, as it does the holes."""
        native = _native()
        if native is None:
            return
        nanoarrow, polars = native

        pieces: list[Any] = []
        holes = 0

        def flush_holes() -> None:
            nonlocal holes
            if holes:
                pieces.append(polars.Series([None] * holes, dtype=polars.String))
                holes = 0

        row = self.count
        places = places_of(messages[row:total])
        index, look = 0, 0  # `cancelled` is asked every _LOOK rows: runs of a block are skipped whole
        while index < len(places):
            if index >= look:
                if cancelled():
                    break
                look = index + _LOOK
            value, at = places[index]
            if type(value) is not PackedBlock:
                if total - (row + index) <= BLOCK_MESSAGES and isinstance(value, bytes):
                    break  # the store's unsealed tail: coded once sealed
                self.loose.append(row + index)
                holes += 1
                index += 1
                continue
            flush_holes()
            first, end = index, index + 1  # the run of rows holding the block's next messages in order
            while end < len(places) and places[end][0] is value and places[end][1] == at + (end - first):
                end += 1
            array_view = nanoarrow.c_array_from_buffers(nanoarrow.large_string(), end - first,
                                                         [None, value.offsets, value.data], offset=at)
            pieces.append(polars.Series(array_view))
            index = end
        flush_holes()
        if pieces:
            column = self._series if self._series is not None else pieces.pop(0)
            for piece in pieces:
                column.append(piece)
            self._series = column
        self.count = row + index

    def search(self, patterns: Sequence[bytes], cancelled: Callable[[], bool] = _never) -> bytes | None:
        """One byte per coded row: 1 when its JSON holds one of `patterns` (ASCII), ignoring ASCII case;
        0 for the holes. None when `cancelled()` turned true: it is asked between slices of SLICE rows,
        so a search a newer keystroke made stale stops within a slice (~15 ms at a million rows) instead
        of holding the worker for the whole column (~100 ms) while the newer one waits."""
        native = _native() if self._series is not None and self.count else None
        if native is None:  # nothing coded (a column is only coded where polars runs)
            return bytes(self.count)
        nanoarrow, polars = native

        pattern = "(?i-u)" + "|".join(polars.escape_regex(p.decode("ascii")) for p in patterns)
        # As an expression over a frame, not the Series method: polars then splits the chunks over its
        # threads (measured at a million messages: 104 ms against 176 ms for "delete"). A slice of the
        # column is a view of its chunks: 8 slices cost ~5 ms more than one call at a million rows.
        found_in = polars.col("text").str.contains(pattern).fill_null(False).cast(polars.UInt8)
        masks = []
        for start in range(0, self.count, SLICE):
            if cancelled():
                return None
            length = min(SLICE, self.count - start)
            hits = self._series.slice(start, length).to_frame("text").select(found_in).to_series().rechunk()
            found = nanoarrow.Array(hits)
            masks.append(bytes(memoryview(found.buffer(1))[found.offset:found.offset + length]))
        return b"".join(masks)  # one slice: the same bytes object, not a copy


def rows_of(mask: bytes) -> array | None:
    """The rows set in a mask (one byte per row, 0 or 1), ascending, found by polars: a third of the time
    `itertools.compress` takes over a million rows, and without the GIL. None without polars."""
    native = _native()
    if native is None:
        return None
    nanoarrow, polars = native

    flags = polars.Series(nanoarrow.c_array_from_buffers(nanoarrow.uint8(), len(mask), [None, mask]))
    found = nanoarrow.Array(flags.cast(polars.Boolean).arg_true().cast(polars.UInt32).rechunk())
    rows = array("I")
    rows.frombytes(bytes(found.buffer(1))[found.offset * 4:(found.offset + len(found)) * 4])
    return rows
