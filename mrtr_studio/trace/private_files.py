"""Files that hold traffic (exports of a flow, reports quoting messages): written private to their
owner, 0600 from their first byte, and atomically (a temporary file beside them, then renamed), so
neither another user nor a crash half-way ever sees them otherwise. Trace files and journals do the
same in files.save and autosave.open_private.
"""

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def private_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary handle on a 0600 temporary file beside `path`; on a clean exit it is flushed, synced and
    renamed over `path`, on any exception removed (and `path` left as it was). The one place that
    writes a traffic file, so the mode and the atomicity cannot drift between writers."""
    target = Path(path)
    with written_beside(target, lambda tmp: os.replace(tmp, target)) as handle:
        yield handle


@contextlib.contextmanager
def written_beside(target: Path, finish: Callable[[str], None], mode: int = 0o600) -> Iterator[IO[bytes]]:
    """A binary handle on a new temporary file beside `target` (0600 while it is written); on a clean exit
    it is flushed, synced, given `mode` and handed to `finish` (rename it over `target`, link it...), on any
    exception — `finish`'s too — removed. Every atomic write beside a file goes through it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        finish(tmp)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_private(path: str | Path, data: bytes | str) -> Path:
    """Write `data` (text as UTF-8) to `path`, replacing it; the file is 0600 whatever the umask."""
    with private_writer(path) as handle:
        handle.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return Path(path)
