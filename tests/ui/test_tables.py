"""ColumnsModel: the header and column count of the studio's flat tables, from their fixed column names."""

from PySide6.QtCore import QModelIndex, Qt

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.operations_view import COLUMNS, OperationsModel


def test_operations_header_from_its_columns(qtbot) -> None:
    model = OperationsModel(TraceStore())
    assert model.columnCount() == len(COLUMNS)
    assert [model.headerData(i, Qt.Orientation.Horizontal) for i in range(len(COLUMNS))] == list(COLUMNS)
    assert model.headerData(0, Qt.Orientation.Vertical) is None
    assert model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) is None
    assert model.columnCount(QModelIndex()) == len(COLUMNS)
