"""The problems panel: every error the studio meets (connection, JSON-RPC -32xxx, tampering), newest first.

The line above the list sums the list up, so it never says "No problems." above listed entries;
entries wrap to the panel's width (a crash-recovery notice is long), whole in their tooltips too.
"""

import time

from PySide6.QtCore import Qt
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
        self.list.setWordWrap(True)  # a long notice wraps instead of running off the right edge
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.errors = 0
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
        item.setToolTip(text[:4000])
        if kind == "error":
            colour = status_colours()["error"]  # readable on the light or the dark palette
            item.setForeground(QColor(colour))
            self.errors += 1
            self.latest.setText(f"✗ {text}")
            self.latest.setStyleSheet(f"color: {colour};")
        self.list.insertItem(0, item)
        if not self.errors:
            count = self.list.count()
            self.latest.setText(f"No errors; {count} notice{'s' if count != 1 else ''} below.")

    def texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def clear(self) -> None:
        self.list.clear()
        self.errors = 0
        self.latest.setText("No problems.")
        self.latest.setStyleSheet("")
