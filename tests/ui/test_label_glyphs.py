"""Every glyph the diagram draws in its labels exists in the stock DejaVu Sans (no missing-glyph box
before "task · tools/call #1"), and a summary that does not fit ends in an ellipsis."""

from typing import Any

from PySide6.QtGui import QFont, QFontDatabase, QFontMetricsF, QRawFont

from mrtr_studio.trace.diagram_layout import STYLES
from mrtr_studio.ui.diagram.items import wrap


def test_each_arrow_tag_is_in_dejavu_sans(qapp: Any) -> None:
    assert "DejaVu Sans" in QFontDatabase.families(), "the stock fonts (fonts-dejavu-core) are missing"
    font = QRawFont.fromFont(QFont("DejaVu Sans"))
    assert font.familyName() == "DejaVu Sans"
    for kind, style in STYLES.items():
        missing = [f"U+{ord(ch):04X}" for ch in style.tag if not ch.isspace() and not font.supportsCharacter(ord(ch))]
        assert not missing, (kind, style.tag, missing)


def test_a_wrapped_summary_that_is_cut_shows_the_cut(qapp: Any) -> None:
    metrics = QFontMetricsF(QFont("DejaVu Sans", 9))
    text = "a result that goes on\nand on " * 20
    for lines in (1, 2, 3):
        shown = wrap(text, metrics, 200.0, lines)
        assert len(shown) == lines and shown[-1].endswith("…"), (lines, shown)
        assert all(metrics.horizontalAdvance(line) <= 200.0 for line in shown)
    assert wrap("short", metrics, 200.0, 2) == ["short"]
