"""Diagram and code colours derived from the widget's palette, so light and dark schemes both read.

Arrow colours come in pairs (trace.diagram_layout.Style.colour / .dark); everything else (text,
backgrounds, lifelines, the highlight) is taken from the palette itself. Colour is never the only
cue: line styles, arrow heads and the tags in the labels say the same thing.
"""

from dataclasses import dataclass, field, fields

from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette

from ...trace.diagram_layout import Style

#: The events a widget gets when its palette (or the application's: light/dark) changes.
PALETTE_EVENTS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)


def is_dark(palette: QPalette) -> bool:
    """A dark scheme: the window background is darker than its text."""
    return palette.color(QPalette.ColorRole.Window).lightness() < palette.color(
        QPalette.ColorRole.WindowText).lightness()


def pick(palette: QPalette, light: str, dark: str) -> QColor:
    """One of a pair of colours, the one that reads on this palette's background."""
    return QColor(dark if is_dark(palette) else light)


def blend(a: QColor, b: QColor, amount: float) -> QColor:
    """`a` moved `amount` (0..1) of the way toward `b`."""
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * amount, a.greenF() + (b.greenF() - a.greenF()) * amount,
                           a.blueF() + (b.blueF() - a.blueF()) * amount)


def style_colour(style: Style, palette: QPalette) -> QColor:
    """An arrow style's colour that reads on `palette` (the log's kind column can use it too)."""
    return QColor(style.dark if style.dark and is_dark(palette) else style.colour)


def line_highlight(palette: QPalette) -> QColor:
    """A background for highlighted lines (ran code, the selected arrow) that keeps the text readable."""
    return pick(palette, "#fff3b0", "#5a4a12")


@dataclass
class DiagramColours:
    """Every colour the diagram paints with; updated in place when the palette changes."""

    dark: bool = False
    text: QColor = field(default_factory=lambda: QColor("#222222"))
    muted: QColor = field(default_factory=lambda: QColor("#555555"))
    background: QColor = field(default_factory=lambda: QColor("#ffffff"))
    header: QColor = field(default_factory=lambda: QColor("#f4f6f9"))
    lane_box: QColor = field(default_factory=lambda: QColor("#eef2f7"))
    border: QColor = field(default_factory=lambda: QColor("#555555"))
    lifeline: QColor = field(default_factory=lambda: QColor("#aaaaaa"))
    separator: QColor = field(default_factory=lambda: QColor("#bbbbbb"))
    activation: QColor = field(default_factory=lambda: QColor("#fdfdfd"))
    highlight: QColor = field(default_factory=lambda: QColor("#fff3b0"))

    def update_from(self, palette: QPalette) -> None:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        fresh = DiagramColours(
            dark=is_dark(palette), text=text, muted=blend(text, base, 0.3), background=base,
            header=blend(base, text, 0.05), lane_box=blend(base, palette.color(QPalette.ColorRole.Highlight), 0.12),
            border=blend(text, base, 0.35), lifeline=blend(text, base, 0.6), separator=blend(text, base, 0.7),
            activation=blend(base, text, 0.03), highlight=line_highlight(palette))
        for each in fields(self):
            setattr(self, each.name, getattr(fresh, each.name))

    def arrow(self, style: Style) -> QColor:
        return QColor(style.dark if self.dark and style.dark else style.colour)
