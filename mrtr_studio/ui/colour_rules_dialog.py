"""View > Colouring rules…: add, edit, reorder, disable, import and export the rules
(studio/colour_rules.py). Each rule is a row: on/off, name, filter expression, colour. A bad
expression is shown inline as it is typed — the cell marked, the column and the reason under the
table — and OK stays disabled until every rule reads, so a list with a mistake is never applied.
"""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..studio.colour_rules import DEFAULT_RULES, TINTS, ColourRule, problems, rules_from_json, rules_to_json
from ..trace.bounded_read import read_capped
from ..trace.private_files import write_private
from . import file_dialogs, tones
from .builders import button_row, named, push_button, text_label

COLUMNS = ("on", "name", "expression", "colour")
FILES = "Colouring rules (*.json)"


def swatch(tint: str, dark: bool) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(TINTS[tint][1 if dark else 0]))
    return QIcon(pixmap)


class ColourRulesDialog(QDialog):
    def __init__(self, rules: list[ColourRule], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Colouring rules")
        self.setObjectName("colourRulesDialog")
        self.resize(760, 360)
        self._filling = False
        self.table = named(QTableWidget(0, len(COLUMNS)), "colourRules", "Colouring rules, first match wins")
        self.table.setHorizontalHeaderLabels(["On", "Name", "Filter expression", "Colour"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(1, 170)
        self.table.itemChanged.connect(lambda _item: self.validate())
        self.error = text_label("colourRuleError")
        self.error.setStyleSheet(tones.color_style(tones.ERROR, self))
        self.error.hide()
        hint = text_label("colourRulesHint", "The first enabled rule that matches a message colours it (log, "
                          "operations, diagram); its name shows in the tooltip. Expressions use the filter bar's "
                          "language.")
        self.buttons: dict[str, QPushButton] = {
            key: push_button(f"colourRules_{key}", text, slot)
            for key, text, slot in (("add", "&Add", self.add_rule), ("remove", "&Remove", self.remove_rule),
                                    ("up", "Move &up", lambda: self.move_rule(-1)),
                                    ("down", "Move &down", lambda: self.move_rule(1)),
                                    ("defaults", "Restore de&faults", lambda: self.fill(list(DEFAULT_RULES))),
                                    ("import", "&Import…", self.import_rules),
                                    ("export", "&Export…", self.export_rules))}
        buttons = button_row(*self.buttons.values())
        self.box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.box.accepted.connect(self.accept)
        self.box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        layout.addWidget(self.box)
        self.fill(rules)

    # --- rows ----------------------------------------------------------------------------------

    def fill(self, rules: list[ColourRule]) -> None:
        self._filling = True
        self.table.setRowCount(0)
        for rule in rules:
            self._append(rule)
        self._filling = False
        self.validate()

    def _append(self, rule: ColourRule) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        on = QTableWidgetItem()
        on.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        on.setCheckState(Qt.CheckState.Checked if rule.enabled else Qt.CheckState.Unchecked)
        on.setToolTip("Apply this rule")
        self.table.setItem(row, 0, on)
        self.table.setItem(row, 1, QTableWidgetItem(rule.name))
        self.table.setItem(row, 2, QTableWidgetItem(rule.expression))
        combo = QComboBox()
        combo.setObjectName(f"colourRuleTint_{row}")
        combo.setAccessibleName(f"Colour of rule {row + 1}")
        dark = tones.is_dark(self)
        for tint in TINTS:
            combo.addItem(swatch(tint, dark), tint)
        combo.setCurrentText(rule.tint if rule.tint in TINTS else "grey")
        combo.currentTextChanged.connect(lambda _text: self.validate())
        self.table.setCellWidget(row, 3, combo)
        return row

    def rules(self) -> list[ColourRule]:
        """The rules as the table has them now, in order."""
        out = []
        for row in range(self.table.rowCount()):
            on, name, expression = (self.table.item(row, column) for column in range(3))
            combo = self.table.cellWidget(row, 3)
            out.append(ColourRule(name.text() if name else "", expression.text() if expression else "",
                                  combo.currentText() if isinstance(combo, QComboBox) else "grey",
                                  on is not None and on.checkState() == Qt.CheckState.Checked))
        return out

    def set_rule(self, row: int, rule: ColourRule) -> None:
        """Change one row (what typing in its cells does)."""
        self._filling = True
        on, name, expression = (self.table.item(row, column) for column in range(3))
        assert on is not None and name is not None and expression is not None
        on.setCheckState(Qt.CheckState.Checked if rule.enabled else Qt.CheckState.Unchecked)
        name.setText(rule.name)
        expression.setText(rule.expression)
        combo = self.table.cellWidget(row, 3)
        if isinstance(combo, QComboBox):
            combo.setCurrentText(rule.tint)
        self._filling = False
        self.validate()

    def add_rule(self) -> None:
        row = self._append(ColourRule(f"Rule {self.table.rowCount() + 1}", "kind:error", "red"))
        self.table.selectRow(row)
        self.validate()

    def remove_rule(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
            self.validate()

    def move_rule(self, by: int) -> None:
        row = self.table.currentRow()
        rules = self.rules()
        target = row + by
        if 0 <= row < len(rules) and 0 <= target < len(rules):
            rules[row], rules[target] = rules[target], rules[row]
            self.fill(rules)
            self.table.selectRow(target)

    # --- checking ------------------------------------------------------------------------------

    def validate(self) -> bool:
        """Mark the cells of wrong rules, say why under the table; OK only when every rule reads."""
        if self._filling:
            return False
        found = problems(self.rules())
        bad = {error.index: error for error in found}
        self._filling = True
        marked = QBrush(QColor(tones.tone(tones.MARKED_BACKGROUND, self)))
        for row in range(self.table.rowCount()):
            for column in (1, 2):
                item = self.table.item(row, column)
                if item is None:
                    continue
                error = bad.get(row)
                wrong = error is not None and ((column == 2) == (error.position is not None or
                                                                 "expression" in error.message))
                item.setBackground(marked if wrong else QBrush())
                item.setToolTip(error.message if wrong and error is not None else "")
        self._filling = False
        self.error.setText("\n".join(str(error) for error in found))
        self.error.setVisible(bool(found))
        ok = self.box.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not found)
        ok.setToolTip("Correct the rules marked above first" if found else "")
        self.buttons["export"].setEnabled(not found)
        return not found

    # --- files ---------------------------------------------------------------------------------

    def import_rules(self, path: str | None = None) -> bool:
        path = path or file_dialogs.ask_open(self, "Import colouring rules", FILES, "colouring")
        if not path:
            return False
        try:
            rules = rules_from_json(read_capped(path, 256 * 1024))
        except ValueError as exc:
            self.error.setText(f"Cannot import {Path(path).name}: {exc}")
            self.error.show()
            return False
        self.fill(rules)
        return True

    def export_rules(self, path: str | None = None) -> bool:
        if not self.validate():
            return False
        path = path or file_dialogs.ask_save(self, "Export colouring rules", "colouring-rules.json", FILES,
                                             "colouring")
        if not path:
            return False
        try:
            write_private(path, rules_to_json(self.rules()) + "\n")
        except OSError as exc:
            self.error.setText(f"Cannot write {path}: {exc.strerror or exc}")
            self.error.show()
            return False
        return True
