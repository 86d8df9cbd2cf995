"""The server explorer: where to connect, and the tools, prompts, resources and templates found there.

Laid out for a narrow column (about 300 px): the connection kind and Connect share a row, the
address gets a row of its own at full width. A failed connect empties the contents (the previous
server's tools must not look runnable) and the reason is shown once, here.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..engine.registry import FIXTURE_META
from ..studio.controller import Catalog, Studio, StudioEvent
from ..studio.server_entries import EMBEDDED, ServerEntry, http_entry, load_mcp_servers, stdio_entry
from .async_bridge import spawn
from .builders import subscribe_while_alive
from .elided_label import ElidedLabel

KINDS = (("embedded", "Embedded engine"), ("http", "Streamable HTTP"), ("stdio", "stdio command"))
_VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)\*?\}")


@dataclass
class Target:
    """Something to run: a tool, a prompt, a resource or a resource template."""

    kind: str  # tool | prompt | resource | template
    method: str
    name: str  # tool/prompt name, resource uri, or uri template
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    description: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    def resolve(self, arguments: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """(target, arguments) for Studio.run: templates are expanded, resources take no arguments."""
        if self.kind == "template":
            return _VARIABLE.sub(lambda m: str(arguments.get(m.group(1), "")), self.name), None
        if self.kind == "resource":
            return self.name, None
        return self.name, arguments


def prompt_schema(arguments: list[dict[str, Any]]) -> dict[str, Any]:
    props = {str(a.get("name")): {"type": "string", "description": str(a.get("description") or "")}
             for a in arguments if isinstance(a, dict) and a.get("name")}
    required = [str(a["name"]) for a in arguments if isinstance(a, dict) and a.get("required") and a.get("name")]
    return {"type": "object", "properties": props, "required": required}


def template_schema(template: str) -> dict[str, Any]:
    names = _VARIABLE.findall(template)
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": names}


def targets_of(catalog: Catalog) -> dict[str, list[Target]]:
    return {
        "Tools": [Target("tool", "tools/call", t["name"], t.get("inputSchema") or {"type": "object"},
                         t.get("description", ""), t) for t in catalog.tools],
        "Prompts": [Target("prompt", "prompts/get", p["name"], prompt_schema(p.get("arguments") or []),
                           p.get("description", ""), p) for p in catalog.prompts],
        "Resources": [Target("resource", "resources/read", r["uri"], {"type": "object", "properties": {}},
                             r.get("description", ""), r) for r in catalog.resources],
        "Resource templates": [Target("template", "resources/read", t["uriTemplate"],
                                      template_schema(t["uriTemplate"]), t.get("description", ""), t)
                               for t in catalog.templates],
    }


FIXTURES_GROUP = "Conformance fixtures"


def is_fixture(target: Target) -> bool:
    """A conformance fixture: its server flagged the listing entry (`_meta`, set from the registry's
    `fixture` flag), so a fixture is known by what the server says, not guessed from its name."""
    meta = target.raw.get("_meta")
    return isinstance(meta, dict) and meta.get(FIXTURE_META) is True


NAME_SHARE = 0.65


class MiddleElided(QStyledItemDelegate):
    """Names elide in the middle ("test_input…_elicitation"): both ends tell similar names apart."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class TargetTree(QTreeWidget):
    """The server's contents; it asks for PREFERRED_ROWS rows and grows into whatever room is spare."""

    PREFERRED_ROWS = 7

    def sizeHint(self) -> QSize:
        rows = self.PREFERRED_ROWS * max(self.fontMetrics().height() + 2, 16)
        return QSize(super().sizeHint().width(), self.header().sizeHint().height() + rows + 2 * self.frameWidth())


