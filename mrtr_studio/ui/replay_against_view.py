"""Replay against…: a window of its own where the person names a server (http(s)://…, stdio:COMMAND or
embedded), the recorded flows (one operation's, or the whole trace's) are replayed against it off
the GUI thread (studio/replay_against.py, the same replay as `mrtr-studio replay --against`), and
the result is shown: "N flow(s), M differ", the flows with their verdict, the picked flow's rounds as
the command line lists them (kinds, inputs asked, requestState, timings recorded and now, each
difference), and the side-by-side Compare of the recorded flow and its replay (ui/flow_compare_view.py).

Opened from an operation's context menu (next to Serve this recording) and from the Serve menu. A
bad server name or an unreachable server is said inline, in the window; Stop cancels the replay.
"""

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QHBoxLayout, QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QWidget

from ..protocol.peer_text import printable
from ..replay.against import FlowReport, RoundReport
from ..studio.replay_against import ReplayAgainst, ReplayedFlow, summary_of
from . import tones
from .async_bridge import in_flight, spawn
from .builders import column_layout, line_edit, push_button, splitter, text_label

if TYPE_CHECKING:
    from .flow_compare_view import FlowCompareView
    from .main_window import MainWindow

DIFFERS = "≠"
PLACEHOLDER = "http://127.0.0.1:8765/mcp, stdio:python server.py or embedded"


