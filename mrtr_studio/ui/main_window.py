"""The studio window, built around the operation: a workbench of dragable panels, state kept in QSettings.

Left, one scrollable column: server explorer, client panel, arguments editor. Centre: the diagram
and the teaching tabs (lessons, lab, eras, cluster). Right, as tabs: the JSON inspector, the
requestState inspector and the step editor. Bottom, as tabs: operations, messages, problems.
The window opens inside the screen's available geometry and never resizes itself (see `layout`).
"""

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRect, QSettings, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QStatusBar, QToolBar, QWidget

from ..studio.controller import Studio
from ..studio.server_entries import EMBEDDED, ServerEntry
from . import window_events, window_extras, window_settings
from .answering import GuiAnswerer
from .arguments_panel import ArgumentsPanel
from .armed_indicator import ArmedIndicator
from .async_bridge import error_sink, spawn
from .auth_view import AuthView
from .client_panel import ClientPanel
from .diagram import SequenceDiagramView
from .error_panel import ErrorPanel
from .file_dialogs import ask_open, ask_save
from .flow_stepper import FlowStepper
from .json_view import JsonInspector
from .layout import Workbench
from .log import MessageLogView
from .modes import Modes
from .operations_view import OperationsView
from .presentation import Presentation
from .run_controls import RunControls
from .screen_fit import FrameWatcher, fit_window
from .selection import Selection
from .server_explorer import ServerExplorer, Target
from .state_inspector import StateInspector
from .step_editor import StepEditor
from .store_bridge import StoreBridge
from .theme import ThemeChoice, apply_theme, building, status_colours
from .window_menus import build_menus, sync_view_menu

if TYPE_CHECKING:  # imported when first needed: the first paint does without them
    from .flow_compare_view import FlowCompareView
    from .presentation import Stepper
    from .teaching import TeachingTabs


