"""Zoom for every diagram and text pane: Ctrl+wheel, Ctrl+= / Ctrl++ / Ctrl+- / Ctrl+0, and Fit width.

A diagram zooms by its view transform alone, so zooming never touches the scene's items. Three modes:
"auto" (the default) shows the diagram at its readable default scale, shrinking a little when the view
is narrow; "fit" scales the diagram's natural width to the view's width and keeps doing so on resize;
"manual" keeps what the person chose. Ctrl+0 goes back to "auto". Text panes (code, explanations) zoom
their font with the same keys, through `TextZoom`.
"""

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QResizeEvent, QTransform, QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QGraphicsView, QWidget

STEP = 1.15
MIN_ZOOM, MAX_ZOOM = 0.25, 5.0
AUTO_MIN = 0.85  # "auto" never shrinks text below this: the view scrolls instead


def zoom_command(event: QKeyEvent) -> str | None:
    """"in", "out" or "reset" for the zoom keys (Ctrl+Alt+digit stays the Teach menu's), else None."""
    modifiers = event.modifiers()
    if not modifiers & Qt.KeyboardModifier.ControlModifier or modifiers & Qt.KeyboardModifier.AltModifier:
        return None
    key = event.key()
    if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
        return "in"
    if key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
        return "out"
    if key == Qt.Key.Key_0:
        return "reset"
    return None


def forward_zoom_keys(event: QKeyEvent, *targets: "ZoomableCanvas | TextZoom") -> bool:
    """A view's keyPressEvent fallback: the zoom keys pressed on its buttons or fields zoom `targets`."""
    what = zoom_command(event)
    if what is None:
        return False
    for target in targets:
        target.command(what)
    event.accept()
    return True


def wheel_steps(event: QWheelEvent) -> float:
    """Notches of a Ctrl+wheel turn (0 without Ctrl): positive zooms in."""
    if not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
        return 0.0
    return event.angleDelta().y() / 120.0


def clamp(value: float, low: float = MIN_ZOOM, high: float = MAX_ZOOM) -> float:
    return max(low, min(high, value))


class ZoomableCanvas(QGraphicsView):
    """A QGraphicsView that zooms by transform; `natural_width()` is what "fit" fits (set by the owner)."""

    zoomChanged = Signal(float)
    #: After a resize, the width in scene units the view shows: the owner may spread its lanes over it.
    visibleWidthChanged = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = "auto"
        self.default_zoom = 1.0
        self.natural_width: Callable[[], float] = lambda: max(self.sceneRect().width(), 1.0)
        self._zoom = 1.0
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)

    @property
    def zoom(self) -> float:
        return self._zoom

    def visible_width(self) -> float:
        """How wide the viewport is in scene units at the current zoom."""
        return max(self.viewport().width() - 2, 1) / self._zoom

    def set_zoom(self, zoom: float, mode: str = "manual") -> None:
        self.mode = mode
        self._apply(clamp(zoom))

    def _apply(self, zoom: float) -> None:
        if abs(zoom - self._zoom) < 1e-6 and abs(self.transform().m11() - zoom) < 1e-6:
            return
        self._zoom = zoom
        self.setTransform(QTransform.fromScale(zoom, zoom))
        self.zoomChanged.emit(zoom)

    def zoom_in(self, steps: float = 1.0) -> None:
        self.set_zoom(self._zoom * STEP ** steps)

    def zoom_out(self, steps: float = 1.0) -> None:
        self.set_zoom(self._zoom / STEP ** steps)

    def reset_zoom(self) -> None:
        self.mode = "auto"
        self.refit()

    def fit_width(self) -> None:
        self.mode = "fit"
        self.refit()

    def fitted_zoom(self) -> float:
        return max(self.viewport().width() - 2, 1) / max(self.natural_width(), 1.0)

    def refit(self) -> None:
        """Recompute the zoom of the "auto" and "fit" modes for the current viewport (manual: unchanged)."""
        if self.mode == "fit":
            self._apply(clamp(self.fitted_zoom()))
        elif self.mode == "auto":
            self._apply(clamp(min(self.default_zoom, self.fitted_zoom()), min(AUTO_MIN, self.default_zoom),
                              self.default_zoom))

    def command(self, what: str) -> None:
        {"in": self.zoom_in, "out": self.zoom_out, "reset": self.reset_zoom, "fit": self.fit_width}[what]()

    # --- events ------------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.refit()
        self.visibleWidthChanged.emit(self.visible_width())

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = wheel_steps(event)
        if not steps:
            super().wheelEvent(event)
            return
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.zoom_in(steps)
        self.setTransformationAnchor(anchor)
        event.accept()

    def event(self, event: QEvent) -> bool:
        # Claim the zoom keys before any window shortcut does, while the diagram has the focus.
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and zoom_command(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        what = zoom_command(event)
        if what:
            self.command(what)
            event.accept()
            return
        super().keyPressEvent(event)


class TextZoom(QObject):
    """Zooms the fonts of text widgets together (code, explanations) with the diagram's keys and wheel."""

    changed = Signal(float)

    def __init__(self, widgets: Iterable[QWidget], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.widgets = list(widgets)
        self._base = {id(w): w.font().pointSizeF() if w.font().pointSizeF() > 0 else 10.0 for w in self.widgets}
        self.default = 1.0
        self.scale = 1.0
        for widget in self.widgets:
            widget.installEventFilter(self)
            if isinstance(widget, QAbstractScrollArea):
                widget.viewport().installEventFilter(self)  # wheel events go to the viewport

    def set_scale(self, scale: float) -> None:
        self.scale = clamp(scale, 0.5, 4.0)
        for widget in self.widgets:
            font = widget.font()
            font.setPointSizeF(self._base[id(widget)] * self.scale)
            widget.setFont(font)
        self.changed.emit(self.scale)

    def set_default(self, scale: float) -> None:
        """The scale Ctrl+0 returns to (presentation mode raises it); applied at once."""
        self.default = scale
        self.set_scale(scale)

    def command(self, what: str) -> None:
        if what == "in":
            self.set_scale(self.scale * STEP)
        elif what == "out":
            self.set_scale(self.scale / STEP)
        elif what == "reset":
            self.set_scale(self.default)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Wheel and isinstance(event, QWheelEvent) and wheel_steps(event):
            self.set_scale(self.scale * STEP ** wheel_steps(event))
            return True
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and isinstance(event, QKeyEvent):
            what = zoom_command(event)
            if what:
                event.accept()
                if kind == QEvent.Type.KeyPress:
                    self.command(what)
                return True
        return False
