"""Guard against a Qt binding that leaks references to None/True (PySide6 6.12.0 under Python 3.11).

Such a build drops one reference to None per void call (setZValue, setRect, ...) and one to True per
signal emit; the interpreter aborts once they run out. The check runs in a fresh interpreter so an
abort fails this test instead of killing the whole suite.
"""

import subprocess
import sys
import textwrap


def test_void_calls_and_emits_keep_none_and_true_alive() -> None:
    script = textwrap.dedent("""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QObject, QRectF, Signal
        from PySide6.QtWidgets import QApplication, QGraphicsRectItem
        app = QApplication([])

        class Emitter(QObject):
            fired = Signal(object)

        before = sys.getrefcount(None), sys.getrefcount(True)
        item = QGraphicsRectItem()
        for i in range(20_000):
            item.setZValue(i)
            item.setRect(QRectF(0, 0, i, 1))
        emitter = Emitter()
        emitter.fired.connect(lambda _value: None)
        for i in range(5_000):
            emitter.fired.emit(i)
        after = sys.getrefcount(None), sys.getrefcount(True)
        print(after[0] - before[0], after[1] - before[1])
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"the Qt binding aborted the interpreter: {run.stderr[-500:]}"
    none_delta, true_delta = (int(x) for x in run.stdout.split())
    assert none_delta > -100 and true_delta > -100, (none_delta, true_delta)
