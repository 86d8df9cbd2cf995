"""The diagram's PNG and SVG exports go through the redaction preview like every other export: a tool
call whose arguments hold a password (run against the embedded engine) is drawn from its redacted copy,
so the SVG holds the mask and not the password (with the profile "none" it holds the password); the
dialog lists what the profile masks and shows the picture; Save writes it 0600; the store and the
window's diagram keep the value."""

import stat
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.export_preview import ExportRequest, PrepareError
from mrtr_studio.studio.picture_export import lay_out
from mrtr_studio.trace.redaction import MASK
from mrtr_studio.trace.redaction_profiles import TIMES, default_profile, none_profile
from mrtr_studio.ui import file_dialogs
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.picture_preview import PicturePreview
from tests.trace.view_flows import run_flow

ARGUMENTS = {"path": "/x", "password": "hunter2"}


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    """The window after a delete_file call with a password among its arguments, that flow selected."""
    shown = MainWindow(Studio(), QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat),
                       interactive_answers=False)
    qtbot.addWidget(shown)
    shown.show()
    operation = run_flow(shown.studio.store, "delete_file", arguments=ARGUMENTS)
    shown.selection.select_operation(operation.id)
    qtbot.waitUntil(lambda: shown.diagram.operation_id == operation.id)
    return shown


def ready(qtbot: Any, window: MainWindow, profile: str = "") -> PicturePreview:
    dialog = window.redaction_preview
    assert isinstance(dialog, PicturePreview)
    if profile:
        dialog.choose(profile)
    qtbot.waitUntil(lambda: dialog.prepared is not None and dialog.prepared.profile.name == dialog.profile().name)
    return dialog


def save(qtbot: Any, dialog: PicturePreview, path: Path, monkeypatch: Any) -> bytes:
    monkeypatch.setattr(file_dialogs, "ask_save", lambda *_a: str(path))
    qtbot.mouseClick(dialog.action, Qt.MouseButton.LeftButton)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    return path.read_bytes()


def diagram_labels(window: MainWindow) -> str:
    return " ".join(f"{item.arrow.label} {item.arrow.sublabel}" for item in window.diagram.arrow_items.values())


def test_the_svg_is_drawn_from_the_redacted_copy(qtbot: Any, window: MainWindow, tmp_path: Path,
                                                 monkeypatch: Any) -> None:
    assert "hunter2" in diagram_labels(window)  # the window shows the person's own values
    window.diagram.svg_action.trigger()  # File > Export > Export as SVG… (the toolbar's action too)
    dialog = ready(qtbot, window)
    assert dialog.profile().name == "default" and dialog.windowTitle() == "Export as SVG image"
    masked = [dialog.masked.item(i).text() for i in range(dialog.masked.count())]
    assert f"$..password {TIMES}2" in masked
    assert "$..password" in dialog.rules.text()
    assert dialog.picture_scroll.isVisibleTo(dialog) and not dialog.preview.isVisibleTo(dialog)
    pixmap = dialog.picture.pixmap()
    assert not pixmap.isNull() and pixmap.width() > 100 and pixmap.height() > 100
    svg = save(qtbot, dialog, tmp_path / "masked.svg", monkeypatch).decode()
    assert "<svg" in svg and "delete_file" in svg
    assert "hunter2" not in svg and MASK in svg
    assert "masked: $..password" in window.statusBar().currentMessage()
    stored = [m.message_json() for m in window.studio.store.messages]
    assert any(b"hunter2" in raw for raw in stored)  # the store is never changed
    assert "hunter2" in diagram_labels(window)

    window.diagram.svg_action.trigger()
    plain = ready(qtbot, window, "none")
    assert [plain.masked.item(i).text() for i in range(plain.masked.count())] == ["nothing to mask"]
    assert "hunter2" in save(qtbot, plain, tmp_path / "plain.svg", monkeypatch).decode()


def test_the_png_goes_through_the_preview_and_is_written_0600(qtbot: Any, window: MainWindow, tmp_path: Path,
                                                              monkeypatch: Any) -> None:
    menu = window.diagram.export_button.menu()
    assert window.diagram.png_action in menu.actions()  # the toolbar's entry is the same action
    window.diagram.png_action.trigger()
    dialog = ready(qtbot, window)
    assert dialog.windowTitle() == "Export as PNG image" and dialog.action.text() == "Save…"
    data = save(qtbot, dialog, tmp_path / "masked.png", monkeypatch)
    assert data.startswith(b"\x89PNG") and data == dialog.prepared.payload()
    window.diagram.png_action.trigger()
    plain = ready(qtbot, window, "none")
    assert save(qtbot, plain, tmp_path / "plain.png", monkeypatch) != data  # the password is drawn there


def test_the_layout_is_of_a_redacted_copy_and_bad_requests_say_why(window: MainWindow) -> None:
    store = window.studio.store
    operation_id = store.operations[0].id
    operations, messages = list(store.operations), list(store.messages)
    laid = lay_out(operations, messages, ExportRequest("svg", operation_id), default_profile())
    labels = " ".join(f"{arrow.label} {arrow.sublabel}" for arrow in laid.layout.arrows)
    assert "hunter2" not in labels and MASK in labels and laid.operation.arguments["password"] == MASK
    assert laid.tally.lines() == [f"$..password {TIMES}2"]
    assert "hunter2" in " ".join(a.sublabel for a in lay_out(operations, messages, ExportRequest(
        "png", operation_id), none_profile()).layout.arrows)
    assert store.operations[0].arguments["password"] == "hunter2"
    with pytest.raises(PrepareError, match="Run or select a flow"):
        lay_out(operations, messages, ExportRequest("png", "no-such-operation"), default_profile())
    with pytest.raises(PrepareError, match="not a picture"):
        lay_out(operations, messages, ExportRequest("md", operation_id), default_profile())


