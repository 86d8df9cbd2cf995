"""The colouring rules in the window: kept in the window's settings, compiled when they change, bound
again as the trace grows (a retry makes `state:altered` true only once it arrives), and applied to
the message log's rows, the operations list's rows and the diagram's labels, each with the rule's
name in its tooltip. View > Colouring rules… opens the editor (ui/colour_rules_dialog.py).
"""

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from ..studio.colour_rules import (
    DEFAULT_RULES,
    BoundRules,
    ColourRule,
    CompiledRules,
    compile_rules,
    rules_from_json,
    rules_to_json,
)
from . import colouring
from .store_bridge import message_by_seq

if TYPE_CHECKING:
    from .main_window import MainWindow

SETTINGS_KEY = "view/colouring_rules"


class Colouring(QObject):
    """The window's rules and their binding to the trace; `changed` after every re-application."""

    changed = Signal()

    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.window = window
        self.rules: list[ColourRule] = self._saved()
        self.compiled: CompiledRules = compile_rules(self.rules)
        self.bound: BoundRules | None = None
        self._repainting = False
        self._rebind = QTimer(self)
        self._rebind.setSingleShot(True)
        self._rebind.setInterval(0)
        self._rebind.timeout.connect(self.apply)
        self._diagram = QTimer(self)
        self._diagram.setSingleShot(True)
        self._diagram.setInterval(40)  # after the diagram's own zero-timer rebuild
        self._diagram.timeout.connect(self.paint_diagram)
        model = window.log.model
        model.rowsInserted.connect(lambda *_: self._rebind.start())
        model.modelReset.connect(lambda *_: self._rebind.start())
        model.dataChanged.connect(self._findings_changed)
        window.selection.operationChanged.connect(lambda _id: self._diagram.start())
        window.installEventFilter(self)  # light or dark: the diagram's tints are the other theme's
        self.apply()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._diagram.start()
        return False

    def _saved(self) -> list[ColourRule]:
        raw = self.window.settings.value(SETTINGS_KEY)
        if not raw:
            return list(DEFAULT_RULES)
        try:
            rules = rules_from_json(str(raw))
            compile_rules(rules)
        except ValueError:  # RuleError too: a saved list this studio cannot read is not half applied
            return list(DEFAULT_RULES)
        return rules

    def set_rules(self, rules: Sequence[ColourRule]) -> None:
        """Use and save `rules` (RuleError, nothing changed, when one is wrong)."""
        compiled = compile_rules(rules)
        self.rules, self.compiled = list(rules), compiled
        self.window.settings.setValue(SETTINGS_KEY, json.dumps(json.loads(rules_to_json(self.rules))))
        self.apply()

    def _findings_changed(self, *_args: object) -> None:
        """A lint finding arrived for a row: `finding:` rules may now match it."""
        if self.bound is not None and not self._repainting and not self._rebind.isActive():
            self._rebind.start()

    def apply(self) -> None:
        """Bind to the trace as it is now and repaint the rows and labels."""
        store = self.window.studio.store
        self.bound = self.compiled.bind(store.operations, store.messages, store.live_messages_of) \
            if self.compiled.rules else None
        log, operations = self.window.log.model, self.window.operations.model
        if log.colouring is None and self.bound is None and operations.colouring is None:
            return
        for model in (log, operations):
            model.colouring = self.bound
            if model.rowCount():
                self._repainting = True  # our own dataChanged is not a finding arriving
                model.dataChanged.emit(model.index(0, 0), model.index(model.rowCount() - 1, model.columnCount() - 1))
                self._repainting = False
        self._diagram.start()
        self.changed.emit()

    def paint_diagram(self) -> None:
        store, bound = self.window.studio.store, self.bound
        for seq, item in self.window.diagram.arrow_items.items():
            entry = message_by_seq(store, seq) if bound is not None else None
            rule = bound.rule_for(entry) if bound is not None and entry is not None else None
            tint = colouring.tint_colour(rule) if rule is not None else None
            if tint != item.tint:
                item.tint = tint
                arrow = item.arrow
                base = "\n".join(t for t in (arrow.label, arrow.sublabel) if t)
                item.setToolTip(colouring.tooltip(rule, base) or "")
                item.update()


def install(window: "MainWindow") -> Colouring:
    """The rules applied to the window's views, and View > Colouring rules…."""
    window.colouring = found = Colouring(window)
    action = window.view_menu.addAction("Colouring r&ules…")
    action.setObjectName("colouringRules")
    action.triggered.connect(lambda _=False: open_dialog(window))
    return found


def open_dialog(window: "MainWindow") -> "QObject":
    from .colour_rules_dialog import ColourRulesDialog
    from .focus_order import present

    dialog = ColourRulesDialog(window.colouring.rules, window)
    dialog.accepted.connect(lambda: window.colouring.set_rules(dialog.rules()))
    window.colour_rules_dialog = dialog
    present(dialog)
    return dialog
