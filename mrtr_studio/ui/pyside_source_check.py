"""PySide6's question "does this module use PySide6?", answered from the file's bytes.

Once PySide6 is imported it watches every later import (PYSIDE-2029): the first time a module is
seen, `shibokensupport.feature._mod_uses_pyside` decides whether `from __feature__ import
snake_case` may switch that module's Qt names, by looking for the text "PySide6" in its source. It
gets that source through `inspect.getsource`: linecache, tokenize's encoding detection and a decoded
copy of every line kept for the life of the process, about 100 µs a module. The window imports some
450 modules after PySide6, so that was 40-45 ms of every launch (measured in `tools/bench_launch.py`'s
launch with the hook timed), for a question the studio never asks (it selects no feature).

`install()` gives PySide6 the same verdict from the file's bytes (13 ms for the same launch): the
text "PySide6" is the same bytes in every encoding a Python source file may declare but UTF-16, which
Python cannot import. A module that is not a plain `.py` file (a builtin, an extension, a zip member,
a file that cannot be read) is still asked of PySide6's own function, so every verdict is the one
PySide6 would have reached. On a PySide6 without this hook nothing is replaced (`install` says so by
returning False; `tests/ui/test_pyside_source_check.py` then fails, so an upgrade is noticed).
"""

import sys
from collections.abc import Callable
from types import ModuleType

#: PySide6's module holding the hook, once PySide6 is imported.
FEATURE_MODULE = "shibokensupport.feature"
#: What PySide6 looks for in a module's source.
NEEDLE = b"PySide6"


def uses_pyside_by_bytes(module: ModuleType, fallback: Callable[[ModuleType], bool]) -> bool:
    """Whether `module`'s source file holds "PySide6"; `fallback` (PySide6's own) for anything else."""
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and path.endswith(".py"):
        try:
            with open(path, "rb") as source:
                return NEEDLE in source.read()
        except OSError:
            pass  # not a plain file (a zip member, gone since): PySide6's way finds it or says no
    return fallback(module)


def install() -> bool:
    """Answer PySide6's per-module question from the file's bytes; False when PySide6 has no such hook."""
    feature = sys.modules.get(FEATURE_MODULE)
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(original):
        return False
    if getattr(original, "__wrapped__", None) is not None:
        return True  # installed already

    def uses_pyside(module: ModuleType) -> bool:
        return uses_pyside_by_bytes(module, original)

    uses_pyside.__wrapped__ = original
    feature._mod_uses_pyside = uses_pyside
    return True