class ServerExplorer(QWidget):
    targetChanged = Signal(object)  # Target | None
    entryChanged = Signal(object)  # ServerEntry

    def __init__(self, studio: Studio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.studio = studio
        self.imported: list[ServerEntry] = []
        self.kind_box = QComboBox()
        self.kind_box.setAccessibleName("Connection kind")
        for value, text in KINDS:
            self.kind_box.addItem(text, value)
        self.kind_box.setToolTip("Where to connect: the demo engine in this process, a Streamable HTTP URL, "
                                 "or a server started as a stdio command")
        self.address = QLineEdit()
        self.address.setAccessibleName("Server address")
        self.connect_button = QPushButton("&Connect")
        self.imported_box = QComboBox()
        self.imported_box.setAccessibleName("Imported servers")
        self.imported_box.addItem("(none)", None)
        self.imported_box.setToolTip("Servers imported from an mcpServers JSON file (none yet)")
        self.import_button = QToolButton()  # narrower than a push button: one row with Connect
        self.import_button.setText("Import…")
        self.import_button.setToolTip("Import servers from an mcpServers JSON file (also in the File menu)")
        self.status = ElidedLabel("Not connected.")  # one line always: the list below must not move
        self.status.setObjectName("connectionStatus")
        self.tree = TargetTree()
        self.tree.setHeaderLabels(["Name", "Description"])
        self.tree.setItemDelegateForColumn(0, MiddleElided(self.tree))
        self.tree.header().setMinimumSectionSize(48)
        self.tree.setIndentation(14)  # two levels deep: keep the room for the names
        self.tree.verticalScrollBar().rangeChanged.connect(lambda *_: self.fit_names())  # the viewport narrows
        self.tree.setAccessibleName("Server contents")
        self.schema_view = QPlainTextEdit()
        self.schema_view.setReadOnly(True)
        self.schema_view.setAccessibleName("Input schema")

        self.kind_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind_box.setMinimumContentsLength(7)  # "Embedded…"; the popup shows whole names
        self.imported_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.imported_box.setMinimumContentsLength(6)
        self.address.setMinimumWidth(self.address.fontMetrics().horizontalAdvance("http://127.0.0.1:8765/mcp"))
        self.address.setClearButtonEnabled(True)
        row1 = QHBoxLayout()
        row1.addWidget(self.kind_box, 1)
        row1.addWidget(self.connect_button)
        row1.addWidget(self.import_button)
        self.imported_box.setVisible(False)  # a row of its own once a file brought servers
        # The schema preview folds to its title by default: the arguments form below already shows
        # the fields, and the column's room goes to the target list, the client and the arguments.
        self.schema_toggle = QToolButton()
        self.schema_toggle.setText("Input schema (JSON)")
        self.schema_toggle.setCheckable(True)
        self.schema_toggle.setAutoRaise(True)
        self.schema_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.schema_toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.schema_toggle.toggled.connect(self.show_schema)
        self.schema_panel = QWidget()
        schema_box = QVBoxLayout(self.schema_panel)
        schema_box.setContentsMargins(0, 0, 0, 0)
        schema_box.setSpacing(0)
        schema_box.addWidget(self.schema_toggle)
        schema_box.addWidget(self.schema_view, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.tree)
        split.addWidget(self.schema_panel)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        self.show_schema(False)
        self.tree.setMinimumHeight(120)  # a handful of tools visible before any dock is resized
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addLayout(row1)
        box.addWidget(self.address)
        box.addWidget(self.imported_box)
        box.addWidget(self.status)
        box.addWidget(split, 1)

        self._kind: str | None = None  # the kind the address field was last for
        self._typed: dict[str, str] = {}  # kind -> the address it had
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.connect_button.clicked.connect(self.connect_clicked)
        self.address.returnPressed.connect(self.connect_clicked)
        self.import_button.clicked.connect(self._import_dialog)
        self.imported_box.activated.connect(self._imported_picked)
        self.tree.currentItemChanged.connect(self._current_changed)
        subscribe_while_alive(self, studio, self._on_studio)
        self._kind_changed()

    # --- connection ----------------------------------------------------------------------------

    def show_schema(self, shown: bool) -> None:
        """Unfold (or fold to its title) the selected target's listing entry."""
        self.schema_toggle.setChecked(shown)
        self.schema_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.schema_view.setVisible(shown)
        self.schema_panel.setMaximumHeight(16777215 if shown else self.schema_toggle.sizeHint().height())

    def _kind_changed(self, *_: Any) -> None:
        """Each kind keeps its own address: a stdio command field never shows the HTTP URL typed
        before, and an imported server's row hides while the embedded engine is picked."""
        kind = self.kind_box.currentData()
        previous = self._kind
        if previous is not None and previous != kind:
            self._typed[previous] = self.address.text()
            self.address.setText(self._typed.get(kind, ""))
        self._kind = kind
        self.imported_box.setVisible(bool(self.imported) and kind != "embedded")
        self.address.setEnabled(kind != "embedded")
        self.address.setVisible(kind != "embedded")  # the embedded engine has no address to show
        self.address.setPlaceholderText({"http": "http://127.0.0.1:8765/mcp", "stdio": "python -m my_server",
                                         "embedded": "(in this process)"}[kind])

    def entry(self) -> ServerEntry:
        """The connection described by the kind box and address (raises ValueError when unusable)."""
        kind = self.kind_box.currentData()
        if kind == "embedded":
            return EMBEDDED
        picked = self.imported_box.currentData()
        if isinstance(picked, ServerEntry) and picked.kind == kind and \
                self.address.text() == (picked.url if kind == "http" else picked.command_line):
            return picked  # keeps the entry's env, headers and cwd
        return http_entry(self.address.text()) if kind == "http" else stdio_entry(self.address.text())

    def show_entry(self, entry: ServerEntry) -> None:
        self.kind_box.setCurrentIndex(max(0, self.kind_box.findData(entry.kind)))
        self.address.setText(entry.url if entry.kind == "http" else entry.command_line)

    def connect_clicked(self) -> None:
        try:
            entry = self.entry()
        except ValueError as exc:
            self.status.setText(f"Cannot connect: {exc}")
            self.studio.report_error(str(exc))
            return
        self.entryChanged.emit(entry)
        spawn(self.studio.connect(entry), "connect")

    def import_file(self, path: str) -> list[ServerEntry]:
        try:
            entries = load_mcp_servers(path)
        except (OSError, ValueError) as exc:
            self.studio.report_error(f"import {path}: {exc}")
            return []
        self.imported = entries
        self.imported_box.setVisible(bool(entries))
        self.imported_box.clear()
        for entry in entries:
            text = entry.label + (f"  ({entry.problem})" if entry.problem else "")
            self.imported_box.addItem(text, entry)
        if entries:
            self._imported_picked(0)
        return entries

    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import mcpServers", "", "JSON files (*.json);;All files (*)")
        if path:
            self.import_file(path)

    def _imported_picked(self, index: int) -> None:
        entry = self.imported_box.itemData(index)
        if isinstance(entry, ServerEntry):
            self.show_entry(entry)
            # never the last connection's error under the new address
            self.status.setText(f"{entry.name}: {entry.problem}" if entry.problem
                                else f"{entry.name}: not connected yet; press Connect.")

    # --- contents ------------------------------------------------------------------------------

    def _on_studio(self, event: StudioEvent) -> None:
        if event.kind == "catalog" and event.catalog is not None:
            self.show_catalog(event.catalog)
        elif event.kind == "state" and event.state == "connecting":
            self.status.setText(f"Connecting to {self.studio.entry.label}…")
        elif event.kind == "error" and self.studio.catalog is None:
            self.clear_catalog()
            self.status.setText(event.text)
        elif event.kind == "settings" and self.studio.catalog is not None:
            self.status.setText(f"Connected: {self._server_name()} ({self.studio.catalog.era}); the next run uses "
                                f"the new client settings ({self.studio.era} era)")
        elif event.kind == "run_finished" and event.result is not None and self.studio.catalog is not None:
            self.status.setText(f"Connected: {self._server_name()} ({event.result.operation.era})")

    def _server_name(self) -> str:
        catalog = self.studio.catalog
        return str(catalog.server_info.get("name") or catalog.server) if catalog is not None else ""

    def clear_catalog(self) -> None:
        """No server: nothing listed, nothing selected (the arguments panel hears None)."""
        had_target = self.current_target() is not None
        self.tree.blockSignals(True)
        self.tree.clear()
        self.tree.blockSignals(False)
        self.schema_view.setPlainText("")
        if had_target:
            self.targetChanged.emit(None)

    def show_catalog(self, catalog: Catalog) -> None:
        previous = self.current_target()
        self.tree.clear()
        name = catalog.server_info.get("name") or catalog.server
        problems = f" — {len(catalog.problems)} problem(s), see Problems" if catalog.problems else ""
        self.status.setText(f"Connected: {name} ({catalog.era}){problems}")
        fixtures: dict[str, list[Target]] = {}
        for group, targets in targets_of(catalog).items():
            plain = [t for t in targets if not is_fixture(t)]
            fixtures[group] = [t for t in targets if is_fixture(t)]
            self._add_group(self.tree.invisibleRootItem(), group, plain, expanded=True)
        if any(fixtures.values()):  # the suite's fixtures, folded away: the list shows what people came for
            holder = QTreeWidgetItem(self.tree, [f"{FIXTURES_GROUP} ({sum(map(len, fixtures.values()))})"])
            holder.setToolTip(0, "Fixtures of the official conformance suite, flagged so by the server")
            for group, targets in fixtures.items():
                if targets:
                    self._add_group(holder, group, targets, expanded=True, dimmed=True)
            holder.setExpanded(False)
        self.fit_names()
        if previous is not None:
            self.select(previous.name, previous.kind)

    def _add_group(self, parent: QTreeWidgetItem, group: str, targets: list[Target], *, expanded: bool,
                   dimmed: bool = False) -> None:
        top = QTreeWidgetItem(parent, [f"{group} ({len(targets)})"])
        for target in targets:
            item = QTreeWidgetItem(top, [target.name, target.description])
            item.setData(0, Qt.ItemDataRole.UserRole, target)
            item.setToolTip(0, target.name)
            item.setToolTip(1, target.description[:2000])
            if dimmed:
                for column in (0, 1):
                    item.setForeground(column, QBrush(QColor("#888888")))
                item.setToolTip(0, f"{target.name}\nA fixture of the official conformance suite")
        top.setExpanded(expanded)

    def fit_names(self) -> None:
        """Names as wide as they need, within NAME_SHARE of the width (the rest elide, whole in tooltips)."""
        room = self.tree.viewport().width()
        name = max(80, min(self.tree.sizeHintForColumn(0), max(120, int(room * NAME_SHARE))))
        self.tree.setColumnWidth(0, name)
        self.tree.setColumnWidth(1, max(48, room - name))  # descriptions take the rest and elide there

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_names()

    def items(self) -> list[QTreeWidgetItem]:
        """Every target's row, the folded fixtures' too, in the tree's order."""
        found: list[QTreeWidgetItem] = []
        stack = [self.tree.topLevelItem(i) for i in reversed(range(self.tree.topLevelItemCount()))]
        while stack:
            item = stack.pop()
            if item is None:
                continue
            if isinstance(item.data(0, Qt.ItemDataRole.UserRole), Target):
                found.append(item)
            stack += [item.child(j) for j in reversed(range(item.childCount()))]
        return found

    def select(self, name: str, kind: str | None = None) -> bool:
        for item in self.items():
            target = item.data(0, Qt.ItemDataRole.UserRole)
            if target.name == name and (kind is None or target.kind == kind):
                parent = item.parent()
                while parent is not None:  # a fixture picked by name unfolds its group
                    parent.setExpanded(True)
                    parent = parent.parent()
                self.tree.setCurrentItem(item)
                return True
        return False

    def current_target(self) -> Target | None:
        item = self.tree.currentItem()
        target = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return target if isinstance(target, Target) else None

    def _current_changed(self, *_: Any) -> None:
        target = self.current_target()
        self.schema_view.setPlainText(schema_text(target.raw) if target else "")
        self.targetChanged.emit(target)


SCHEMA_TEXT_CHARS = 200_000


def schema_text(raw: dict[str, Any]) -> str:
    """A target's listing entry as indented JSON, cut at SCHEMA_TEXT_CHARS; too deep to print is said."""
    try:
        text = json.dumps(raw, indent=2, ensure_ascii=False, default=str)
    except (RecursionError, ValueError) as exc:
        return f"(this entry cannot be shown: {type(exc).__name__}, it is nested too deeply)"
    if len(text) > SCHEMA_TEXT_CHARS:
        return text[:SCHEMA_TEXT_CHARS] + f"\n… ({len(text) - SCHEMA_TEXT_CHARS} more characters)"
    return text
