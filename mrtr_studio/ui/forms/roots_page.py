"""The client's roots: an editable, validated list, and the page answering one roots/list request.

Each row is checked with `root_problem` as it is edited (red cell + tooltip + a message line), so
an invalid root can never be sent. The same RootsEditor serves the settings panel and the
per-request confirmation page.
"""

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mrtr_studio.client.forms.roots import list_roots_result, path_to_uri, root_problem

from ..builders import button_row, push_button
from .answer_page import AnswerPage
from .elicitation_page import action_buttons, header_label
from .schema_form import error_line

if TYPE_CHECKING:
    from mrtr_studio.protocol.models import Root

BAD_CELL = QColor("#ffd6d6")


class RootsEditor(QWidget):
    """A two-column table (URI, name) with Add / Add folder… / Remove; emits `changed`."""

    changed = Signal()

    def __init__(self, roots: "list[Root] | None" = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["URI (file://)", "Name"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAccessibleName("Roots")
        self.table.setTabKeyNavigation(False)
        layout.addWidget(self.table)
        self.add_button = push_button("rootsAdd", "Add &root", self._add_and_edit)
        self.folder_button = push_button("rootsAddFolder", "Add &folder…", self._choose_folder)
        self.remove_button = push_button("rootsRemove", "Re&move", self._remove_selected)
        layout.addLayout(button_row(self.add_button, self.folder_button, self.remove_button))
        self.error = error_line(self)
        layout.addWidget(self.error)
        self.table.itemChanged.connect(self._on_item_changed)
        self.set_roots(roots or [])

    def set_roots(self, roots: "list[Root] | list[dict[str, Any]]") -> None:
        self.table.setRowCount(0)
        for root in roots:
            entry = root if isinstance(root, dict) else root.wire()
            self.add_root(str(entry.get("uri", "")), str(entry.get("name") or ""))
        self.check()

    def add_root(self, uri: str, name: str = "") -> None:
        row = self.table.rowCount()
        self.table.blockSignals(True)
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(uri))
        self.table.setItem(row, 1, QTableWidgetItem(name))
        self.table.blockSignals(False)
        self.check()
        self.changed.emit()

    def _add_and_edit(self) -> None:
        """Add root: a new row whose URI is being edited, so what the person types lands in it
        (it went to the button, and Return pressed "Add root" again: two bare "file:///" roots)."""
        self.add_root("file:///", "")
        row = self.table.rowCount() - 1
        item = self.table.item(row, 0)
        assert item is not None  # add_root just set it
        self.table.setCurrentCell(row, 0)
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        self.table.editItem(item)

    def _choose_folder(self) -> None:
        dialog = QFileDialog(self, "Choose a root folder")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.fileSelected.connect(lambda path: self.add_root(path_to_uri(path), path.rstrip("/").split("/")[-1]))
        dialog.open()  # non-blocking

    def _remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
        self.check()
        self.changed.emit()

    def _on_item_changed(self, *_: Any) -> None:
        self.check()
        self.changed.emit()

    def entries(self) -> list[tuple[str, str]]:
        rows = []
        for row in range(self.table.rowCount()):
            uri, name = self.table.item(row, 0), self.table.item(row, 1)
            rows.append((uri.text().strip() if uri else "", name.text().strip() if name else ""))
        return rows

    def problems(self) -> list[str]:
        return [f"Row {i + 1}: {p}" for i, (uri, _) in enumerate(self.entries()) if (p := root_problem(uri))]

    def check(self) -> list[str]:
        """Mark invalid URI cells and show what is wrong; returns the problems."""
        self.table.blockSignals(True)
        for row, (uri, _) in enumerate(self.entries()):
            item = self.table.item(row, 0)
            if item is None:
                continue
            problem = root_problem(uri)
            item.setBackground(QBrush(BAD_CELL) if problem else QBrush())
            item.setToolTip(problem or "")
        self.table.blockSignals(False)
        problems = self.problems()
        self.error.setText(" ".join(problems))
        self.error.setVisible(bool(problems))
        return problems

    def roots(self) -> "list[Root]":
        """The configured roots; raises ValueError while any row is invalid."""
        from mrtr_studio.protocol.models import Root  # pydantic with the first roots sent, not at launch

        problems = self.check()
        if problems:
            raise ValueError("; ".join(problems))
        return [Root(uri=uri, name=name or None) for uri, name in self.entries()]


class RootsPage(AnswerPage):
    """Confirm the roots sent for one roots/list request; emits `answered(ListRootsResult)` or `skipped()`."""

    def __init__(self, roots: "list[Root] | None" = None, server_name: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.addWidget(header_label(server_name, "Which folders may the server work in? (roots/list)", self))
        self.editor = RootsEditor(roots, self)
        layout.addWidget(self.editor, 1)
        row, (self.send_button, self.skip_button) = action_buttons(self, "&Send roots", "S&kip")
        self.skip_button.setToolTip("Leave this input out of the retry")
        layout.addLayout(row)
        self.send_button.clicked.connect(self.send)
        self.skip_button.clicked.connect(self.skip)

    def send(self) -> dict[str, Any] | None:
        try:
            result = list_roots_result(self.editor.roots())
        except ValueError:
            self.editor.table.setFocus(Qt.FocusReason.OtherFocusReason)
            return None
        return self._answer(result)
