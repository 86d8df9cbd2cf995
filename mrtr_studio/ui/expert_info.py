"""Expert info: every lint finding of the trace, grouped by severity then rule, with counts, in the
manner of Wireshark's panel of the same name; a click on a finding selects its message everywhere.

A bottom tab next to Problems (Problems is what the studio met; this is what the linter says about
the traffic), and its counts in the status bar. Rebuilt from the store on a coalescing timer, so a
file of 100,000 messages costs one pass, not one per message.
"""

from collections import Counter
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ..trace import StoreEvent, TraceStore
from ..trace.model import TraceMessage
from .selection import Selection
from .store_bridge import StoreBridge, message_by_seq
from .trace_panel import TracePanel

SEVERITIES = ("error", "warning", "info")
_TITLES = {"error": "Errors", "warning": "Warnings", "info": "Notes"}
SeqRole = Qt.ItemDataRole.UserRole + 1
#: More findings than this under one rule are summed up, not listed (the counts stay exact).
MAX_LISTED = 500


@dataclass(frozen=True)
class Tally:
    """How many findings of each severity (for the status bar and the tab's summary)."""

    counts: dict[str, int]

    def text(self) -> str:
        if not any(self.counts.values()):
            return "Expert info: no findings"
        return "Expert info: " + " · ".join(f"{self.counts.get(s, 0)} {_TITLES[s].lower()}" for s in SEVERITIES)


def group_findings(messages: list[TraceMessage]) -> dict[str, dict[str, list[tuple[TraceMessage, str]]]]:
    """severity -> rule -> [(message, the finding's text)], severities in SEVERITIES order."""
    grouped: dict[str, dict[str, list[tuple[TraceMessage, str]]]] = {s: {} for s in SEVERITIES}
    for entry in messages:
        for finding in entry.findings:
            grouped.setdefault(finding.severity, {}).setdefault(finding.rule, []).append((entry, finding.message))
    return grouped


class ExpertInfoPanel(TracePanel):
    def __init__(self, store: TraceStore, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(store, selection, parent)
        self.summary = QLabel("No findings.")
        self.summary.setObjectName("expertSummary")
        self.status_label = QLabel("")  # the status bar's copy of the counts
        self.status_label.setObjectName("expertCounts")
        self.tree = QTreeWidget()
        self.tree.setObjectName("expertTree")
        self.tree.setHeaderLabels(["Finding", "Count", "Message"])
        self.tree.setColumnWidth(0, 420)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.summary)
        box.addWidget(self.tree)
        self.tally = Tally({})
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        self._bridge = StoreBridge(store, self)
        self._bridge.storeEvent.connect(self._on_event)
        self.refresh()

    def _on_event(self, event: StoreEvent) -> None:
        if event.kind in ("message_added", "message_updated", "cleared", "loaded"):
            self._timer.start()

    def refresh(self) -> None:
        grouped = group_findings(self.store.messages)
        counts: Counter[str] = Counter()
        self.tree.clear()
        for severity, rules in grouped.items():
            total = sum(len(found) for found in rules.values())
            counts[severity] = total
            if not total:
                continue
            top = QTreeWidgetItem([_TITLES.get(severity, severity), str(total), ""])
            self.tree.addTopLevelItem(top)
            for rule, found in sorted(rules.items(), key=lambda item: (-len(item[1]), item[0])):
                group = QTreeWidgetItem([rule, str(len(found)), found[0][1]])
                top.addChild(group)
                for entry, text in found[:MAX_LISTED]:
                    leaf = QTreeWidgetItem([f"#{entry.seq} round {entry.round} {entry.method_name or entry.kind}",
                                            "", text])
                    leaf.setData(0, SeqRole, entry.seq)
                    leaf.setToolTip(2, text)
                    group.addChild(leaf)
                if len(found) > MAX_LISTED:
                    group.addChild(QTreeWidgetItem([f"… {len(found) - MAX_LISTED} more", "", ""]))
            top.setExpanded(True)
        self.tally = Tally(dict(counts))
        self.summary.setText(self.tally.text())
        self.status_label.setText(self.tally.text())

    def leaves(self) -> list[QTreeWidgetItem]:
        """Every finding's row (for tests and keyboard walkers)."""
        out: list[QTreeWidgetItem] = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount()):
                group = top.child(j)
                children = (group.child(k) for k in range(group.childCount()))
                out += [leaf for leaf in children if leaf is not None and leaf.data(0, SeqRole) is not None]
        return out

    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        seq = item.data(0, SeqRole)
        if isinstance(seq, int):
            entry = message_by_seq(self.store, seq)
            if entry is not None:
                self.selection.select(entry)
