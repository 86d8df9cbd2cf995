"""File > Export from the window: every entry named "Export as …", each writing a 0600 file whose
content is the format it says (HTML, Markdown, Mermaid, PNG, SVG, HAR read by haralyzer, OTLP parsed
back into the protobuf message)."""

import json
import stat
from pathlib import Path
from typing import Any

from haralyzer import HarParser

from mrtr_studio.trace.otlp import from_otlp_json
from mrtr_studio.ui import file_dialogs
from mrtr_studio.ui.main_window import MainWindow

from .recorded_window import accept_preview, opened, recorded  # noqa: F401 - fixtures


def entries(window: MainWindow) -> dict[str, Any]:
    return {action.text().replace("&", ""): action for action in window.export_menu.actions() if action.text()}


def test_one_naming_scheme(opened: MainWindow) -> None:  # noqa: F811
    names = list(entries(opened))
    assert names == ["Export as HTML…", "Export as Markdown…", "Export as Mermaid…", "Export as PNG…",
                     "Export as SVG…", "Export the trace as HAR…", "Export the trace as OTLP…"]
    assert opened.diagram.png_action.text() == "Export as &PNG…"  # the diagram's toolbar reads the same


def test_each_entry_writes_its_format_0600(qtbot: Any, opened: MainWindow, tmp_path: Path,  # noqa: F811
                                           monkeypatch: Any) -> None:
    asked: list[str] = []

    def answer(name: str) -> Any:
        def ask(_parent: Any, _title: str, default: str, filters: str, _purpose: str) -> str:
            asked.append(filters)
            return str(tmp_path / name)
        return ask

    from PySide6.QtWidgets import QFileDialog

    files = {"Export as HTML…": "f.html", "Export as Markdown…": "f.md", "Export as Mermaid…": "f.mmd",
             "Export as PNG…": "f.png", "Export as SVG…": "f.svg", "Export the trace as HAR…": "t.har",
             "Export the trace as OTLP…": "t.json"}
    for label, name in files.items():
        monkeypatch.setattr(file_dialogs, "ask_save", answer(name))
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, n=name: (str(tmp_path / n), ""))
        entries(opened)[label].trigger()
        if name.endswith((".html", ".md", ".mmd", ".png", ".svg", ".har", ".json")):  # shown with its redaction first
            accept_preview(qtbot, opened)
            opened.redaction_preview = None
        written = tmp_path / name
        assert written.exists(), label
        assert stat.S_IMODE(written.stat().st_mode) == 0o600, label
    assert (tmp_path / "f.html").read_text().startswith("<!DOCTYPE html>")
    assert "```mermaid\nsequenceDiagram" in (tmp_path / "f.md").read_text()
    assert (tmp_path / "f.mmd").read_text().startswith("sequenceDiagram")
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")
    assert "<svg" in (tmp_path / "f.svg").read_text()
    har = HarParser(json.loads((tmp_path / "t.har").read_text()))
    assert len(har.pages) == 1 and len(har.pages[0].entries) >= 2
    assert "alice-token" not in (tmp_path / "t.har").read_text()  # the bearer token masked
    spans = from_otlp_json(json.loads((tmp_path / "t.json").read_text())).resource_spans[0].scope_spans[0].spans
    assert {span.name for span in spans} and len(spans) >= 3  # the operation and its two rounds
    assert "HAR" in opened.statusBar().currentMessage() or "OTLP" in opened.statusBar().currentMessage()


def test_an_empty_trace_is_refused_with_a_reason(opened: MainWindow, tmp_path: Path, monkeypatch: Any) -> None:  # noqa: F811
    opened.studio.store.clear()
    monkeypatch.setattr(file_dialogs, "ask_save", lambda *_a: str(tmp_path / "never.har"))
    entries(opened)["Export the trace as HAR…"].trigger()
    assert not (tmp_path / "never.har").exists()
    assert any("The trace is empty" in text for text in opened.errors.texts())
