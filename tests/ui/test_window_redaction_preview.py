"""The redaction preview in the window, on a real HTTP recording: an export shows its profile's rules,
what it masks with a count per rule and the start of the output with the masks marked; a profile
file loaded there adds JSON paths and headers; Save writes exactly the previewed text, 0600, with
those values masked; a bad profile file is refused with the reason; a copy goes through it too."""

import json
import stat
from pathlib import Path
from typing import Any

from haralyzer import HarParser
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication

from mrtr_studio.trace.redaction_profiles import TIMES
from mrtr_studio.ui import file_dialogs
from mrtr_studio.ui.export_menu import TRACE_ENTRIES, ask_trace_export, preview_flow
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.redaction_preview import LAST_KEY, PROFILES_KEY, RedactionPreview

from .recorded_window import accept_preview, opened, recorded  # noqa: F401 - fixtures

PROFILE = {"name": "no paths", "headers": ["Mcp-Name"], "paths": ["$.params.arguments.path"]}


def masked(dialog: RedactionPreview) -> list[str]:
    return [dialog.masked.item(i).text() for i in range(dialog.masked.count())]


def har_preview(qtbot: Any, window: MainWindow) -> RedactionPreview:
    _, kind, filters, name = TRACE_ENTRIES[0]
    dialog = ask_trace_export(window, kind, filters, name)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.prepared is not None)
    return dialog


def test_the_preview_lists_what_is_masked_and_saves_exactly_that_0600(
        qtbot: Any, opened: MainWindow, tmp_path: Path, monkeypatch: Any) -> None:  # noqa: F811
    dialog = har_preview(qtbot, opened)
    requests = [m for m in opened.studio.store.messages if m.direction == "client->server"
                and "authorization" in {k.lower() for k in m.transport.get("request_headers", {})}]
    assert dialog.profile_box.currentText() == "default" and requests
    assert f"Authorization header {TIMES}{len(requests)}" in masked(dialog)
    assert "headers: credentials" in dialog.rules.text() and "$..password" in dialog.rules.text()
    profile = tmp_path / "no-paths.json"
    profile.write_text(json.dumps(PROFILE))
    assert dialog.load_profile_file(str(profile))
    qtbot.waitUntil(lambda: dialog.prepared is not None and dialog.prepared.profile.name == "no paths")
    assert f"$.params.arguments.path {TIMES}2" in masked(dialog)
    assert any(line.startswith("Mcp-Name header") for line in masked(dialog))
    assert "JSON path: $.params.arguments.path" in dialog.rules.text()
    preview = dialog.preview.toPlainText()
    assert preview == dialog.prepared.text and '\\"path\\":\\"***\\"' in preview
    block = dialog.preview.document().findBlockByNumber(preview[:preview.index("***")].count("\n"))
    marks = [r for r in block.layout().formats() if r.format.fontWeight() == QFont.Weight.Bold]
    assert marks and all(block.text()[r.start:r.start + r.length] == "***" for r in marks)  # the masks marked
    out = tmp_path / "trace.har"
    monkeypatch.setattr(file_dialogs, "ask_save", lambda *_a: str(out))
    qtbot.mouseClick(dialog.action, Qt.MouseButton.LeftButton)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text() == dialog.prepared.text
    calls = [e for e in HarParser(json.loads(out.read_text())).pages[0].entries
             if '"tools/call"' in (e.request.text or "")]
    assert [json.loads(e.request.text)["params"]["arguments"] for e in calls] == [{"path": "***"}] * 2
    sent = {h["name"].lower(): h["value"] for h in calls[0].request.headers}
    assert sent["mcp-name"] == "***" and sent["authorization"] == "Bearer ***"
    assert "alice-token" not in out.read_text()
    assert "masked: $.params.arguments.path" in opened.statusBar().currentMessage()
    assert opened.settings.value(LAST_KEY) == "no paths" and "no paths" in str(opened.settings.value(PROFILES_KEY))
    again = har_preview(qtbot, opened)  # the profile loaded before is offered, and chosen, again
    assert again.profile_box.currentText() == "no paths"
    again.choose("none")
    qtbot.waitUntil(lambda: again.prepared is not None and again.prepared.profile.name == "none")
    assert all(not line.startswith("$.params") for line in masked(again))


def test_a_bad_profile_file_is_refused_with_the_reason(qtbot: Any, opened: MainWindow, tmp_path: Path) -> None:  # noqa: F811
    dialog = har_preview(qtbot, opened)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"paths": ["params.password"]}))
    assert not dialog.load_profile_file(str(bad))
    assert "paths[0]: JSON path 'params.password': must start with $" in dialog.status.text()
    assert dialog.profile_box.currentText() == "default" and dialog.action.isEnabled()


def test_a_flow_export_and_a_copy_go_through_the_preview(qtbot: Any, opened: MainWindow, tmp_path: Path,  # noqa: F811
                                                         monkeypatch: Any) -> None:
    out = tmp_path / "flow.md"
    monkeypatch.setattr(file_dialogs, "ask_save", lambda *_a: str(out))
    dialog = preview_flow(opened, "md", "Markdown (*.md)")
    assert dialog is not None and dialog.action.text() == "Save…"
    accept_preview(qtbot, opened)
    assert out.read_text().startswith("# MRTR flow") and stat.S_IMODE(out.stat().st_mode) == 0o600
    entry = next(m for m in opened.studio.store.messages if m.kind == "request" and m.method_name == "tools/call")
    opened.selection.select(entry)
    QGuiApplication.clipboard().clear()
    actions = {a.objectName(): a for a in opened.copy_as_menu.actions()}
    actions["copyAs_curl"].trigger()
    copy = opened.redaction_preview
    assert copy is not dialog and copy.action.text() == "Copy" and copy.prepared is not None
    assert any(line.startswith("Authorization header") for line in masked(copy))
    assert QGuiApplication.clipboard().text() == ""  # nothing leaves before Copy
    qtbot.mouseClick(copy.action, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == copy.prepared.text and "Bearer ***" in copy.prepared.text
