"""PySide6 6.12 abi3 wheels on Python 3.11 drop a reference to None/True per void call or emit;
without qt_compat, the loops below abort the interpreter (None starts near 5,000 references)."""

from PySide6.QtCore import QObject, QRectF, Signal
from PySide6.QtWidgets import QGraphicsRectItem

from mrtr_studio.ui import qt_compat


class _Emitter(QObject):
    fired = Signal(object)


def test_many_void_calls_and_emits_survive(qtbot) -> None:  # type: ignore[no-untyped-def]
    qt_compat.ensure()
    item = QGraphicsRectItem()
    for i in range(20_000):
        item.setZValue(i)
        item.setRect(QRectF(0, 0, i, 1))
    emitter = _Emitter()
    emitter.fired.connect(lambda _value: None)
    for i in range(5_000):
        emitter.fired.emit(i)
    assert all(count > 10_000 for count in qt_compat.refcounts().values())
