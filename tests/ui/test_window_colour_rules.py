"""Colouring rules in the window, on a real HTTP recording: a rule colours exactly the rows its
expression matches (BackgroundRole) with its name in the tooltip, in the log, the operations list and
the diagram; the dialog marks a bad expression inline and keeps OK disabled; the rules are saved in
the window's settings and come back; a rules file exported from the dialog imports again."""

import json
import stat
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDialogButtonBox

from mrtr_studio.studio.colour_rules import DEFAULT_RULES, TINTS, ColourRule
from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace.filter import compile_filter
from mrtr_studio.ui.colour_rules_dialog import ColourRulesDialog
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.tones import is_dark

from .recorded_window import opened, recorded  # noqa: F401 - fixtures

ROUND_TWO = ColourRule("Round two", "round:2 dir:c2s", "blue")


def backgrounds(window: MainWindow) -> dict[int, Any]:
    model = window.log.model
    return {model.message_at(row).seq: model.index(row, 4).data(Qt.ItemDataRole.BackgroundRole)
            for row in range(model.rowCount())}


def tint(name: str) -> QColor:
    return QColor(TINTS[name][1 if is_dark() else 0])


def test_a_rule_colours_the_rows_it_matches_with_its_name_in_the_tooltip(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    store = opened.studio.store
    opened.colouring.set_rules([ROUND_TWO, *DEFAULT_RULES])
    wanted = {m.seq for m in compile_filter(ROUND_TWO.expression).messages(store.operations, store.messages)}
    asked = {m.seq for m in store.messages if m.kind == "input_required"}
    assert wanted and asked
    found = backgrounds(opened)
    assert {seq for seq, brush in found.items() if brush is not None and brush.color() == tint("blue")} == wanted
    assert {seq for seq, brush in found.items() if brush is not None and brush.color() == tint("amber")} == asked
    assert all(found[seq] is None for seq in set(found) - wanted - asked)
    model = opened.log.model
    row = model.row_of(min(wanted))
    assert model.index(row, 2).data(Qt.ItemDataRole.ToolTipRole) == "Colouring rule: Round two"
    plain = model.row_of(next(seq for seq in found if found[seq] is None))
    assert model.index(plain, 2).data(Qt.ItemDataRole.ToolTipRole) is None
    operations = opened.operations.model
    first = operations.index(0, 0)
    assert first.data(Qt.ItemDataRole.BackgroundRole).color() == tint("blue")  # some message of it is round two
    assert "Colouring rule: Round two" in first.data(Qt.ItemDataRole.ToolTipRole)
    diagram = opened.diagram
    seq = min(wanted)
    qtbot.waitUntil(lambda: seq in diagram.arrow_items and diagram.arrow_items[seq].tint is not None)
    assert diagram.arrow_items[seq].tint == tint("blue")
    assert "Colouring rule: Round two" in diagram.arrow_items[seq].toolTip()
    opened.colouring.set_rules([])
    assert set(backgrounds(opened).values()) == {None}
    qtbot.waitUntil(lambda: diagram.arrow_items[seq].tint is None)


def test_the_dialog_marks_a_bad_expression_inline_and_keeps_ok_disabled(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    entry = next(a for a in opened.view_menu.actions() if a.objectName() == "colouringRules")
    assert entry.text() == "Colouring r&ules…"
    entry.trigger()
    dialog = opened.colour_rules_dialog
    assert isinstance(dialog, ColourRulesDialog) and dialog.isVisible()
    ok = dialog.box.button(QDialogButtonBox.StandardButton.Ok)
    assert ok.isEnabled() and dialog.error.isHidden()
    expression = dialog.table.item(0, 2)
    assert expression is not None
    expression.setText("kind:eror")  # what typing into the cell does
    assert not ok.isEnabled() and dialog.error.isVisible()
    assert dialog.error.text().startswith("rule 1 (Errors): column 6: ")
    assert expression.toolTip().startswith("column 6: ") and expression.background().style() != Qt.BrushStyle.NoBrush
    name = dialog.table.item(0, 1)
    assert name is not None and name.background().style() == Qt.BrushStyle.NoBrush
    expression.setText("kind:error")
    assert ok.isEnabled() and dialog.error.isHidden()
    dialog.add_rule()
    dialog.set_rule(dialog.table.rowCount() - 1, ROUND_TWO)
    dialog.table.selectRow(dialog.table.rowCount() - 1)
    for _ in range(dialog.table.rowCount()):
        qtbot.mouseClick(dialog.buttons["up"], Qt.MouseButton.LeftButton)
    on = dialog.table.item(1, 0)
    assert on is not None
    on.setCheckState(Qt.CheckState.Unchecked)
    assert [r.name for r in dialog.rules()][:2] == ["Round two", "Errors"] and not dialog.rules()[1].enabled
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert opened.colouring.rules == dialog.rules()
    error = next(m for m in opened.studio.store.messages if m.round == 2 and m.direction == "client->server")
    row = opened.log.model.row_of(error.seq)
    assert opened.log.model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole).color() == tint("blue")


def test_the_rules_are_saved_and_a_rules_file_round_trips(qtbot: Any, opened: MainWindow, tmp_path: Path) -> None:  # noqa: F811
    rules = [ROUND_TWO, ColourRule("Off", "kind:auth", "grey", enabled=False)]
    opened.colouring.set_rules(rules)
    settings = opened.settings
    again = MainWindow(Studio(), QSettings(settings.fileName(), QSettings.Format.IniFormat), interactive_answers=False)
    qtbot.addWidget(again)
    assert again.colouring.rules == rules
    dialog = ColourRulesDialog(rules)
    qtbot.addWidget(dialog)
    out = tmp_path / "rules.json"
    assert dialog.export_rules(str(out))
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert [r["name"] for r in json.loads(out.read_text())["colouring_rules"]] == ["Round two", "Off"]
    dialog.fill([])
    assert dialog.import_rules(str(out)) and dialog.rules() == rules
    bad = tmp_path / "bad.json"
    bad.write_text('{"colouring_rules": [{"name": "x", "expression": "y", "tint": "pink"}]}')
    assert not dialog.import_rules(str(bad))
    assert "Cannot import bad.json: rule 1: unknown colour 'pink'" in dialog.error.text()
    assert dialog.rules() == rules  # nothing half imported


def test_the_tints_follow_the_theme(qtbot: Any, opened: MainWindow) -> None:  # noqa: F811
    opened.colouring.set_rules([ROUND_TWO])
    seq = next(m.seq for m in opened.studio.store.messages if m.round == 2 and m.direction == "client->server")
    row = opened.log.model.row_of(seq)
    diagram = opened.diagram
    qtbot.waitUntil(lambda: seq in diagram.arrow_items and diagram.arrow_items[seq].tint is not None)
    light, dark = (QColor(c) for c in TINTS["blue"])
    try:
        for choice, wanted in (("dark", dark), ("light", light)):
            opened.set_theme(choice)
            assert opened.log.model.index(row, 1).data(Qt.ItemDataRole.BackgroundRole).color() == wanted
            qtbot.waitUntil(lambda w=wanted: diagram.arrow_items[seq].tint == w)
    finally:
        opened.set_theme("system")
