"""Presentation mode (F11): the centre alone, in a larger font, stepped with a presenter's clicker.

The window goes full screen (the projector's); the side column, the inspectors, the bottom panels
and the toolbar hide; the application font scales up; every central view that has
`set_presentation(on)` is told, so it can enlarge its own drawing. Right / Page Down step forward,
Left / Page Up back (what clickers send): through the active lesson, or through the shown flow's
messages; Escape (or F11 again) leaves and puts back the window and its layout exactly as they were.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from .layout import Workbench

SCALE = 1.5
FORWARD = {Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Space}
BACKWARD = {Qt.Key.Key_Left, Qt.Key.Key_PageUp}


class Stepper(Protocol):
    def step(self) -> None: ...
    def back(self) -> None: ...


@dataclass
class _Saved:
    """What presentation mode changed, to be put back as it was."""

    main: QByteArray
    top: QByteArray
    font: QFont
    status: bool
    state: Qt.WindowState
    geometry: QRect
    visible: dict[str, bool] = field(default_factory=dict)
    toolbars: list[QWidget] = field(default_factory=list)


class Presentation(QObject):
    def __init__(self, window: QMainWindow, workbench: Workbench, tell: Callable[[bool], None],
                 stepper: "Callable[[], Stepper | None]") -> None:
        super().__init__(window)
        self.window = window
        self.workbench = workbench
        #: Tells the central views presentation mode is on or off (the window's teaching tabs, which
        #: also start a view built later in it).
        self.tell = tell
        self.stepper = stepper  # what the clicker steps: the active lesson, or the shown flow
        self.active = False
        self._saved: _Saved | None = None

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def enter(self) -> None:
        if self.active:
            return
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        bench = self.workbench
        self._saved = saved = _Saved(
            QByteArray(bench.saveState()), QByteArray(bench.top.saveState()), app.font(),
            not self.window.statusBar().isHidden(), self.window.windowState(), self.window.geometry(),
            {name: not panel.isHidden() for name, panel in bench.panels().items()},
            [bar for name in ("runToolbar", "modeBar") for bar in self.window.findChildren(QWidget, name)
             if not bar.isHidden()])
        self.active = True
        for panel in bench.panels().values():
            panel.hide()
        for bar in saved.toolbars:
            bar.hide()
        self.window.statusBar().hide()
        font = app.font()
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * SCALE)
        else:
            font.setPixelSize(round(font.pixelSize() * SCALE))
        app.setFont(font)
        self.tell(True)
        self.window.setWindowState(self.window.windowState() | Qt.WindowState.WindowFullScreen)  # the projector's
        QTimer.singleShot(150, self, self._cover_screen)
        app.installEventFilter(self)

    def _cover_screen(self) -> None:
        """Without a window manager full screen is only a flag: cover the screen by hand then."""
        screen = self.window.screen()
        if self.active and screen is not None and self.window.geometry() != screen.geometry():
            self.window.setGeometry(screen.geometry())

    def leave(self) -> None:
        if not self.active:
            return
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.removeEventFilter(self)
        self.active = False
        saved, self._saved = self._saved, None
        assert saved is not None
        app.setFont(saved.font)
        self.tell(False)
        self.window.setWindowState(saved.state)
        if not saved.state & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen):
            self.window.setGeometry(saved.geometry)
        bench = self.workbench
        for name, panel in bench.panels().items():
            panel.setVisible(saved.visible.get(name, True))
        for bar in saved.toolbars:
            bar.show()
        self.window.statusBar().setVisible(saved.status)
        bench.restoreState(saved.main)
        bench.top.restoreState(saved.top)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if not self.window.isActiveWindow() and QApplication.activeWindow() is not None:
            return False  # a dialog of its own keeps its keys
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.leave()
            return True
        stepper = self.stepper()
        if stepper is None:
            return False
        if key in FORWARD:
            stepper.step()
            return True
        if key in BACKWARD:
            stepper.back()
            return True
        return False
