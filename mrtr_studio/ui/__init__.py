"""The PySide6 studio. The only package that imports Qt.

PySide6 is imported here, before any of the package's modules, so that its check of every module
imported after it reads bytes, not tokenized source (`pyside_source_check` says why).
"""

import PySide6.QtCore  # noqa: F401  (loads the import hook `pyside_source_check` speeds up)

from . import pyside_source_check

pyside_source_check.install()
