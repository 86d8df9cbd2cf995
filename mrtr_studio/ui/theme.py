"""Light and dark: the Fusion style with a full palette, following the system unless told otherwise.

Fusion draws every widget from the palette, so one palette makes every panel readable in either
scheme (the platform styles ignore parts of it). "system" follows
`QGuiApplication.styleHints().colorScheme()` and changes with it; the View menu can pin light or dark.
Views that paint their own colours ask `is_dark()` and `status_colours()`.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton

ThemeChoice = Literal["system", "light", "dark"]
THEME_CHOICES: tuple[ThemeChoice, ...] = ("system", "light", "dark")
_state: dict[str, object] = {"choice": "system", "dark": False, "connected": False}


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)  # Qt 6.5+
    return scheme is not None and scheme() == Qt.ColorScheme.Dark


def dark_palette() -> QPalette:
    palette = QPalette()
    group = QPalette.ColorGroup
    role = QPalette.ColorRole
    colours = {
        role.Window: "#2b2d31", role.WindowText: "#e6e6e6", role.Base: "#1e1f22", role.AlternateBase: "#26282c",
        role.ToolTipBase: "#3a3d42", role.ToolTipText: "#f0f0f0", role.PlaceholderText: "#8c8f94",
        role.Text: "#e6e6e6", role.Button: "#34373c", role.ButtonText: "#e6e6e6", role.BrightText: "#ff6b6b",
        role.Link: "#6cb4ff", role.LinkVisited: "#b59cff", role.Highlight: "#2f65ca", role.HighlightedText: "#ffffff",
        role.Light: "#45484e", role.Midlight: "#3a3d42", role.Mid: "#2a2c30", role.Dark: "#1a1b1e",
        role.Shadow: "#000000",
    }
    for colour_role, colour in colours.items():
        palette.setColor(colour_role, QColor(colour))
    for colour_role in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, colour_role, QColor("#7a7d82"))
    return palette


#: A ring around the focused check box or radio button: Fusion marks their focus with a faint dotted
#: rectangle only, which read as no focus at all in either scheme. The transparent border keeps the
#: size steady; the ring is the palette's highlight, so it follows light and dark.
FOCUS_RING = ("QCheckBox, QRadioButton { border: 2px solid transparent; border-radius: 3px; padding: 1px; }"
              "QCheckBox:focus, QRadioButton:focus { border-color: palette(highlight); }")


class _FocusRings(QObject):
    """Gives each check box and radio button the ring as it is polished: a style sheet of its own,
    not the application's (which would replace the Fusion style object the views ask about)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Polish and isinstance(watched, QCheckBox | QRadioButton) \
                and not watched.styleSheet():
            watched.setStyleSheet(FOCUS_RING)
        return False


def apply_theme(app: QApplication, choice: ThemeChoice = "system") -> bool:
    """Set Fusion and the palette for `choice`; True when the result is dark."""
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    dark = system_is_dark() if choice == "system" else choice == "dark"
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    if "rings" not in _state:
        _state["rings"] = rings = _FocusRings(app)
        app.installEventFilter(rings)  # those polished from now on; those already made, here:
        _ring_all(app)
    _state.update(choice=choice, dark=dark)
    if not _state["connected"]:
        hints = QGuiApplication.styleHints()
        changed = getattr(hints, "colorSchemeChanged", None)
        if changed is not None:
            changed.connect(lambda _scheme: _follow_system(app))
            _state["connected"] = True
    return dark


def _ring_all(app: QApplication) -> None:
    for widget in app.allWidgets():
        if isinstance(widget, QCheckBox | QRadioButton) and not widget.styleSheet():
            widget.setStyleSheet(FOCUS_RING)


@contextmanager
def building(*others: QObject | None) -> Iterator[None]:
    """A synchronous build of many widgets without the app-wide Python event filters: the focus rings'
    and `others` (a window's Tab order), each called for every event of every object (the teaching tabs'
    build sends some 4,000, half of a launch's). Nothing is lost: no key press arrives inside a
    synchronous build, and the check boxes and radio buttons made in it get their ring as it ends,
    before anything is painted."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        yield
        return
    rings = _state.get("rings")
    paused = [f for f in (rings, *others) if isinstance(f, QObject)]
    for event_filter in paused:
        app.removeEventFilter(event_filter)
    try:
        yield
    finally:
        if rings is not None:
            _ring_all(app)
        for event_filter in paused:
            app.installEventFilter(event_filter)


def _follow_system(app: QApplication) -> None:
    if _state["choice"] == "system":
        apply_theme(app, "system")


def as_choice(value: object) -> ThemeChoice:
    """A saved or typed choice, "system" when it is not one."""
    for choice in THEME_CHOICES:
        if value == choice:
            return choice
    return "system"


def current_choice() -> ThemeChoice:
    return as_choice(_state["choice"])


def is_dark() -> bool:
    return bool(_state["dark"])


def readable(colour: QColor) -> QColor:
    """A text colour picked for a light background, lightened enough to read on a dark one."""
    if is_dark() and colour.lightness() < 150:
        return colour.lighter(100 + (150 - colour.lightness()) * 2)
    return colour


def status_colours() -> dict[str, str]:
    """Status-bar text colours readable on the current window colour: errors red, success green."""
    if is_dark():
        return {"error": "#ff8a80", "success": "#8fd19e", "info": ""}
    return {"error": "#b00020", "success": "#1b5e20", "info": ""}
