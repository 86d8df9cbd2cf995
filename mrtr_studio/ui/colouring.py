"""How a colouring rule shows on a row: the tint as the row's background (one brush per tint and
theme, made once) and the rule's name in its tooltip, so colour is never the only cue. The models
(ui/log/message_model.py, ui/operations_view.py) ask here; the rules are studio/colour_rules.py's.
"""

from PySide6.QtGui import QBrush, QColor

from ..studio.colour_rules import ColourRule, tint_of
from .tones import is_dark

_brushes: dict[tuple[str, bool], QBrush] = {}


def tint_colour(rule: ColourRule) -> QColor:
    return QColor(tint_of(rule, is_dark()))


def background(rule: ColourRule | None) -> QBrush | None:
    if rule is None:
        return None
    key = (rule.tint, is_dark())
    brush = _brushes.get(key)
    if brush is None:
        brush = _brushes[key] = QBrush(tint_colour(rule))
    return brush


def tooltip(rule: ColourRule | None, existing: str | None = None) -> str | None:
    """The view's own tooltip, then the rule that coloured the row."""
    if rule is None:
        return existing
    line = f"Colouring rule: {rule.name}"
    return f"{existing}\n{line}" if existing else line
