"""The studio window: dockable panels around the sequence diagram, state kept in QSettings.

Panels: server explorer, client panel, arguments editor, step editor, message log, JSON inspector,
requestState inspector, problems; the teaching tabs (lessons, lab, eras, cluster) around the diagram.
"""

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication
from PySide6.QtWidgets import QDockWidget, QFileDialog, QLabel, QMainWindow, QStatusBar, QWidget

from ..app.server_entries import EMBEDDED, ServerEntry
from ..app.studio import Studio, StudioEvent, describe_error
from ..protocol.errors import INVALID_PARAMS
from ..trace import StoreEvent, html_export
from ..trace.mermaid import to_mermaid
from .answering import GuiAnswerer
from .arguments_editor import ArgumentsEditor
from .async_bridge import error_sink, spawn
from .client_panel import ClientPanel
from .diagram import SequenceDiagramView
from .error_panel import ErrorPanel
from .json_view import JsonInspector
from .log import MessageLogView
from .run_controls import RunControls
from .selection import Selection
from .server_explorer import ServerExplorer, Target
from .state_inspector import StateInspector
from .step_editor import StepEditor
from .store_bridge import StoreBridge
from .teaching import install_teaching

SETTINGS_VERSION = 1


class MainWindow(QMainWindow):
    def __init__(self, studio: Studio, settings: QSettings | None = None, *, interactive_answers: bool = True) -> None:
        super().__init__()
        self.studio = studio
        self.settings = settings if settings is not None else QSettings()
        self.setWindowTitle("MRTR Studio")
        self.selection = Selection(self)
        if interactive_answers:
            studio.answerer = GuiAnswerer(self)
        self.explorer = ServerExplorer(studio)
        self.client_panel = ClientPanel(studio)
        self.arguments = ArgumentsEditor()
        self.step_editor = StepEditor(studio)
        self.errors = ErrorPanel()
        self.diagram = SequenceDiagramView(studio.store, self.selection)
        self.log = MessageLogView(studio.store, self.selection)
        self.inspector = JsonInspector(studio.store, self.selection)
        self.state_inspector = StateInspector(studio.store, self.selection, studio)
        self.controls = RunControls(self)
        self.docks: dict[str, QDockWidget] = {}
        self._build()
        self._bridge = StoreBridge(studio.store, self)
        self._bridge.storeEvent.connect(self._on_store)
        self._unsubscribe = studio.subscribe(self._on_studio)
        error_sink.append(self.show_error)
        self.restore()
        self.teaching = install_teaching(self, studio, studio.store, self.selection)

    # --- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.setCentralWidget(self.diagram)
        area = Qt.DockWidgetArea
        self._dock("explorer", "Server", self.explorer, area.LeftDockWidgetArea)
        self._dock("client", "Client", self.client_panel, area.LeftDockWidgetArea)
        self._dock("arguments", "Arguments", self.arguments, area.LeftDockWidgetArea)
        self._dock("step", "Step: next message", self.step_editor, area.RightDockWidgetArea)
        self._dock("inspector", "JSON", self.inspector, area.RightDockWidgetArea)
        self._dock("state", "requestState", self.state_inspector, area.RightDockWidgetArea)
        self._dock("log", "Messages", self.log, area.BottomDockWidgetArea)
        self._dock("problems", "Problems", self.errors, area.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["inspector"], self.docks["state"])
        self.docks["inspector"].raise_()
        self.tabifyDockWidget(self.docks["log"], self.docks["problems"])
        self.docks["log"].raise_()
        self.addToolBar(self.controls.toolbar(self))
        self.state_label = QLabel("idle")
        self.state_label.setObjectName("runState")
        status = QStatusBar(self)
        status.addPermanentWidget(self.state_label)
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

    def _dock(self, key: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> None:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock:{key}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[key] = dock

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
        self._add(file, "C&lear the trace", self.studio.store.clear)
        file.addSeparator()
        self._add(file, "&Quit", self.close, "Ctrl+Q")
        serve = bar.addMenu("&Serve")
        self.serve_action = self._add(serve, "Serve the embedded engine over &HTTP", self._toggle_serving)
        self.serve_action.setCheckable(True)
        self._add(serve, "&Copy the served URL", self._copy_served_url)
        run = bar.addMenu("&Run")
        for action in self.controls.actions():
            run.addAction(action)
        tamper = bar.addMenu("&Tamper")
        for action in self.controls.tampers.values():
            tamper.addAction(action)
        tamper.addSeparator()
        self._add(tamper, "Engine clock +10 &min", lambda: self.studio.advance_clock(600))
        self._add(tamper, "&Reset the engine clock", self.studio.reset_clock)
        view = bar.addMenu("&View")
        for dock in self.docks.values():
            view.addAction(dock.toggleViewAction())

    def _add(self, menu: Any, text: str, slot: Callable[[], Any], shortcut: str | None = None) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(lambda _=False: slot())
        if shortcut:
            action.setShortcut(shortcut)
        return action

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
            self.studio.open_trace(path)
        except (OSError, ValueError) as exc:
            self.show_error(f"Cannot open {path}: {exc}")
            return
        self.show_info(f"Opened {path}: {len(self.studio.store.operations)} operation(s).")

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
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
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

    def run_clicked(self) -> None:
        if self.studio.state == "idle":
            self.launch(step=False)

    def step_clicked(self) -> None:
        if self.studio.state == "idle":
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

    # --- events --------------------------------------------------------------------------------

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind == "state":
            self.state_label.setText(event.state or "")
            self._update_controls()
            if event.state == "paused":
                self.docks["step"].raise_()
        elif event.kind == "error":
            self.show_error(event.text)
        elif event.kind in ("tampered", "clock", "settings", "info"):
            self.show_info(event.text)
        elif event.kind == "catalog" and event.catalog is not None:
            self.statusBar().showMessage(f"Connected to {event.catalog.server} ({event.catalog.era})", 5000)
            for problem in event.catalog.problems:  # failed listings, tool definitions left out
                self.errors.add(f"{event.catalog.server}: {problem}", kind="info")
            self._select_saved_target()
        elif event.kind == "run_finished" and event.result is not None:
            drive = event.result.drive
            text = {"complete": "complete", "error": describe_error(drive.error)}.get(drive.outcome, drive.outcome)
            self.statusBar().showMessage(f"{event.result.operation.target}: {text} after "
                                         f"{len(drive.rounds)} round(s)", 10000)
            self._focus_result(event.result.operation.id, drive.error)

    def _focus_result(self, operation_id: str, error: dict[str, Any] | None) -> None:
        """Select the message that explains the end: the rejected retry for -32602, else the last one."""
        messages = self.studio.store.messages_of(operation_id)
        if error is not None and error.get("code") == INVALID_PARAMS:
            retries = [m for m in messages if m.kind == "request"]
            if retries:
                self.selection.select(retries[-1])
                self.docks["state"].raise_()  # the inspector highlights the failed check
                return
        if messages:
            self.selection.select(messages[-1])
            self.docks["inspector"].raise_()

    def _on_store(self, event: StoreEvent) -> None:
        if event.kind == "operation_added" and event.operation is not None:
            self.selection.select_operation(event.operation.id)

    def _update_controls(self) -> None:
        self.controls.set_state(self.studio.state, self.step_editor.valid)

    def show_error(self, text: str) -> None:
        self.errors.add(text)
        self.statusBar().showMessage(text, 15000)
        self.statusBar().setStyleSheet("color: #b00020;")

    def show_info(self, text: str) -> None:
        self.errors.add(text, kind="info")
        self.statusBar().setStyleSheet("")
        self.statusBar().showMessage(text, 8000)

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

    def restore(self) -> None:
        s = self.settings
        if s.value("version") is not None:
            geometry, state = s.value("window/geometry"), s.value("window/state")
            if isinstance(geometry, QByteArray):
                self.restoreGeometry(geometry)
            if isinstance(state, QByteArray):
                self.restoreState(state, SETTINGS_VERSION)
            raw = s.value("client/settings")
            try:
                client = json.loads(str(raw)) if raw else None
            except ValueError:
                client = None
            if isinstance(client, dict):
                self.client_panel.load(client)
        else:
            self.resize(1400, 860)
            QTimer.singleShot(0, self.default_layout)  # dock sizes apply once the window is laid out

    def default_layout(self) -> None:
        """Dock sizes in pixels (what resizeDocks takes), shared out from the window's own size."""
        vertical, horizontal = Qt.Orientation.Vertical, Qt.Orientation.Horizontal
        d = self.docks
        log_height = max(160, self.height() // 5)
        column = max(300, self.height() - log_height - 120)
        self.resizeDocks([d["log"]], [log_height], vertical)
        self.resizeDocks([d["explorer"], d["client"], d["arguments"]],
                         [column * 45 // 100, column * 30 // 100, column * 25 // 100], vertical)
        self.resizeDocks([d["step"], d["inspector"]], [column * 35 // 100, column * 65 // 100], vertical)
        self.resizeDocks([d["explorer"], d["step"]], [max(320, self.width() // 5), max(360, self.width() // 4)],
                         horizontal)

    def save(self) -> None:
        s = self.settings
        s.setValue("version", SETTINGS_VERSION)
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(SETTINGS_VERSION))
        s.setValue("client/settings", json.dumps(self.client_panel.to_json()))
        s.setValue("connection/last", json.dumps(self.studio.entry.to_json()))
        target = self.explorer.current_target()
        if target is not None:
            s.setValue("target/kind", target.kind)
            s.setValue("target/name", target.name)
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save()
        self.studio.stop()
        if self.show_error in error_sink:
            error_sink.remove(self.show_error)
        self._unsubscribe()
        super().closeEvent(event)
