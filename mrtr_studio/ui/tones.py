"""Text colours that stay readable whether the palette is light or dark.

A warning written in dark red on a dark window is nearly invisible, so every coloured text in the
inspectors and forms names a Tone (its light-palette and dark-palette colour) and asks for it
when it renders, from the widget's own palette. Colour is never the only cue: the texts also
carry a symbol (✔ ✖ ⚠ ≠) or are bold.
"""

from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

Tone = tuple[str, str]  # (on a light window, on a dark window)
ERROR: Tone = ("#b00020", "#ff8a80")
WARNING: Tone = ("#8a5a00", "#f0c060")
PASS: Tone = ("#1e7b34", "#7ddc8f")
MUTED: Tone = ("#666666", "#a8a8a8")
CHANGED: Tone = ("#b26a00", "#ffb74d")
#: The marked (failed) row: text and background chosen together.
MARKED_TEXT: Tone = ("#8a1c00", "#ffd6d0")
MARKED_BACKGROUND: Tone = ("#fde2e0", "#5a1f1a")


def is_dark(widget: QWidget | None = None) -> bool:
    palette = widget.palette() if widget is not None else QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def tone(which: Tone, widget: QWidget | None = None) -> str:
    return which[1] if is_dark(widget) else which[0]


def color_style(which: Tone, widget: QWidget | None = None, extra: str = "") -> str:
    """A style sheet giving `widget` the tone's colour (plus `extra` declarations)."""
    return f"color: {tone(which, widget)};{(' ' + extra) if extra else ''}"
