"""The studio window, built around the operation: a workbench of dragable panels, state kept in QSettings.

Left, one scrollable column: server explorer, client panel, arguments editor. Centre: the diagram
and the teaching tabs (lessons, lab, eras, cluster). Right, as tabs: the JSON inspector, the
requestState inspector and the step editor. Bottom, as tabs: operations, messages, problems.
The window opens inside the screen's available geometry and never resizes itself (see `layout`).
"""

import json
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence, QShowEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMainWindow, QStatusBar, QToolBar, QWidget

from ..protocol.errors import INVALID_PARAMS
from ..studio.controller import Studio, StudioEvent, describe_error
from ..studio.operations import RunSettings
from ..studio.server_entries import EMBEDDED, ServerEntry
from ..trace import Operation, StoreEvent, TraceMessage, html_export
from ..trace.mermaid import to_mermaid
from ..trace.origin import Origin
from ..trace.private_files import write_private
from .answering import GuiAnswerer
from .arguments_panel import ArgumentsPanel
from .async_bridge import error_sink, spawn
from .auth_view import AuthView
from .client_panel import ClientPanel
from .diagram import SequenceDiagramView
from .error_panel import ErrorPanel
from .json_view import JsonInspector
from .layout import Workbench
from .log import MessageLogView
from .operations_view import OperationsView
from .presentation import Presentation
from .run_controls import RunControls
from .screen_fit import FrameWatcher, fit_window
from .selection import Selection
from .server_explorer import ServerExplorer, Target
from .state_inspector import StateInspector
from .step_editor import StepEditor
from .store_bridge import StoreBridge
from .theme import THEME_CHOICES, ThemeChoice, apply_theme, as_choice, current_choice, status_colours

if TYPE_CHECKING:  # imported when first needed: the first paint does without them
    from .flow_compare_view import FlowCompareView
    from .presentation import Stepper
    from .teaching import TeachingTabs

#: Bumped when the saved layout's meaning changes: an older saved state is then ignored, not misapplied.
SETTINGS_VERSION = 3  # 3: the side column runs the full height
THEME_LABELS = {"system": "&System colours", "light": "&Light", "dark": "&Dark"}


def fitted_geometry(available: QRect) -> QRect:
    """Where a new window opens: all of a small screen (up to 1600x960), 90% of a bigger one, centred."""
    width = available.width() if available.width() <= 1600 else available.width() * 9 // 10
    height = available.height() if available.height() <= 960 else available.height() * 9 // 10
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


