"""The one bounded read of a small file someone named (a key, a collection, a JWT): never more than
`limit` bytes are read, so a huge file or /dev/zero cannot fill memory, and both ways it can fail
are the same one-line ValueError wherever a flag or a file names it.
"""

from pathlib import Path


def size_text(limit: int) -> str:
    return f"{limit // 1024} KiB" if limit >= 1024 and limit % 1024 == 0 else f"{limit} bytes"


def read_capped(path: str | Path, limit: int, flag: str = "") -> bytes:
    """The bytes of `path`, at most `limit`. ValueError, prefixed with `flag` when given, saying that it
    cannot be read (and why) or that it is over the limit (never quoting the content)."""
    prefix = f"{flag}: " if flag else ""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise ValueError(f"{prefix}cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise ValueError(f"{prefix}{path} is over {size_text(limit)}")
    return raw
