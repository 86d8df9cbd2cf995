"""The one way the studio builds a table of many rows (message log, operations list).

Fixed row heights and column widths: the view never measures its rows, so a 100,000-row trace
scrolls and repaints at the same cost as ten rows.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTableWidget, QTreeWidget, QTreeWidgetItem

ROW_HEIGHT = 22
_Index = QModelIndex | QPersistentModelIndex


class ColumnsModel(QAbstractTableModel):
    """A flat table model whose columns are the fixed names in `columns`: the header and the column count
    every such model would otherwise write again. Subclasses give rowCount and data."""

    columns: ClassVar[Sequence[str]] = ()

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section]
        return None


def fixed_row_table(model: QAbstractItemModel, columns: Sequence[str], widths: Mapping[str, int],
                    default_width: int, selection: QAbstractItemView.SelectionMode) -> QTableView:
    """A row-selecting table over `model`, columns sized from `widths` (else `default_width`), last one stretched."""
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(selection)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
    header = table.horizontalHeader()
    for column, name in enumerate(columns):
        header.resizeSection(column, widths.get(name, default_width))
    header.setStretchLastSection(True)
    return table


def read_only_table(columns: Sequence[str], name: str) -> QTableWidget:
    """A small table the person reads but does not edit: `columns` as its header, `name` for screen
    readers, the last column taking the rest of the width."""
    table = QTableWidget(0, len(columns))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def second_level(tree: QTreeWidget) -> Iterator[tuple[QTreeWidgetItem, QTreeWidgetItem]]:
    """(group, row) for every row under a top-level group of a two-level tree (a call and its
    assertions, an area and its differences), in the order shown."""
    for top in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(top)
        assert group is not None  # within topLevelItemCount
        for child in range(group.childCount()):
            row = group.child(child)
            if row is not None:
                yield group, row
