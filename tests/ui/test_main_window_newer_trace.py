"""File > Open on a newer studio's trace: opened, and a visible note of what is not shown."""

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import files
from mrtr_studio.ui.main_window import MainWindow

from ..trace.test_newer_format import newer_document, write


def test_a_newer_trace_opens_with_a_note_in_the_status_bar_and_the_problems(qtbot: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "newer.mrtr.json", newer_document("1.4"), "lines")
    window = MainWindow(Studio(), QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        interactive_answers=False)
    qtbot.addWidget(window)
    window.show()
    window.open_trace(str(path))
    assert len(window.studio.store.operations) == 2
    shown = window.statusBar().currentMessage()
    assert "written by a newer MRTR Studio (trace format 1.4; this one reads 1)" in shown
    assert "operations[].tags (2)" in shown
    assert any("trace format 1.4" in text for text in window.errors.texts())
    assert "trace format 1.4" in window.errors.latest.text()
    window.save_trace(str(tmp_path / "saved.mrtr.json"))
    assert files.read_trace(tmp_path / "saved.mrtr.json").operations[0].extra == {"tags": ["release", "<b>"]}
    asyncio.run(window.studio.close())


def test_undoing_a_clear_of_an_opened_trace_keeps_the_journal_a_reference(qtbot: Any, tmp_path: Path) -> None:
    from tools.synthetic_trace import synthetic_trace

    trace = files.save(tmp_path / "big.mrtr.json", synthetic_trace(500))
    studio = Studio()
    studio.start_autosave(tmp_path / "autosave.mrtr.jsonl")
    window = MainWindow(studio, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        interactive_answers=False)
    qtbot.addWidget(window)
    window.open_trace(str(trace))
    window.clear_trace()
    assert studio.store.operations == []
    window.undo_clear()
    assert len(studio.store.messages) == 2_000
    assert studio.autosave is not None and studio.autosave._file is not None
    studio.autosave._file.flush()
    assert studio.autosave.path.stat().st_size < 1_000  # the file referenced again, not copied
    asyncio.run(studio.close())