class MainWindow(QMainWindow):
    def __init__(self, studio: Studio, settings: QSettings | None = None, *, interactive_answers: bool = True,
                 available: QRect | None = None) -> None:
        """`available`: the screen room to open in (the screen's available geometry when None)."""
        super().__init__()
        self.studio = studio
        self.settings = settings if settings is not None else QSettings()
        self._available = available
        self._shown = False
        self._restore_on_show = False
        self.frame_watcher = FrameWatcher(self, self.available_geometry)
        self.setWindowTitle("MRTR Studio")
        self.selection = Selection(self, model=studio.selection)  # the studio's own, bridged to Qt
        if interactive_answers:
            studio.answerer = GuiAnswerer(self, auto_roots=self.answers_roots_automatically)
        self.explorer = ServerExplorer(studio)
        self.client_panel = ClientPanel(studio)
        self.arguments = ArgumentsPanel()
        self.step_editor = StepEditor(studio)
        self.errors = ErrorPanel()
        self.diagram = SequenceDiagramView(studio.store, self.selection)
        self.log = MessageLogView(studio.store, self.selection)
        self.operations = OperationsView(studio.store, self.selection)
        self.inspector = JsonInspector(studio.store, self.selection)
        self.state_inspector = StateInspector(studio.store, self.selection, studio)
        self.controls = RunControls(self)
        self.auth_view = AuthView(studio.auth, lambda: studio.entry.url if studio.entry.kind == "http" else None)
        self.auth_view.waiting.connect(self._sign_in_waiting)
        self.compare_views: list[FlowCompareView] = []
        self._cleared: tuple[list[Operation], list[TraceMessage]] | None = None
        self._cleared_origin: Origin | None = None
        self._last_loaded: str | None = None
        self.workbench = Workbench(
            {"explorer": ("Server", self.explorer), "client": ("Client", self.client_panel),
             "arguments": ("Arguments", self.arguments)},
            {"inspector": ("JSON", self.inspector), "state": ("requestState", self.state_inspector),
             "step": ("Step: next message", self.step_editor), "auth": ("Auth", self.auth_view)},
            {"operations": ("Operations", self.operations), "log": ("Messages", self.log),
             "problems": ("Problems", self.errors)})
        self._teaching: TeachingTabs | None = None
        self._teaching_scheduled = False
        self._centre_tab = 0
        self.workbench.set_centre(self.diagram)  # until the teaching tabs join it, after the first paint
        self.setCentralWidget(self.workbench)
        self._build()
        self._bridge = StoreBridge(studio.store, self)
        self._bridge.storeEvent.connect(self._on_store)
        self._unsubscribe = studio.subscribe(self._on_studio)
        error_sink.append(self.show_error)
        self.presentation = Presentation(self, self.workbench, self._central_views, self._stepper)
        self.restore()

    # --- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.addToolBar(self.controls.toolbar(self))
        self.state_label = QLabel("idle")
        self.state_label.setObjectName("runState")
        status = QStatusBar(self)
        status.addPermanentWidget(self.state_label)
        self._status_text = ""
        status.messageChanged.connect(self._status_changed)
        self.setStatusBar(status)
        self._menus()
        c = self.controls
        c.run.triggered.connect(self.run_clicked)
        c.step.triggered.connect(self.step_clicked)
        c.continue_.triggered.connect(self.continue_clicked)
        c.stop.triggered.connect(self.studio.stop)
        c.tamperRequested.connect(self.tamper)
        self.explorer.targetChanged.connect(self._target_changed)
        self.step_editor.validityChanged.connect(lambda _v: self._update_controls())
        self.operations.runAgainRequested.connect(self.run_again)
        self.operations.compareRequested.connect(self.compare)
        self.operations.operationPicked.connect(self._operation_picked)

    def _menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._add(file, "&Import mcpServers…", self._import_dialog)
        self._add(file, "Connect to the &embedded engine", lambda: self.connect_to(EMBEDDED))
        self._add(file, "&Open trace…", self._open_trace_dialog, "Ctrl+O")
        self._add(file, "&Save trace as…", self._save_trace_dialog, "Ctrl+S")
        self._add(file, "Reopen the &last session", self._reopen_last_session)
        self._add(file, "&Discard recovered operations", self._discard_recovered)
        export = file.addMenu("&Export the selected flow")
        self._add(export, "as &HTML page…", lambda: self._export_flow("html"))
        self._add(export, "as &Markdown…", lambda: self._export_flow("md"))
        for action in (self.diagram.png_action, self.diagram.svg_action, self.diagram.mermaid_action):
            export.addAction(action)
        self._add(file, "C&lear the trace", self.clear_trace)
        self.undo_clear_action = self._add(file, "&Undo clearing the trace", self.undo_clear, "Ctrl+Z")
        self.undo_clear_action.setEnabled(False)
        file.addSeparator()
        self._add(file, "&Quit", self.close, "Ctrl+Q")
        serve = bar.addMenu("&Serve")
        self.serve_action = self._add(serve, "Serve the embedded engine over &HTTP", self._toggle_serving)
        self.serve_action.setCheckable(True)
        self._add(serve, "&Copy the served URL", self._copy_served_url)
        serve.addSeparator()
        self._add(serve, "&Proxy and wrapped sessions…", self.show_proxy_panel)
        run = bar.addMenu("&Run")
        for action in self.controls.actions():
            run.addAction(action)
        run.addSeparator()
        self.resume_action = self._add(run, "&Resume polling the selected task", self.resume_task)
        self.auto_roots_action = self._add(run, "Answer roots/list &automatically", self._save_auto_roots)
        self.auto_roots_action.setCheckable(True)  # off: the roots asked for are shown and confirmed
        self.auto_roots_action.setChecked(self.settings.value("answers/auto_roots") in (True, "true"))
        tamper = bar.addMenu("&Tamper")
        for action in self.controls.tampers.values():
            tamper.addAction(action)
        tamper.addSeparator()
        self._add(tamper, "Engine clock +10 &min", lambda: self.studio.advance_clock(600))
        self._add(tamper, "&Reset the engine clock", self.studio.reset_clock)
        self.view_menu = view = bar.addMenu("&View")
        self.panel_actions: dict[str, QAction] = {}
        for key, text, shortcut in (("side", "&Server, client and arguments", "Ctrl+Alt+S"),
                                    ("inspectors", "&Inspectors", "Ctrl+Alt+I"),
                                    ("bottom", "&Operations and messages", "Ctrl+Alt+M")):
            panel = self.workbench.panels()[key]
            action = self._add(view, text, partial(_toggle, panel), shortcut)
            action.setCheckable(True)
            action.setChecked(True)
            self.panel_actions[key] = action
        view.aboutToShow.connect(self._sync_view_menu)
        view.addSeparator()
        self.presentation_action = self._add(view, "&Presentation mode", lambda: self.presentation.toggle(), "F11")
        self.addAction(self.presentation_action)  # F11 works whichever panel has the focus
        self._add(view, "&Reset layout", self.reset_layout)
        theme = view.addMenu("&Colours")
        self.theme_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for choice in THEME_CHOICES:
            action = self._add(theme, THEME_LABELS[choice], partial(self.set_theme, choice))
            action.setCheckable(True)
            group.addAction(action)
            self.theme_actions[choice] = action

    def answers_roots_automatically(self) -> bool:
        return self.auto_roots_action.isChecked()

    def _save_auto_roots(self) -> None:
        self.settings.setValue("answers/auto_roots", self.auto_roots_action.isChecked())

    def _sync_view_menu(self) -> None:
        for key, action in self.panel_actions.items():
            action.setChecked(not self.workbench.panels()[key].isHidden())
        self.theme_actions[current_choice()].setChecked(True)

    def _add(self, menu: Any, text: str, slot: Callable[[], Any], shortcut: str | None = None) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(lambda _=False: slot())
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        return action

    @property
    def teaching(self) -> "TeachingTabs":
        """The lessons, lab, eras and cluster tabs around the diagram, built the first time they are needed
        (right after the window's first paint, or sooner when asked for)."""
        if self._teaching is None:
            from .teaching import install_teaching

            bench = self.workbench
            sizes = bench.saveState(), bench.top.saveState()
            self.takeCentralWidget()  # the workbench, kept (setCentralWidget would delete it)
            self.setCentralWidget(bench.centre.takeWidget())  # install_teaching makes it the first tab
            teaching = install_teaching(self, self.studio, self.studio.store, self.selection)
            tabs = self.takeCentralWidget()
            assert tabs is not None
            bench.set_centre(tabs)
            self.setCentralWidget(bench)
            bench.restoreState(sizes[0])
            bench.top.restoreState(sizes[1])
            self._teaching = teaching
            teaching.tabs.setCurrentIndex(self._centre_tab)
        return self._teaching

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        if self._teaching is None and not self._teaching_scheduled:
            self._teaching_scheduled = True
            QTimer.singleShot(0, self._build_teaching)

    def _build_teaching(self) -> None:
        self.teaching  # noqa: B018  (building it is the point)

    def _central_views(self) -> list[QWidget]:
        """The views presentation mode scales: the flow diagram and every teaching tab."""
        if self._teaching is None:
            return [self.diagram]
        tabs = self._teaching.tabs
        return [w for w in (tabs.widget(i) for i in range(tabs.count())) if w is not None]

    def _stepper(self) -> "Stepper | None":
        """What a presenter's clicker steps: the lesson when its tab is showing, else the shown flow."""
        if self._teaching is not None:
            current = self._teaching.tabs.currentWidget()
            if current is self._teaching.lessons:
                return self._teaching.lessons
            if current is not self.diagram:
                return None
        return FlowStepper(self.studio, self.selection)

    def _sign_in_waiting(self, server_url: str) -> None:
        self.show_inspector(self.auth_view)
        self.show_info(f"Sign in to {server_url} in the browser; the Auth tab has the link.")

    def show_inspector(self, widget: QWidget) -> None:
        """Bring one inspector tab forward (and the inspectors back if they were hidden)."""
        self.workbench.inspectors.show()
        self.workbench.show_page(self.workbench.inspectors, widget)

    # --- actions -------------------------------------------------------------------------------

    def connect_to(self, entry: ServerEntry) -> None:
        self.explorer.show_entry(entry)
        spawn(self.studio.connect(entry), "connect")

    async def start(self) -> None:
        """Connect where the last session was (the embedded engine the first time)."""
        entry = self._saved_entry() or EMBEDDED
        self.explorer.show_entry(entry)
        if await self.studio.connect(entry) is None and entry.kind != "embedded":
            self.show_info("Falling back to the embedded engine.")
            self.explorer.show_entry(EMBEDDED)
            await self.studio.connect(EMBEDDED)

    def _open_trace_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open trace", "", "MRTR traces (*.mrtr.json *.json);;All files (*)")
        if path:
            self.open_trace(path)

    def open_trace(self, path: str) -> None:
        try:
            notes = self.studio.open_trace(path)
        except (OSError, ValueError) as exc:
            self.show_error(f"Cannot open {path}: {exc}")
            return
        self.show_info(f"Opened {path}: {len(self.studio.store.operations)} operation(s).")
        for note in notes:  # a newer studio's file: what is not shown stays in the Problems panel and the bar
            self.show_error(note)

    def _save_trace_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save trace", "trace.mrtr.json", "MRTR traces (*.mrtr.json)")
        if path:
            self.save_trace(path)

    def save_trace(self, path: str) -> None:
        try:
            saved = self.studio.save_trace(path)
        except OSError as exc:
            self.show_error(f"Cannot save {path}: {exc}")
            return
        self.show_info(f"Saved the trace to {saved}.")

    def _reopen_last_session(self) -> None:
        if self.studio.autosave is None:
            self.show_error("There is no autosave journal in this session.")
            return
        count = self.studio.reopen_last_session(self.studio.autosave.path)
        self.show_info(f"Reopened {count} operation(s) from the last session." if count
                       else "No earlier session was found.")

    def _discard_recovered(self) -> None:
        count = self.studio.discard_recovered()
        self.show_info(f"Discarded {count} operation(s) recovered after a crash." if count
                       else "There are no recovered operations to discard.")

    def _export_flow(self, kind: str) -> None:
        operation_id = self.selection.operation_id or self.studio.current_operation_id
        if not operation_id:
            self.show_error("Run or select a flow to export first.")
            return
        suffix = "HTML pages (*.html)" if kind == "html" else "Markdown (*.md)"
        path, _ = QFileDialog.getSaveFileName(self, "Export flow", f"flow.{kind}", suffix)
        if path:
            self.export_flow(operation_id, path)

    def export_flow(self, operation_id: str, path: str) -> None:
        store = self.studio.store
        operation = store.operation(operation_id)
        section = html_export.Section(f"{operation.method} {operation.target}", operation,
                                      store.messages_of(operation_id))
        title = f"MRTR flow: {operation.method} {operation.target}"
        if path.endswith(".md"):
            text = html_export.markdown(title, [section], mermaid={operation_id: to_mermaid(
                operation, store.messages_of(operation_id), timings=True)})
        else:
            text = html_export.page(title, [section])
        try:
            write_private(path, text)  # the flow's traffic: 0600
        except OSError as exc:
            self.show_error(f"Cannot write {path}: {exc}")
            return
        self.show_info(f"Exported the flow to {path}.")

    def _toggle_serving(self) -> None:
        """Let outside clients talk to the embedded engine; their flows appear in the trace."""
        if self.studio.serving_url is None:
            spawn(self._start_serving(), "serve")
        else:
            spawn(self.studio.stop_serving(), "stop serving")
            self.serve_action.setChecked(False)

    async def _start_serving(self) -> None:
        try:
            url = await self.studio.start_serving()
        except OSError as exc:
            self.serve_action.setChecked(False)
            self.show_error(f"Cannot serve over HTTP: {exc}")
            return
        self.serve_action.setChecked(True)
        self.statusBar().showMessage(f"Serving at {url}", 10000)

    def show_proxy_panel(self) -> None:
        from .proxy_panel import ProxyPanel

        if getattr(self, "proxy_panel", None) is None:
            self.proxy_panel = ProxyPanel(self.studio, self)
        self.proxy_panel.show()
        self.proxy_panel.raise_()

    def _copy_served_url(self) -> None:
        url = self.studio.serving_url
        if url is None:
            self.show_error("The embedded engine is not being served; use the Serve menu first.")
            return
        QGuiApplication.clipboard().setText(url)
        self.show_info(f"Copied {url}")

    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import mcpServers", "", "JSON files (*.json);;All files (*)")
        if path:
            self.explorer.import_file(path)

    def _target_changed(self, target: Target | None) -> None:
        saved = self._saved_arguments(target)
        self.arguments.set_target(target, saved)

    def launch(self, step: bool) -> bool:
        target = self.explorer.current_target()
        if target is None:
            self.show_error("Pick a tool, prompt or resource in the server explorer first.")
            return False
        arguments = self.arguments.arguments()
        if arguments is None:
            self.show_error(f"The arguments cannot be sent: {self.arguments.problem()}")
            return False
        name, args = target.resolve(arguments)
        self._remember_arguments(target, arguments)
        try:
            self.studio.start(target.method, name, args, step=step)
        except RuntimeError as exc:
            self.show_error(str(exc))
            return False
        return True

    def resume_task(self) -> bool:
        """Go on polling the task the selected operation became (an opened trace keeps its id)."""
        op_id = self.selection.operation_id
        op = next((o for o in self.studio.store.operations if o.id == op_id), None)
        if op is None or op.task_id is None:
            self.show_error("Select an operation that became a task to resume polling it.")
            return False
        try:
            self.studio.resume(op.id)
        except RuntimeError as exc:
            self.show_error(str(exc))
            return False
        return True

    def _tab_subject(self, step: bool) -> bool:
        """F5/F10 on a teaching tab run (or step) that tab's subject, not the explorer's target."""
        if self._teaching is None or self._teaching.tabs.currentWidget() is self.diagram:
            return False
        from .teaching.subject import run_subject

        said = run_subject(self._teaching.tabs.currentWidget(), step)
        if said is not None:
            self.show_status(said)
        return said is not None

    def run_clicked(self) -> None:
        if self.studio.state == "idle" and not self._tab_subject(step=False):
            self.launch(step=False)

    def step_clicked(self) -> None:
        if self.studio.state == "idle":
            if not self._tab_subject(step=True):
                self.launch(step=True)
        elif self.step_editor.commit():
            self.studio.step()

    def continue_clicked(self) -> None:
        if self.studio.state == "idle" or self.step_editor.commit():
            self.studio.continue_()

    def tamper(self, kind: str) -> None:
        if self.studio.pending is not None and not self.step_editor.commit():
            return
        try:
            self.studio.tamper(kind)
        except ValueError as exc:
            self.show_error(str(exc))

    def clear_trace(self) -> None:
        """Empty the trace, keeping what was there so that Undo (Ctrl+Z) can bring it back."""
        store = self.studio.store
        if self.studio.busy:
            self.show_error("Stop the running operation before clearing the trace.")
            return
        if not store.operations:
            return
        self._cleared = (list(store.operations), list(store.messages))
        self._cleared_origin = store.origin  # an opened file's reference, for the journal after an undo
        store.clear()
        self.undo_clear_action.setEnabled(True)
        self.show_info(f"Cleared {len(self._cleared[0])} operation(s); File ▸ Undo (Ctrl+Z) brings them back.")

    def undo_clear(self) -> None:
        if self._cleared is None:
            return
        operations, messages = self._cleared
        self._cleared = None
        self.undo_clear_action.setEnabled(False)
        store = self.studio.store
        keep = (list(store.operations), list(store.messages))  # anything run since the clear stays too
        store.load(operations + keep[0], messages + keep[1], self._cleared_origin)  # the file referenced, not copied
        self.show_info(f"Restored {len(operations)} operation(s).")

    def _operation_picked(self, _operation_id: str) -> None:
        """An operation picked in the list: the diagram shows it (through the selection), the log only its messages."""
        if self._teaching is not None and self._teaching.tabs.currentWidget() is not self.diagram:
            self._teaching.show("flow")
        if not self.log.only_operation.isChecked():
            self.log.only_operation.setChecked(True)

    def run_again(self, operation_id: str) -> bool:
        """Repeat an operation with its arguments and, when it ran here, the same client settings."""
        row = self.operations.model.index_.get(operation_id)
        if row is None:
            return False
        if self.studio.busy:
            self.show_error("An operation is already running.")
            return False
        op, settings = row.operation, row.settings
        if settings is not None:
            self.client_panel.load(settings.client)
            if settings.entry is not None and settings.entry != self.studio.entry:
                spawn(self._reconnect_and_run(settings.entry, op), "run again")
                return True
        elif op.era in ("modern", "legacy") and self.client_panel.era() != op.era:
            self.client_panel.set_era(op.era)
        self.studio.start(op.method, op.target, dict(op.arguments))
        return True

    async def _reconnect_and_run(self, entry: ServerEntry, op: Operation) -> None:
        self.explorer.show_entry(entry)
        if await self.studio.connect(entry) is not None:
            self.studio.start(op.method, op.target, dict(op.arguments))

    def compare(self, left_id: str, right_id: str) -> "FlowCompareView":
        """The two flows side by side, in a window of their own (several comparisons can stay open)."""
        from .flow_compare_view import FlowCompareView

        view = FlowCompareView(self.studio.store, left_id, right_id, self)
        room = self.geometry()
        view.resize(max(640, room.width() * 9 // 10), max(480, room.height() * 9 // 10))
        view.finished.connect(lambda _=0, v=view: self.compare_views.remove(v) if v in self.compare_views else None)
        self.compare_views.append(view)
        view.show()
        return view

    def set_theme(self, choice: ThemeChoice) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, choice)
        self.settings.setValue("view/theme", choice)
        self._sync_view_menu()

    # --- events --------------------------------------------------------------------------------

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind == "state":
            self.state_label.setText(event.state or "")
            self._update_controls()
            if event.state == "paused":
                self.show_inspector(self.step_editor)
        elif event.kind == "error":
            self.show_error(event.text)
        elif event.kind in ("tampered", "clock", "settings", "info"):
            self.show_info(event.text)
        elif event.kind == "catalog" and event.catalog is not None:
            self.show_status(f"Connected to {event.catalog.server} ({event.catalog.era})", "success", 5000)
            for problem in event.catalog.problems:  # failed listings, tool definitions left out
                self.errors.add(f"{event.catalog.server}: {problem}", kind="info")
            self._select_saved_target()
        elif event.kind == "run_finished" and event.result is not None:
            drive = event.result.final  # a task's end, when the call became one
            text = {"complete": "complete", "error": describe_error(drive.error)}.get(drive.outcome, drive.outcome)
            rounds = f"{event.result.operation.rounds} round(s)" + (" as a task" if drive.task else "")
            self.show_status(f"{event.result.operation.target}: {text} after {rounds}",
                             "success" if drive.outcome == "complete" else "error", 10000)
            self._focus_result(event.result.operation.id, drive.error)

    def _focus_result(self, operation_id: str, error: dict[str, Any] | None) -> None:
        """Select the message that explains the end: the rejected retry for -32602, else the last one."""
        messages = self.studio.store.messages_of(operation_id)
        if error is not None and error.get("code") == INVALID_PARAMS:
            retries = [m for m in messages if m.kind == "request"]
            if retries:
                self.selection.select(retries[-1])
                self.show_inspector(self.state_inspector)  # it highlights the failed check
                return
        if messages:
            self.selection.select(messages[-1])
            self.show_inspector(self.inspector)

    def _on_store(self, event: StoreEvent) -> None:
        if event.kind == "loaded" and self.studio.store.operations:  # a file or journal opened: its last flow
            self._last_loaded = self.studio.store.operations[-1].id
            QTimer.singleShot(0, self._show_last_loaded)
            return
        if event.kind == "operation_added" and event.operation is not None:
            op = event.operation
            if not event.loaded and self.studio.busy and self.studio.current_operation_id == op.id:
                self.operations.model.index_.note_settings(op.id, RunSettings(
                    op.method, op.target, dict(op.arguments), self.studio.identity_shown(),
                    self.client_panel.to_json(), self.studio.entry))
            if not event.loaded:
                self.selection.select_operation(op.id)
            elif self._last_loaded is None:  # a file or journal opening: show its last flow, once, at the end
                self._last_loaded = op.id
                QTimer.singleShot(0, self._show_last_loaded)
            else:
                self._last_loaded = op.id

    def adopt_recovered(self, operation_ids: list[str]) -> None:
        """Operations the autosave journal brought back before the window existed: marked as
        recovered, and the newest picked in the operations list, as the diagram already shows it."""
        self.operations.model.mark_recovered(sorted(operation_ids))
        if self.studio.store.operations:
            self.selection.select_operation(self.studio.store.operations[-1].id)
            QTimer.singleShot(0, self, self._scroll_to_picked_operation)  # once the list has its real height

    def _scroll_to_picked_operation(self) -> None:
        self.operations.table.scrollTo(self.operations.table.currentIndex())

    def _show_last_loaded(self) -> None:
        operation_id, self._last_loaded = self._last_loaded, None
        if operation_id is not None and operation_id in {op.id for op in self.studio.store.operations[-1:]}:
            self.selection.select_operation(operation_id)

    def _update_controls(self) -> None:
        self.controls.set_state(self.studio.state, self.step_editor.valid)
        self.operations.set_can_run(self.studio.state == "idle")

    def show_status(self, text: str, kind: str = "info", timeout: int = 8000) -> None:
        """One line in the status bar: errors red behind "✗", success green behind "✓" (never colour alone)."""
        prefix = {"error": "✗ ", "success": "✓ "}.get(kind, "")
        colour = status_colours().get(kind, "")
        self._status_text = prefix + text
        self.statusBar().setStyleSheet(f"QStatusBar {{ color: {colour}; }}" if colour else "")
        self.statusBar().showMessage(self._status_text, timeout)

    def _status_changed(self, text: str) -> None:
        """A status tip or an emptied bar is plain text: the colour belongs to our own message only."""
        if text != self._status_text and self.statusBar().styleSheet():
            self.statusBar().setStyleSheet("")

    def show_error(self, text: str) -> None:
        self.errors.add(text)
        self.show_status(text, "error", 15000)

    def show_info(self, text: str) -> None:
        self.errors.add(text, kind="info")
        self.show_status(text, "info")

    # --- persistence ---------------------------------------------------------------------------

    def _saved_entry(self) -> ServerEntry | None:
        raw = self.settings.value("connection/last")
        try:
            return ServerEntry.from_json(json.loads(str(raw))) if raw else None
        except (ValueError, TypeError):
            return None

    def _saved_arguments(self, target: Target | None) -> dict[str, Any] | None:
        if target is None:
            return None
        raw = self.settings.value(f"arguments/{target.kind}/{target.name}")
        try:
            value = json.loads(str(raw)) if raw else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def _remember_arguments(self, target: Target, arguments: dict[str, Any]) -> None:
        self.settings.setValue(f"arguments/{target.kind}/{target.name}", json.dumps(arguments))

    def _select_saved_target(self) -> None:
        if self.explorer.current_target() is None:
            kind, name = str(self.settings.value("target/kind", "tool")), str(self.settings.value("target/name", ""))
            if not (name and self.explorer.select(name, kind)):
                self.explorer.select("delete_file", "tool")

    def available_geometry(self) -> QRect:
        """The room the window may use: the given one, else its screen's minus panels and docks."""
        if self._available is not None:
            return QRect(self._available)
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 720)

    def fit_to_screen(self) -> None:
        """Keep the window, frame included, inside the available geometry (a saved one may be bigger)."""
        fit_window(self, self.available_geometry())

    def restore(self) -> None:
        s = self.settings
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, as_choice(s.value("view/theme", "system")))
        raw = s.value("client/settings")
        try:
            client = json.loads(str(raw)) if raw else None
        except ValueError:
            client = None
        if isinstance(client, dict):
            self.client_panel.load(client)
        restored = False
        if str(s.value("version")) == str(SETTINGS_VERSION):
            geometry, state = s.value("window/rect"), s.value("window/state")
            if isinstance(state, QByteArray):
                self.restoreState(state, SETTINGS_VERSION)
            if isinstance(geometry, QRect) and geometry.isValid():
                self.setGeometry(geometry)  # not restoreGeometry: the room is `available_geometry`
                restored = self.workbench.restore(s)
                if s.value("window/maximized") in (True, "true"):
                    self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
            self._centre_tab = _int(s.value("layout/centre_tab", 0))
        self._restore_on_show = restored
        if restored:
            self.fit_to_screen()
        else:
            self.setGeometry(fitted_geometry(self.available_geometry()))
            self.workbench.default_sizes(self.width(), self.height())
            QTimer.singleShot(0, self.default_layout)  # again once the window is laid out at its real size

    def default_layout(self) -> None:
        """The panels' default sizes, shared out from the window's own size, every panel shown."""
        self.workbench.default_sizes(self.workbench.width() or self.width(), self.workbench.height() or self.height())
        self._sync_view_menu()

    def reset_layout(self) -> None:
        """View ▸ Reset layout: the default sizes and tabs, every panel back, inside the screen."""
        if self.presentation.active:
            self.presentation.leave()
        self.fit_to_screen()
        for bar in self.findChildren(QToolBar):
            bar.show()
        self.workbench.inspectors.setCurrentIndex(0)
        self.workbench.bottom.setCurrentIndex(0)
        self.default_layout()

    def save(self) -> None:
        s = self.settings
        if self.presentation.active:  # the layout to keep is the one presentation mode hid
            self.presentation.leave()
        s.setValue("version", SETTINGS_VERSION)
        s.setValue("window/rect", self.normalGeometry() if self.isMaximized() else self.geometry())
        s.setValue("window/maximized", self.isMaximized())
        s.setValue("window/state", self.saveState(SETTINGS_VERSION))
        self.workbench.save(s)
        s.setValue("layout/centre_tab", self._teaching.tabs.currentIndex() if self._teaching else self._centre_tab)
        s.setValue("client/settings", json.dumps(self.client_panel.to_json()))
        s.setValue("connection/last", json.dumps(self.studio.entry.to_json()))
        target = self.explorer.current_target()
        if target is not None:
            s.setValue("target/kind", target.kind)
            s.setValue("target/name", target.name)
        s.sync()

    def showEvent(self, event: QShowEvent) -> None:
        """The window frame (title bar, borders) is known only once shown: fit again, frame included."""
        super().showEvent(event)
        if not self._shown:
            self._shown = True
            self.fit_to_screen()
            if self._restore_on_show:  # splitter sizes mean something only at the window's real size
                self.workbench.restore(self.settings)
            self.frame_watcher.start()  # a window manager adds its frame a moment later, unannounced

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save()
        self.studio.stop()
        if self.show_error in error_sink:
            error_sink.remove(self.show_error)
        self._unsubscribe()
        super().closeEvent(event)


class FlowStepper:
    """Step through the selected operation's messages, one arrow at a time (presentation mode)."""

    def __init__(self, studio: Studio, selection: Selection) -> None:
        self.studio, self.selection = studio, selection

    def _move(self, offset: int) -> None:
        operation_id = self.selection.operation_id or self.studio.current_operation_id
        messages = self.studio.store.messages_of(operation_id) if operation_id else []
        if not messages:
            return
        seqs = [m.seq for m in messages]
        here = seqs.index(self.selection.message_seq) if self.selection.message_seq in seqs else -1
        target = min(max(here + offset, 0), len(messages) - 1) if here >= 0 else (0 if offset > 0 else len(seqs) - 1)
        self.selection.select(messages[target])

    def step(self) -> None:
        self._move(1)

    def back(self) -> None:
        self._move(-1)


def _toggle(panel: QWidget) -> None:
    panel.setVisible(panel.isHidden())


def _int(value: object, default: int = 0) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default
