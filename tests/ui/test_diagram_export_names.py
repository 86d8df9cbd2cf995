"""Every diagram's Export button (Lessons, Lab, Cluster, not only the Flow's) names its entries as
File > Export does: "Export as PNG…", "Export as SVG…", "Export as Mermaid…"."""

from typing import Any

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.selection import Selection


def test_a_diagrams_export_entries_read_export_as(qtbot: Any) -> None:
    view = SequenceDiagramView(TraceStore(), Selection())
    qtbot.addWidget(view)
    menu = view.export_button.menu()
    assert [a.text() for a in menu.actions()] == ["Export as PNG…", "Export as SVG…", "Export as Mermaid…"]
