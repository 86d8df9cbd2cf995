"""Files that hold traffic (exports of a flow, reports quoting messages): written private to their
owner, 0600 from their first byte, and atomically (a temporary file beside them, then renamed), so
neither another user nor a crash half-way ever sees them otherwise. Trace files and journals do the
same in files.save and autosave.open_private.
"""

import os
import tempfile
from pathlib import Path


def write_private(path: str | Path, data: bytes | str) -> Path:
    """Write `data` (text as UTF-8) to `path`, replacing it; the file is 0600 whatever the umask."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
