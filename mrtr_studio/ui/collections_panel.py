"""Collections in the window: "Save to collection…" on an operation (the operations list's context
menu, the Run menu) and "Run collection…", whose calls run through the window's runner — each an
operation in the list — with every assertion's verdict in the Collection tab next to Expert info.

The logic is studio/collection_runs.py (the file format and the assertion evaluator are `mrtr-studio
run`'s); this module is the dialog, the results tab and their wiring. A bad file is said inline in
the dialog or the tab, naming the problem; nothing here blocks the event loop (the runs are tasks).
"""

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMenu,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..protocol.peer_text import printable
from .async_bridge import in_flight, spawn
from .builders import button_row, push_button, text_label
from .file_dialogs import ask_open, ask_save
from .focus_order import present
from .tables import second_level
from .theme import status_colours

if TYPE_CHECKING:  # the collection format (pydantic, jsonschema) loads with the first save or run, not at launch
    from ..studio.collection_runs import CallResult, CollectionRuns
    from .main_window import MainWindow

FILTERS = "Collections (*.json);;All files (*)"
OperationRole = Qt.ItemDataRole.UserRole + 1
NO_ENVIRONMENT = "(no environment: the collection's variables)"


RUNNING = "A collection is running: Stop it before running another."

class SaveToCollectionDialog(QDialog):
    """Where to save one operation, under which name and environment, with which assertions."""

    def __init__(self, window: "MainWindow", operation_id: str) -> None:
        super().__init__(window)
        self.setObjectName("saveToCollection")
        self.window_ = window
        self.operation_id = operation_id
        op = window.studio.store.operation(operation_id)
        self.setWindowTitle(f"Save {op.target} to a collection")
        self.path = QLineEdit(str(window.settings.value("collections/last", "") or ""))
        self.path.setObjectName("collectionPath")
        self.path.setPlaceholderText("COLLECTION.json (appended to, or created)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.name = QLineEdit(op.label or op.target)
        self.name.setObjectName("collectionCallName")
        self.environment = QLineEdit("local")
        self.environment.setObjectName("collectionEnvironment")
        self.environment.setToolTip("The target is saved as ${URL} with this environment's value; empty: as it is")
        self.choices = {key: QCheckBox(text) for key, text in (
            ("ends_the_same", "ends the same way (resultType complete, or the same error code)"),
            ("same_rounds", f"takes the same number of rounds ({op.rounds})"),
            ("same_inputs", "asks for the same inputs"),
            ("same_text", "returns the same first text content"))}
        for key in ("ends_the_same", "same_rounds"):
            self.choices[key].setChecked(True)
        self.error = text_label("collectionSaveError", error=True)
        save = QPushButton("Save")
        save.setObjectName("collectionSave")
        save.setDefault(True)
        save.clicked.connect(self._save_clicked)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)
        form = QFormLayout()
        form.addRow("Collection file", where)
        form.addRow("Call name", self.name)
        form.addRow("Environment", self.environment)
        asserts = QVBoxLayout()
        for box in self.choices.values():
            asserts.addWidget(box)
        form.addRow("Assert that it", asserts)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(cancel)
        buttons.addWidget(save)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addLayout(buttons)

    def _save_clicked(self) -> None:
        if self.save():
            self.accept()

    def _browse(self) -> None:
        path = ask_save(self, "Save to collection", "collection.json", FILTERS, "collections")
        if path:
            self.path.setText(path)

    def save(self) -> bool:
        """Write the call (the file's problem, if any, shown inline and nothing written)."""
        path = self.path.text().strip()
        if not path:
            self.error.setText("Choose the collection file to save to.")
            return False
        row_number = self.window_.operations.model.index_.row_of(self.operation_id)
        if row_number is None:
            self.error.setText("This operation is no longer in the list.")
            return False
        row = self.window_.operations.model.row(row_number)
        from ..client.collection import CollectionError
        from ..studio.collection_runs import AssertionChoice, call_from, save_call

        choice = AssertionChoice(**{key: box.isChecked() for key, box in self.choices.items()})
        try:
            call, identity = call_from(self.window_.studio.store, row, self.name.text(), choice)
            saved = save_call(path, call, identity, self.environment.text().strip())
        except (CollectionError, OSError) as exc:
            self.error.setText(printable(str(exc), 2000))
            return False
        self.window_.settings.setValue("collections/last", str(saved.path))
        needs = f"; set {', '.join(saved.from_process)} in the environment before running it" \
            if saved.from_process else ""
        self.window_.show_info(f"Saved {saved.name!r} to {saved.path}"
                               + (" (a new collection)" if saved.created else "") + needs)
        return True