class MainWindow(QMainWindow):
    #: Built by `window_menus.build_menus`.
    panel_actions: dict[str, QAction]
    theme_actions: dict[str, QAction]
    #: Emitted once, when the window is complete as a person sees it: painted, with the mode last left in
    #: entered (a turn after the first paint) and the view of the centre tab shown built. The other teaching
    #: views are built when first shown (`TeachingTabs`). `is_complete` says whether it has been.
    #: (tools/bench_launch.py times the launch up to it.)
    complete = Signal()

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
        self._last_loaded: str | None = None
        self.workbench = Workbench(
            {"explorer": ("Server", self.explorer), "client": ("Client", self.client_panel),
             "arguments": ("Arguments", self.arguments)},
            {"inspector": ("JSON", self.inspector), "state": ("requestState", self.state_inspector),
             "step": ("Step: next message", self.step_editor), "auth": ("Auth", self.auth_view)},
            {"operations": ("Operations", self.operations), "log": ("Messages", self.log),
             "problems": ("Problems", self.errors)})
        self._teaching: TeachingTabs | None = None
        self.is_complete = False
        self._complete_scheduled = False
        self._centre_tab = 0
        self.workbench.set_centre(self.diagram)  # until the teaching tabs take it in (`teaching`, below)
        self.setCentralWidget(self.workbench)
        self._build()
        self._bridge = StoreBridge(studio.store, self)
        self._bridge.storeEvent.connect(lambda event: window_events.on_store(self, event))
        self._unsubscribe = studio.subscribe(lambda event: window_events.on_studio(self, event))
        error_sink.append(self.show_error)
        self.modes = Modes(self, self.workbench, self.settings, lambda: self.teaching,
                           lambda: self.presentation.leave())
        self.armed = ArmedIndicator(self.studio, self.modes.bar)  # a waiting tamper, said where it stays
        self.presentation = Presentation(self, self.workbench, lambda on: self.teaching.set_presentation(on),
                                         self._stepper)
        self.restore()
        self.teaching  # noqa: B018  (the tabs, before the first paint: a view is built when first shown)

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
        build_menus(self)
        window_extras.install(self)  # filter links, Expert info
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

    def answers_roots_automatically(self) -> bool:
        return self.auto_roots_action.isChecked()

    def _save_auto_roots(self) -> None:
        self.settings.setValue("answers/auto_roots", self.auto_roots_action.isChecked())

    @property
    def teaching(self) -> "TeachingTabs":
        """The tabs around the diagram (Flow, Lessons, Lab, Eras, Cluster), made as the window is built.
        Only the current tab's view is built with them; each other one the first time it is shown or
        read (`TeachingTabs.view`)."""
        if self._teaching is None:
            from .teaching import install_in_workbench

            with building(getattr(getattr(self, "modes", None), "tab_order", None)):  # ~4,000 events unfiltered
                self._teaching = teaching = install_in_workbench(self, self.workbench)
                teaching.show_index(self._centre_tab)  # that tab's view only: the others when first shown
                self.modes.teaching_built(teaching)
        return self._teaching

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        if not self.is_complete and not self._complete_scheduled:
            self._complete_scheduled = True  # after this paint pass, children included
            QTimer.singleShot(0, self._check_complete)

    def _check_complete(self) -> None:
        self._complete_scheduled = False
        if not self.modes.switch_pending and not self.is_complete:
            self.is_complete = True
            self.complete.emit()

    def _stepper(self) -> "Stepper | None":
        """What a presenter's clicker steps: the lesson when its tab is showing, else the shown flow."""
        current = self.teaching.tabs.currentWidget()
        lessons = self.teaching.built("lessons")
        if lessons is not None and current is lessons:
            return self.teaching.lessons  # built: this does not build it
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
        entry = window_settings.saved_entry(self.settings) or EMBEDDED
        self.explorer.show_entry(entry)
        if await self.studio.connect(entry) is None and entry.kind != "embedded":
            self.show_info("Falling back to the embedded engine.")
            self.explorer.show_entry(EMBEDDED)
            await self.studio.connect(EMBEDDED)

    # --- files (the dialogs and messages are the window's; the work is the studio's) ---------------

    def _open_trace_dialog(self) -> None:
        path = ask_open(self, "Open trace", "MRTR traces (*.mrtr.json *.json *.journal);;All files (*)", "traces")
        if path:
            self.open_trace(path)

    def open_trace(self, path: str) -> None:
        try:
            notes = self.studio.open_trace(path)
        except (OSError, ValueError) as exc:
            self.show_error(f"Cannot open this trace: {exc}")
            return
        self.show_info(f"Opened {path}: {len(self.studio.store.operations)} operation(s).")
        for note in notes:  # a newer studio's file: what is not shown stays in the Problems panel and the bar
            self.show_error(note)

    def _save_trace_dialog(self) -> None:
        path = ask_save(self, "Save trace", "trace.mrtr.json", "MRTR traces (*.mrtr.json)", "traces")
        if path:
            self.save_trace(path)

    def save_trace(self, path: str) -> None:
        try:
            saved = self.studio.save_trace(path)
        except OSError as exc:
            self.show_error(f"Cannot save {path}: {exc.strerror or exc}")
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

    def export_flow(self, operation_id: str, path: str) -> None:
        try:
            written = self.studio.export_flow(operation_id, path)
        except OSError as exc:
            self.show_error(f"Cannot write {path}: {exc.strerror or exc}")
            return
        self.show_info(f"Exported the flow to {written}.")

    def clear_trace(self) -> None:
        """Empty the trace; Undo (Ctrl+Z) brings it back (the studio keeps what was cleared)."""
        try:
            count = self.studio.clear_trace()
        except ValueError:
            self.show_error("Stop the running operation before clearing the trace.")
            return
        if count:
            self.undo_clear_action.setEnabled(True)
            self.show_info(f"Cleared {count} operation(s); File ▸ Undo (Ctrl+Z) brings them back.")

    def undo_clear(self) -> None:
        count = self.studio.undo_clear()
        self.undo_clear_action.setEnabled(False)
        if count:
            self.show_info(f"Restored {count} operation(s).")

    def _import_dialog(self) -> None:
        path = ask_open(self, "Import mcpServers", "JSON files (*.json);;All files (*)", "configs")
        if path:
            self.explorer.import_file(path)

    def _target_changed(self, target: Target | None) -> None:
        saved = window_settings.saved_arguments(self.settings, target)
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
        window_settings.remember_arguments(self.settings, target, arguments)
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
        view = self.teaching.tabs.currentWidget()
        if view is self.diagram:
            return False
        from .teaching.subject import run_subject, when_finished

        said = run_subject(view, step)
        if said is not None:
            self.show_status(said)
            when_finished(view, self.show_status)
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

    def _operation_picked(self, _operation_id: str) -> None:
        """An operation picked in the list: the diagram shows it (through the selection), the log only its messages."""
        if self.teaching.tabs.currentWidget() is not self.diagram:
            self.teaching.show("flow")
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
                self.explorer.show_entry(settings.entry)
                spawn(self.studio.connect_and_start(settings.entry, op.method, op.target, dict(op.arguments)),
                      "run again")
                return True
        elif op.era in ("modern", "legacy") and self.client_panel.era() != op.era:
            self.client_panel.set_era(op.era)
        self.studio.start(op.method, op.target, dict(op.arguments))
        return True

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
        sync_view_menu(self)

    # --- events --------------------------------------------------------------------------------

    def adopt_recovered(self, operation_ids: list[str]) -> None:
        """Operations the autosave journal brought back before the window existed: marked as
        recovered, and the newest picked in the operations list, as the diagram already shows it."""
        self.operations.model.mark_recovered(sorted(operation_ids))
        if self.studio.store.operations:
            self.selection.select_operation(self.studio.store.operations[-1].id)
            # once the list has its real height:
            QTimer.singleShot(0, self, lambda: window_events.scroll_to_picked_operation(self))

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
        window_settings.restore(self)

    def save(self) -> None:
        window_settings.save(self)

    def default_layout(self) -> None:
        """The panels' default sizes, shared out from the window's own size, every panel shown."""
        self.modes.default_layout()  # the active mode's panels
        sync_view_menu(self)

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


