"""Writing files that hold traffic: owner-only (0600) from the first byte, replaced atomically.

An export of a trace (HAR, OTLP, HTML...) carries what servers and clients said, session ids
included; nobody else on the machine should read it, not even for the moment between creating
the file and changing its mode.
"""

import os
import tempfile
from pathlib import Path


def write_private(path: str | Path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8) to `path` as a 0600 file; an OSError names the path."""
    target = Path(path)
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:  # mkstemp creates it 0600
            handle.write(raw)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