class CollectionPanel(QWidget):
    """The verdicts of the last collection run: one row per call (a click shows its operation), its
    assertions under it, ✓ or ✗ with what was found."""

    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.window_ = window
        self._runs: CollectionRuns | None = None
        self.task: asyncio.Task[list[CallResult] | None] | None = None
        self.results: list[CallResult] = []
        self.run_button = push_button("runCollection", "Run collection…", lambda: ask_and_run(window))
        self.stop_button = push_button("stopCollection", "Stop", self.stop, enabled=False,
                                       tooltip="Stop the call that is running and run no more of the collection")
        self.summary = text_label("collectionSummary", "Run a collection file: each call becomes an operation, "
                                                       "its assertions are judged here.")
        self.error = text_label("collectionError", error=True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("collectionResults")
        self.tree.setAccessibleName("Collection results")
        self.tree.setHeaderLabels(["Verdict", "Call / assertion", "Found"])
        self.tree.itemClicked.connect(self._clicked)
        bar = button_row(self.run_button, self.stop_button)
        bar.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.error)
        layout.addWidget(self.tree, 1)

    def run_file(self, path: str, environment: str | None = None) -> "asyncio.Task[list[CallResult] | None]":
        """Run the file's calls (the task running them); while one runs, it is the one returned, and the
        second is refused inline: two runs would share the buttons and Stop would end only one."""
        if self.task is not None and in_flight(self.task):
            self.error.setText(RUNNING)
            return self.task
        self.error.setText("")
        self.tree.clear()
        self.results = []
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        where = path + (f" ({environment})" if environment else "")
        self.summary.setText(f"Running {where}…")
        self.task = spawn(self._run(path, environment, where), "running the collection")
        return self.task

    @property
    def runs(self) -> "CollectionRuns":
        """The runner of collection files, made with the first run."""
        if self._runs is None:
            from ..studio.collection_runs import CollectionRuns

            self._runs = CollectionRuns(self.window_.studio)
        return self._runs

    async def _run(self, path: str, environment: str | None, where: str) -> "list[CallResult] | None":
        from ..client.collection import CollectionError

        try:
            results = await self.runs.run(path, environment, self._add)
        except CollectionError as exc:
            self.error.setText(printable(str(exc), 2000))
            self.summary.setText(f"{where}: not run")
            return None
        except asyncio.CancelledError:
            self.summary.setText(f"{where}: stopped after {len(self.results)} call(s)")
            raise
        finally:
            self.run_button.setEnabled(True)
            self.stop_button.setEnabled(False)
        verdicts = [v for r in results for v in r.verdicts]
        failed = sum(not v.passed for v in verdicts)
        self.summary.setText(f"{where}: {len(results)} call(s), {len(verdicts) - failed} of {len(verdicts)} "
                             f"assertion(s) passed" + (f", {failed} failed" if failed else ""))
        return results

    def stop(self) -> None:
        """Cancel the run: the running call ends aborted, the connection is given back, no more calls run."""
        if self.task is not None and in_flight(self.task):
            self.task.cancel()

    def _add(self, result: "CallResult") -> None:
        from ..studio.collection_runs import run_settings

        self.results.append(result)
        if result.operation_id is not None:  # the call's own settings, not the client panel's
            self.window_.operations.model.index_.note_settings(result.operation_id, run_settings(result.call))
        colours = status_colours()
        call = QTreeWidgetItem(self.tree, ["✓ pass" if result.passed else "✗ fail",
                                           printable(f"{result.call.name} ({' '.join(result.call.method)})", 300),
                                           f"{result.outcome.rounds} round(s), {result.outcome.duration_ms:.0f} ms"])
        call.setData(0, OperationRole, result.operation_id)
        for verdict in result.verdicts:
            item = QTreeWidgetItem(call, ["✓ pass" if verdict.passed else "✗ fail", printable(verdict.label, 300),
                                          printable(verdict.detail, 1000)])
            item.setData(0, OperationRole, result.operation_id)
            colour = colours.get("success" if verdict.passed else "error")
            if colour:
                item.setForeground(0, QBrush(QColor(colour)))
        call.setExpanded(True)

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        operation_id = item.data(0, OperationRole)
        if operation_id:
            self.window_.selection.select_operation(operation_id)

    def verdicts_shown(self) -> list[tuple[str, str, str]]:
        """(call, assertion, pass|fail) of every assertion row (what the tests read)."""
        return [(call.text(1), item.text(1), item.text(0).split()[-1]) for call, item in second_level(self.tree)]


def save_operation(window: "MainWindow", operation_id: str | None = None) -> SaveToCollectionDialog | None:
    """The Save to collection dialog for `operation_id` (the selected operation when None)."""
    operation_id = operation_id or window.selection.operation_id
    if not operation_id:
        window.show_error("Select an operation to save it to a collection.")
        return None
    dialog = SaveToCollectionDialog(window, operation_id)
    window.collection_dialog = dialog
    present(dialog)
    return dialog


def add_to_menu(window: "MainWindow", menu: QMenu, operation_id: str) -> None:
    """The operations list's context menu entry."""
    action = menu.addAction("Save to &collection…")
    action.setObjectName("saveToCollection")
    action.triggered.connect(lambda _=False: save_operation(window, operation_id))


def ask_and_run(window: "MainWindow") -> None:
    """Pick a collection file and, when it has environments, one of them; then run it."""
    if in_flight(window.collection_panel.task):
        show_panel(window).error.setText(RUNNING)
        return
    path = ask_open(window, "Run collection", FILTERS, "collections")
    if not path:
        return
    panel = show_panel(window)
    from ..client.collection import CollectionError
    from ..studio.collection_runs import environments

    try:
        names = environments(path)
    except CollectionError as exc:
        panel.error.setText(printable(str(exc), 2000))
        return
    environment = None
    if names:
        picked, ok = QInputDialog.getItem(window, "Run collection", "Environment", [NO_ENVIRONMENT, *names], 1,
                                          False)
        if not ok:
            return
        environment = None if picked == NO_ENVIRONMENT else picked
    panel.run_file(path, environment)


def show_panel(window: "MainWindow") -> CollectionPanel:
    panel = window.collection_panel
    window.workbench.show_page(window.workbench.bottom, panel)
    return panel