def test_a_picture_without_a_flow_is_refused_and_a_tall_one_is_bounded(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QRectF

    from mrtr_studio import defaults
    from mrtr_studio.ui.diagram.export import fitting_scale

    empty = MainWindow(Studio(), QSettings(str(tmp_path / "empty.ini"), QSettings.Format.IniFormat),
                       interactive_answers=False)
    qtbot.addWidget(empty)
    empty.diagram.png_action.trigger()
    assert getattr(empty, "redaction_preview", None) is None
    assert any("Run or select a flow" in text for text in empty.errors.texts())
    tall = QRectF(0, 0, 900, 60_000)
    scale = fitting_scale(tall, 2.0)
    assert scale < 2.0 and tall.width() * tall.height() * scale * scale <= defaults.PICTURE_MAX_PIXELS
    assert tall.height() * scale <= 32_000 and fitting_scale(QRectF(0, 0, 900, 400), 2.0) == 2.0


def test_the_layout_is_made_off_the_gui_thread(qtbot: Any, window: MainWindow, monkeypatch: Any) -> None:
    import threading

    from mrtr_studio.ui import picture_preview

    threads: list[threading.Thread] = []

    def recorded(*args: Any) -> Any:
        threads.append(threading.current_thread())
        return lay_out(*args)
    monkeypatch.setattr(picture_preview, "lay_out", recorded)
    window.diagram.svg_action.trigger()
    ready(qtbot, window)
    assert threads and threads[0] is not threading.main_thread() and threads[0].name == "export-preview"


def test_a_comparisons_diagram_is_previewed_too_and_a_lone_view_asks_for_a_file(
        qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: Any) -> None:
    from PySide6.QtWidgets import QFileDialog

    from mrtr_studio.trace import TraceStore
    from mrtr_studio.ui.diagram import SequenceDiagramView
    from mrtr_studio.ui.selection import Selection

    first = window.studio.store.operations[0].id
    second = run_flow(window.studio.store, "delete_file", arguments={"path": "/y", "password": "swordfish"}).id
    compare = window.compare(first, second)
    qtbot.waitUntil(lambda: compare.diagrams[1].operation_id == second)
    compare.diagrams[1].svg_action.trigger()  # the comparison's own toolbar
    dialog = ready(qtbot, window)
    assert dialog.diagram is compare.diagrams[1] and dialog.request.operation_id == second
    svg = save(qtbot, dialog, tmp_path / "second.svg", monkeypatch).decode()
    assert "swordfish" not in svg and "hunter2" not in svg and MASK in svg

    store = TraceStore()  # outside a window there is no preview to show: the file is asked for, as before
    lone = SequenceDiagramView(store, Selection())
    qtbot.addWidget(lone)
    run_flow(store, "delete_file")
    qtbot.waitUntil(lambda: lone.operation_id != "")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(tmp_path / "lone.png"), ""))
    lone.png_action.trigger()
    assert (tmp_path / "lone.png").read_bytes().startswith(b"\x89PNG")


def test_a_diagram_over_its_own_store_exports_mermaid_through_the_preview(
        qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: Any) -> None:
    """A lesson's, the Lab's or the Cluster's diagram holds its own store: its toolbar's Mermaid is
    previewed from that store, masked, like the window's own."""
    from mrtr_studio.trace import TraceStore
    from mrtr_studio.ui.diagram import SequenceDiagramView
    from mrtr_studio.ui.redaction_preview import RedactionPreview
    from mrtr_studio.ui.selection import Selection

    own = TraceStore()
    operation = run_flow(own, "delete_file", arguments={"path": "/z", "password": "swordfish"})
    view = SequenceDiagramView(own, Selection())
    view.setParent(window)  # inside the window, as the teaching pages' diagrams are
    from PySide6.QtWidgets import QFileDialog
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: ("", ""))  # asking directly is the failure
    qtbot.waitUntil(lambda: view.operation_id == operation.id)
    view.mermaid_action.trigger()
    dialog = window.redaction_preview
    assert isinstance(dialog, RedactionPreview) and dialog.store is own
    qtbot.waitUntil(lambda: dialog.prepared is not None)
    assert dialog.prepared is not None
    assert dialog.request.kind == "mermaid" and dialog.request.operation_id == operation.id
    monkeypatch.setattr(file_dialogs, "ask_save", lambda *_a: str(tmp_path / "own.mmd"))
    qtbot.mouseClick(dialog.action, Qt.MouseButton.LeftButton)
    text = (tmp_path / "own.mmd").read_text()
    assert stat.S_IMODE((tmp_path / "own.mmd").stat().st_mode) == 0o600
    assert "sequenceDiagram" in text and "swordfish" not in text
    assert any(line.startswith("$..password") for line in dialog.prepared.tally.lines())  # from its own store
