"""Work-around for the Qt binding in use: PySide6 6.12.0 wheels on Python 3.11.

The wheels are abi3 builds whose C code returns None, True and False without a new reference, as
Python 3.12+ allows (those objects are immortal there). On 3.11 every such return drops one real
reference: measured, `sys.getrefcount(None)` falls by one per `item.setZValue()`, `setRect()`,
`setPos()`..., and `sys.getrefcount(True)` by one per `signal.emit()`. None starts near 5,000 and
True near 600, so a few seconds of painting, or a few hundred emits, abort the interpreter
("none_dealloc: deallocating None"). `ensure()` gives these singletons a refcount no program can
exhaust, which is what 3.12's immortality does; on 3.12+ it does nothing.
"""

import ctypes
import sys

_SINGLETONS = (None, True, False, NotImplemented, Ellipsis)
_BOOST = 1 << 40
_done = False


def ensure() -> None:
    """Make the singletons effectively immortal on Python < 3.12 (idempotent)."""
    global _done
    if _done or sys.version_info >= (3, 12):
        return
    for obj in _SINGLETONS:
        ctypes.c_ssize_t.from_address(id(obj)).value += _BOOST  # ob_refcnt is the first field
    _done = True


def refcounts() -> dict[str, int]:
    """For diagnostics: the current refcounts of the singletons."""
    return {repr(obj): sys.getrefcount(obj) for obj in _SINGLETONS}


ensure()
