"""The client panel: which era the simulated client speaks, what it declares, who it is, the engine's clock."""

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..client.settings import CAPABILITY_FLAGS
from ..studio.controller import Studio, StudioEvent
from ..studio.identities import IDENTITY_PRESETS, Identity, custom_identity
from .builders import subscribe_while_alive

ERAS = (("modern", "Modern (2026-07-28, MRTR)"), ("legacy", "Legacy (2025-11-25)"), ("auto", "Auto (probe)"))
CUSTOM = "custom"


class ClientPanel(QWidget):
    changed = Signal()

    def __init__(self, studio: Studio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.studio = studio
        self._loading = False
        self.era_box = QComboBox()
        self.era_box.setAccessibleName("Era")
        for value, text in ERAS:
            self.era_box.addItem(text, value)
        self.capability_boxes: dict[str, QCheckBox] = {}
        caps = QGroupBox("Declared capabilities")
        caps_box = QGridLayout(caps)  # two columns: the panel stays short enough for the server list
        caps_box.setContentsMargins(6, 2, 6, 2)
        caps_box.setVerticalSpacing(0)
        for index, flag in enumerate(CAPABILITY_FLAGS):
            check = QCheckBox(flag)
            check.setChecked(flag in studio.capabilities)
            check.toggled.connect(self._apply)
            self.capability_boxes[flag] = check
            caps_box.addWidget(check, index // 2, index % 2)
        self.identity_box = QComboBox()
        self.identity_box.setAccessibleName("Identity")
        for name in IDENTITY_PRESETS:
            self.identity_box.addItem(name, name)
        self.identity_box.addItem("custom…", CUSTOM)
        for box in (self.era_box, self.identity_box):  # fits a ~300 px column; the popup shows whole names
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(12)
            box.setToolTip(box.currentText())
            box.currentTextChanged.connect(box.setToolTip)
        self.custom_user = QLineEdit()
        self.custom_user.setPlaceholderText("principal name")
        self.custom_token = QLineEdit()
        self.custom_token.setPlaceholderText("bearer token (HTTP)")
        self.custom_row = QWidget()
        row = QHBoxLayout(self.custom_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.custom_user)
        row.addWidget(self.custom_token)
        self.clock_label = QLabel("engine clock: now")
        self.clock_label.setObjectName("clockLabel")
        self.clock_label.setWordWrap(True)  # "engine clock: 10 min ahead" wraps rather than widening the column
        ahead = QPushButton("+10 min")
        ahead.setToolTip("Move the embedded engine's clock ahead (requestState expiry)")
        ahead.clicked.connect(lambda: studio.advance_clock(600))
        reset = QPushButton("Reset clock")
        reset.clicked.connect(studio.reset_clock)
        clock_row = QHBoxLayout()
        clock_row.addWidget(self.clock_label, 1)
        for widget in (ahead, reset):
            clock_row.addWidget(widget)

        form = QFormLayout()
        form.addRow("&Era", self.era_box)
        form.addRow("&Identity", self.identity_box)
        form.addRow("", self.custom_row)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 2, 4, 2)  # the side column is short at 1366x768
        outer.setSpacing(4)
        outer.addLayout(form)
        outer.addWidget(caps)
        outer.addLayout(clock_row)
        outer.addStretch(1)

        self.era_box.currentIndexChanged.connect(self._apply)
        self.identity_box.currentIndexChanged.connect(self._apply)
        self.custom_user.editingFinished.connect(self._apply)
        self.custom_token.editingFinished.connect(self._apply)
        subscribe_while_alive(self, studio, self._on_studio)
        self.load(self.to_json())

    # --- reading and writing -----------------------------------------------------------------

    def era(self) -> str:
        return str(self.era_box.currentData())

    def capabilities(self) -> frozenset[str]:
        return frozenset(flag for flag, box in self.capability_boxes.items() if box.isChecked())

    def identity(self) -> Identity:
        choice = self.identity_box.currentData()
        if choice == CUSTOM:
            return custom_identity(self.custom_user.text(), self.custom_token.text())
        return IDENTITY_PRESETS[str(choice)]

    def to_json(self) -> dict[str, Any]:
        return {"era": self.era(), "capabilities": sorted(self.capabilities()),
                "identity": self.identity_box.currentData(), "custom_user": self.custom_user.text(),
                "custom_token": self.custom_token.text()}

    def load(self, data: dict[str, Any]) -> None:
        """Show (and apply to the studio) saved settings; unknown values are ignored."""
        self._loading = True
        try:
            index = self.era_box.findData(data.get("era"))
            if index >= 0:
                self.era_box.setCurrentIndex(index)
            caps = data.get("capabilities")
            if isinstance(caps, list | tuple | frozenset | set):
                for flag, box in self.capability_boxes.items():
                    box.setChecked(flag in caps)
            self.custom_user.setText(str(data.get("custom_user") or ""))
            self.custom_token.setText(str(data.get("custom_token") or ""))
            index = self.identity_box.findData(data.get("identity"))
            if index >= 0:
                self.identity_box.setCurrentIndex(index)
        finally:
            self._loading = False
        self._apply()

    def set_era(self, era: str) -> None:
        self.era_box.setCurrentIndex(max(0, self.era_box.findData(era)))

    def set_capability(self, flag: str, on: bool) -> None:
        self.capability_boxes[flag].setChecked(on)

    def set_identity(self, name: str) -> None:
        self.identity_box.setCurrentIndex(max(0, self.identity_box.findData(name)))

    # --- keeping the studio in step ----------------------------------------------------------

    def _apply(self, *_: Any) -> None:
        self.custom_row.setVisible(self.identity_box.currentData() == CUSTOM)
        if self._loading:
            return
        studio = self.studio
        if studio.era != self.era():
            studio.set_era(self.era())
        if studio.capabilities != self.capabilities():
            studio.set_capabilities(self.capabilities())
        if studio.identity != self.identity():
            studio.set_identity(self.identity())
        self.changed.emit()

    def _say_who(self) -> None:
        """No static token, and the server's OAuth flow holds one: the requests speak for that sign-in, so
        the choice says so (as the operations list does) instead of "anonymous"; the column keeps its size."""
        index = self.identity_box.findData("anonymous")
        if index >= 0:
            oauth = self.studio.identity_shown() == "OAuth"
            self.identity_box.setItemText(index, "OAuth sign-in" if oauth else "anonymous")
            self.identity_box.setItemData(index, "requests carry the token this server's OAuth flow obtained"
                                          if oauth else "no Authorization header", Qt.ItemDataRole.ToolTipRole)

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind in ("catalog", "run_finished", "settings"):
            self._say_who()
        if event.kind == "clock":
            offset = self.studio.clock_offset
            self.clock_label.setText("engine clock: now" if not offset else f"engine clock: {offset / 60:+.0f} min")
