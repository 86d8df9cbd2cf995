"""Where the lab and the eras view send: the embedded engine, or the studio's current connection.

Transports are opened by the studio's connection (`Connection.open_transports`, through the studio's own
transport factory, so HTTP, stdio and whatever the studio was given all work). Only the embedded engine
lends the lab its clock.
"""

from PySide6.QtWidgets import QComboBox, QWidget

from ...studio.controller import Studio
from ...studio.server_entries import EMBEDDED, ServerEntry
from .common import DEMO_TARGETS

EMBEDDED_CHOICE = "embedded"
CURRENT_CHOICE = "current"


class TargetPicker(QComboBox):
    """Embedded engine or the studio's connection (offered only when that is something else)."""

    def __init__(self, studio: Studio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.studio = studio
        self.setAccessibleName("Server under test")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)  # a long connection label must not widen the whole view
        self.refresh()

    def refresh(self) -> None:
        keep = self.currentData()
        self.clear()
        self.addItem("Embedded demo engine", EMBEDDED_CHOICE)
        if self.studio.entry.kind != "embedded":
            self.addItem(f"Studio's connection: {self.studio.entry.label}", CURRENT_CHOICE)
        index = self.findData(keep)
        self.setCurrentIndex(index if index >= 0 else 0)

    @property
    def embedded(self) -> bool:
        return self.currentData() != CURRENT_CHOICE

    def entry(self) -> ServerEntry:
        return EMBEDDED if self.embedded else self.studio.entry

    def label(self) -> str:
        return "embedded" if self.embedded else self.studio.entry.label

    def targets(self) -> list[tuple[str, str]]:
        """What the picked server offers: the studio's listing of it when it has one, else the demo's."""
        catalog = self.studio.catalog
        if self.embedded or catalog is None:
            return list(DEMO_TARGETS)
        found = [("tools/call", str(t.get("name"))) for t in catalog.tools]
        found += [("prompts/get", str(p.get("name"))) for p in catalog.prompts]
        found += [("resources/read", str(r.get("uri"))) for r in catalog.resources]
        return found or list(DEMO_TARGETS)