def open_replay(window: "MainWindow", operation_id: str | None) -> "ReplayAgainstView":
    view = ReplayAgainstView(window, operation_id)
    room = window.geometry()
    view.resize(max(640, room.width() * 9 // 10), max(480, room.height() * 9 // 10))
    view.show()
    return view


def _ms(value: float | None) -> str:
    return "?" if value is None else f"{value:.1f} ms"


def _side(kind: str, asked: dict[str, str], state: bool, ms: float | None) -> str:
    parts = [kind]
    if asked:
        parts.append("asks " + ", ".join(f"{key} ({method})" for key, method in asked.items()))
    if state:
        parts.append("requestState")
    return printable(" · ".join(parts) + f" in {_ms(ms)}", 400)


class ReplayAgainstView(QDialog):
    def __init__(self, window: "MainWindow", operation_id: str | None) -> None:
        super().__init__(window)
        self.setObjectName("replayAgainst")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.window_ = window
        self.operation_id = operation_id
        self.replay = ReplayAgainst(window.studio)
        #: Every flow of the last replay that ran to its end (None while one runs, or when it did not).
        self.outcome: list[ReplayedFlow] | None = None
        #: The flows replayed so far, in the order of the flows list.
        self.replayed: list[ReplayedFlow] = []
        self.task: asyncio.Task[list[ReplayedFlow] | None] | None = None
        self.compare: FlowCompareView | None = None
        self.closed = False
        store = window.studio.store
        what = (f"{store.operation(operation_id).method} {store.operation(operation_id).target} ({operation_id})"
                if operation_id else "every recorded flow of the trace")
        self.setWindowTitle(f"Replay {what} against another server")
        self.target = line_edit("replayTarget", "Server to replay against", PLACEHOLDER)
        self.target.setText(str(window.settings.value("replay/target", "") or ""))
        self.target.returnPressed.connect(self.start)
        self.run_button = push_button("replayRun", "&Replay", self.start)
        self.stop_button = push_button("replayStop", "&Stop", self.stop, enabled=False)
        self.status = text_label("replayStatus", f"Replays {what} as `mrtr-studio replay --against` does, as the "
                                 f"client panel's identity ({window.studio.identity.name}); each replayed flow "
                                 "becomes an operation of the trace.")
        self.summary = text_label("replaySummary")
        self.flows = self._tree("replayFlows", ["", "flow", "now", "recorded"])
        self.flows.currentItemChanged.connect(lambda *_: self._show_flow())
        flows = self.flows.header()
        flows.setStretchLastSection(False)
        flows.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for number in (2, 3):
            flows.setSectionResizeMode(number, QHeaderView.ResizeMode.ResizeToContents)
        self.rounds = self._tree("replayRounds", ["", "round", "recorded", "now", "differences"])
        self.rounds.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for number in (2, 3):
            self.rounds.setColumnWidth(number, 280)
        self.flows.setAccessibleName("Replayed flows")
        self.rounds.setAccessibleName("Rounds of the picked flow, recorded and now")
        self.compare_box = QWidget()
        self.compare_layout = column_layout(self.compare_box, margins=0)
        self._build()

    def _tree(self, name: str, headers: list[str]) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setObjectName(name)
        tree.setRootIsDecorated(False)
        tree.setAlternatingRowColors(True)
        tree.setHeaderLabels(headers)
        header = tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        return tree

    def _build(self) -> None:
        row = QHBoxLayout()
        row.addWidget(QLabel("Server:"))
        row.addWidget(self.target, 1)
        row.addWidget(self.run_button)
        row.addWidget(self.stop_button)
        details = splitter("replayDetails", Qt.Orientation.Vertical, self.rounds, self.compare_box,
                           sizes=(120, 480), grow=1)
        sides = splitter("replaySides", Qt.Orientation.Horizontal, self.flows, details, sizes=(300, 1060), grow=1)
        column_layout(self, row, self.status, self.summary, sides)

    # --- running ------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return in_flight(self.task)

    def start(self) -> "asyncio.Task[list[ReplayedFlow] | None] | None":
        if self.busy:
            return None
        self.window_.settings.setValue("replay/target", self.target.text().strip())
        self.flows.clear()
        self.rounds.clear()
        self._set_compare(None)
        self.summary.setText("")
        self.outcome = None
        self.replayed = []
        self._running(True)
        self.task = spawn(self._run(self.target.text()), "replaying")
        return self.task

    def stop(self) -> None:
        if self.busy and self.task is not None:
            self.task.cancel()

    def _running(self, on: bool) -> None:
        self.run_button.setEnabled(not on)
        self.stop_button.setEnabled(on)
        self.target.setEnabled(not on)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(printable(text, 2000))
        self.status.setStyleSheet(f"color: {tones.tone(tones.ERROR, self)};" if error else "")

    async def _run(self, target: str) -> list[ReplayedFlow] | None:
        self._say(f"Replaying against {target.strip()}…")
        try:
            result = await self.replay.run(target, self.operation_id, on_flow=self._flow_done)
        except asyncio.CancelledError:
            if not self.closed:  # closing the window cancels too, and then there is nothing left to say it on
                self._say("Stopped: the flows replayed so far are listed (and kept in the trace).", error=True)
                self._running(False)
            return None
        except (ValueError, OSError, ConnectionError, TimeoutError, RuntimeError) as exc:
            self._say(f"Cannot replay: {type(exc).__name__ + ': ' if not str(exc) else ''}{exc}", error=True)
            self._running(False)
            return None
        self.outcome = result
        self._running(False)
        self.summary.setText(summary_of(result))
        self._say(f"Replayed against {target.strip()}: {summary_of(result)}. Pick a flow to see its rounds and "
                  "the recorded flow beside its replay.")
        first = next((i for i, flow in enumerate(result) if flow.report.differs), 0)
        item = self.flows.topLevelItem(first)
        if item is not None:
            self.flows.setCurrentItem(item)
        return result

    def _flow_done(self, flow: ReplayedFlow) -> None:
        report = flow.report
        item = QTreeWidgetItem([DIFFERS if report.differs else "", printable(report.label, 200),
                                report.outcome, report.recorded_outcome])
        item.setToolTip(1, f"recorded {flow.recorded_id}, replayed {flow.replayed_id}")
        self.flows.addTopLevelItem(item)
        self.replayed.append(flow)
        self.summary.setText(f"{summary_of(self.replayed)} so far")

    # --- showing --------------------------------------------------------------------------------

    def _show_flow(self) -> None:
        current = self.flows.currentItem()
        index = self.flows.indexOfTopLevelItem(current) if current is not None else -1
        self.rounds.clear()
        if not 0 <= index < len(self.replayed):
            self._set_compare(None)
            return
        flow = self.replayed[index]
        for line in self.round_lines(flow.report):
            self.rounds.addTopLevelItem(line)
        from .flow_compare_view import FlowCompareView

        view = FlowCompareView(self.window_.studio.store, flow.recorded_id, flow.replayed_id, self.compare_box)
        view.setWindowFlags(Qt.WindowType.Widget)
        self._set_compare(view)

    def round_lines(self, report: FlowReport) -> list[QTreeWidgetItem]:
        items = [self._round_item(r) for r in report.rounds]
        for difference in report.differences:
            item = QTreeWidgetItem([DIFFERS, "flow", "", "", printable(difference, 1000)])
            item.setToolTip(4, item.text(4))
            items.append(item)
        return items

    def _round_item(self, r: RoundReport) -> QTreeWidgetItem:
        item = QTreeWidgetItem([DIFFERS if r.differences else "", str(r.number),
                                _side(r.recorded_kind, r.recorded_asked, r.recorded_state, r.recorded_ms),
                                _side(r.kind, r.asked, r.state, r.ms),
                                printable("; ".join(r.differences), 2000) if r.differences else "same"])
        for column in range(2, 5):
            item.setToolTip(column, item.text(column))
        return item

    def _set_compare(self, view: "FlowCompareView | None") -> None:
        if self.compare is not None:
            self.compare_layout.removeWidget(self.compare)
            self.compare.deleteLater()
        self.compare = view
        if view is not None:
            self.compare_layout.addWidget(view)
            view.show()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closed = True
        self.stop()
        super().closeEvent(event)
