"""Whether a trace file fits in memory: the only ceiling on a trace's size.

A fixed ceiling (it was 1 GiB) refused a 1.1M-message proxy recording on a machine with memory to
spare and let a smaller file through on one without. So a file is refused when opening it would need
more than the memory available now (Linux's MemAvailable in /proc/meminfo: what can be had without
swapping), estimated from its size (defaults.TRACE_MEMORY_PER_BYTE), with a sentence naming both.
Where that cannot be read (another system, /proc not mounted), nothing is refused here: each record's
own bound (file_format.MAX_RECORD_BYTES) still holds.
"""

from pathlib import Path

MEMINFO = Path("/proc/meminfo")
#: At most this much of /proc/meminfo is read (it is a few KB).
_MEMINFO_LIMIT = 64 * 1024


def available_memory(meminfo: Path = MEMINFO) -> int | None:
    """Bytes of memory available now (MemAvailable), or None when the system does not say."""
    try:
        with open(meminfo, "rb") as handle:
            text = handle.read(_MEMINFO_LIMIT)
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(b":")
        if name == b"MemAvailable":
            parts = value.split()
            if parts and parts[0].isdigit():
                scale = 1024 if parts[1:2] == [b"kB"] else 1
                return int(parts[0]) * scale
            return None
    return None


def _mb(size: float) -> str:
    return f"{size / (1024 * 1024):,.0f} MB"


def check_fits(source: str, size: int, per_byte: float, available: int | None = None) -> None:
    """ValueError when a file of `size` bytes would need more memory than is available; `available`
    defaults to what the system says now."""
    free = available_memory() if available is None else available
    needed = size * per_byte
    if free is not None and needed > free:
        raise ValueError(f"{source} is {size:,} bytes ({_mb(size)}): opening it needs about {_mb(needed)} of "
                         f"memory and {_mb(free)} is available; close other programs or open it on a larger machine")
