"""Work-arounds for the Qt binding in use.

PySide6 6.12.0 on Python 3.11 drops one reference to the bool that `SignalInstance.emit()` returns
(measured: `sys.getrefcount(True)` falls by one per emit). `True` starts near 600 references, so a
few hundred emits from Python abort the interpreter ("bool_dealloc: deallocating True"). From 3.12
on, True is immortal and the bug is harmless. `emit()` gives the reference back; an extra reference
to True or False is harmless should a fixed PySide6 not need it. Signals emitted by Qt itself (C++)
are not affected.
"""

import ctypes
import sys
from typing import Any

_COMPENSATE = sys.version_info < (3, 12)


def emit(signal: Any, *args: Any) -> None:
    """`signal.emit(*args)` without PySide6 6.12's lost reference to the returned bool."""
    result = signal.emit(*args)
    if _COMPENSATE and isinstance(result, bool):
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))
