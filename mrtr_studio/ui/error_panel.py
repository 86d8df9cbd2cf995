"""The problems panel: every error the studio meets (connection, JSON-RPC -32xxx, tampering), newest first."""

import time

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget


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
        item = QListWidgetItem(f"{time.strftime('%H:%M:%S')}  {text}")
        if kind == "error":
            item.setForeground(QColor("#b00020"))
            self.latest.setText(text)
            self.latest.setStyleSheet("color: #b00020;")
        self.list.insertItem(0, item)

    def texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def clear(self) -> None:
        self.list.clear()
        self.latest.setText("No problems.")
        self.latest.setStyleSheet("")
