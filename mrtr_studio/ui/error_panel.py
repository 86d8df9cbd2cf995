"""The problems panel: every error the studio meets (connection, JSON-RPC -32xxx, tampering), newest first."""

import time

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from .theme import status_colours


class ErrorPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.latest = QLabel("No problems.")
        self.latest.setObjectName("latestError")
        self.latest.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("Problems")
        clear = QPushButton("Clear")
        clear.clicked.connect(self.clear)
        top = QHBoxLayout()
        top.addWidget(self.latest, 1)
        top.addWidget(clear)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addLayout(top)
        box.addWidget(self.list)

    def add(self, text: str, kind: str = "error") -> None:
        mark = "✗" if kind == "error" else "·"  # not colour alone
        item = QListWidgetItem(f"{time.strftime('%H:%M:%S')} {mark} {text}")
        if kind == "error":
            colour = status_colours()["error"]  # readable on the light or the dark palette
            item.setForeground(QColor(colour))
            self.latest.setText(f"✗ {text}")
            self.latest.setStyleSheet(f"color: {colour};")
        self.list.insertItem(0, item)

    def texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def clear(self) -> None:
        self.list.clear()
        self.latest.setText("No problems.")
        self.latest.setStyleSheet("")
