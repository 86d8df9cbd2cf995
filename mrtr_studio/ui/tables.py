"""The one way the studio builds a table of many rows (message log, operations list).

Fixed row heights and column widths: the view never measures its rows, so a 100,000-row trace
scrolls and repaints at the same cost as ten rows.
"""

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QAbstractItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

ROW_HEIGHT = 22


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
