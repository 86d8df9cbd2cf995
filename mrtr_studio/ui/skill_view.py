"""Skills in the server explorer (SEP-2640): a "Skills" group listing what `skills/list` gives over the
studio's client session, and a window per skill showing its verification check by check.

Listing reads no file. Opening a skill reads SKILL.md and runs every check (client/skill_checks.py:
size, digest, the frontmatter field by field against the listing), each row with what was expected and
what was found; SKILL.md's text is shown only when every check passed. Supporting files are listed
unread and read (and verified) only when the person asks for one: never ahead of need. Everything a
server sent goes into plain-text widgets only.
"""

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..client.skill_checks import FileReport, SkillReport, inspect_file, inspect_skill
from ..client.skills import Skill, SkillRejected, SkillsClient
from . import tones
from .async_bridge import spawn
from .server_explorer import FIXTURES_GROUP

if TYPE_CHECKING:
    from ..studio.controller import Studio, StudioEvent
    from .server_explorer import ServerExplorer

SkillRole = Qt.ItemDataRole.UserRole + 2
FileRole = Qt.ItemDataRole.UserRole + 3
GROUP = "Skills"


class SkillView(QWidget):
    """One skill's verification: SKILL.md's checks, then its files, each read only on request."""

    def __init__(self, studio: "Studio", skill: Skill, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.studio = studio
        self.skill = skill
        self.report: SkillReport | None = None
        self.read_reports: dict[str, FileReport] = {}
        self.setWindowTitle(f"Skill: {skill.name}")
        self.setObjectName("skillView")
        self.summary = QLabel("Reading SKILL.md…")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.checks = QTreeWidget()
        self.checks.setObjectName("skillChecks")
        self.checks.setHeaderLabels(["Check", "Result", "Expected (the listing)", "Found (the file)"])
        self.checks.setColumnWidth(0, 240)
        self.read_button = QPushButton("Read and verify the selected file")
        self.read_button.setEnabled(False)
        self.read_button.clicked.connect(self.read_selected)
        self.checks.currentItemChanged.connect(lambda *_: self._update_button())
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setObjectName("skillText")
        box = QVBoxLayout(self)
        for widget in (self.summary, self.checks, self.read_button, self.text):
            box.addWidget(widget)
        self.resize(820, 560)

    async def verify(self) -> SkillReport:
        """SKILL.md through the studio's session, every check shown; its other files stay unread."""
        session = await self.studio.connection.client()
        self.report = await inspect_skill(session, self.skill)
        self._show()
        return self.report

    async def verify_file(self, uri: str) -> FileReport:
        """One supporting file, read and checked now that it is asked for (SKILL.md is not read again)."""
        session = await self.studio.connection.client()
        self.read_reports[uri] = report = await inspect_file(session, self.skill, uri)
        self._show()
        return report

    def _show(self) -> None:
        report = self.report
        if report is None:
            return
        self.checks.clear()
        self._file_item("SKILL.md", report.manifest, expanded=True)
        for entry in self.skill.files:
            if entry.uri == self.skill.uri:
                continue
            done = self.read_reports.get(entry.uri)
            if done is None:
                item = QTreeWidgetItem(self.checks, [entry.uri, "not read", f"{entry.size} bytes, {entry.digest}", ""])
                item.setData(0, FileRole, entry.uri)
                item.setToolTip(0, "Read only when asked: select it and press Read and verify")
            else:
                self._file_item(entry.uri, done, expanded=True)
        manifest = report.manifest
        if manifest.ok and manifest.data is not None:
            self.text.setPlainText(manifest.data.decode("utf-8", "replace"))
            self.summary.setText(f"{self.skill.name}: SKILL.md verified ({len(manifest.checks)} checks passed); "
                                 f"{len(self.skill.files) - 1} supporting file(s), read only when asked.")
        else:
            failed = [c.name for c in manifest.checks if not c.ok]
            why = manifest.problem or "failed: " + ", ".join(failed)
            self.text.setPlainText("(not shown: SKILL.md did not pass verification, so its content is not used)")
            self.summary.setText(f"{self.skill.name}: REJECTED — {why}")
        self._update_button()

    def _file_item(self, label: str, report: FileReport, expanded: bool) -> QTreeWidgetItem:
        top = QTreeWidgetItem(self.checks, [label, "✓ verified" if report.ok else "✗ rejected", "", report.problem])
        top.setForeground(1, QBrush(QColor(tones.tone(tones.PASS if report.ok else tones.ERROR, self))))
        for check in report.checks:
            row = QTreeWidgetItem(top, [check.name, "✓" if check.ok else "✗", check.expected, check.found])
            row.setForeground(1, QBrush(QColor(tones.tone(tones.PASS if check.ok else tones.ERROR, self))))
            for column in (2, 3):
                row.setToolTip(column, row.text(column)[:2000])
        top.setExpanded(expanded)
        return top

    def rows(self) -> dict[str, list[tuple[str, str, str, str]]]:
        """Each file's checks as (name, result, expected, found) (for tests and copying)."""
        out: dict[str, list[tuple[str, str, str, str]]] = {}
        for i in range(self.checks.topLevelItemCount()):
            top = self.checks.topLevelItem(i)
            out[top.text(0)] = [tuple(top.child(j).text(c) for c in range(4))  # type: ignore[misc]
                                for j in range(top.childCount())]
        return out

    def _update_button(self) -> None:
        item = self.checks.currentItem()
        self.read_button.setEnabled(item is not None and isinstance(item.data(0, FileRole), str))

    def read_selected(self) -> None:
        item = self.checks.currentItem()
        uri = item.data(0, FileRole) if item is not None else None
        if isinstance(uri, str):
            self.read_button.setEnabled(False)
            spawn(self.verify_file(uri), f"reading {uri}")


class SkillsInExplorer:
    """The explorer's Skills group, refilled after every catalog (connect, reconnect)."""

    def __init__(self, explorer: "ServerExplorer", studio: "Studio") -> None:
        self.explorer = explorer
        self.studio = studio
        self.skills: list[Skill] = []
        self.views: list[SkillView] = []
        self.problem = ""
        # Held weakly, so a closed window's studio is freed by reference counting (no cycle through us)
        me = weakref.ref(self)
        unsubscribe = studio.subscribe(lambda event: (lambda found: found._on_studio(event) if found else None)(me()))
        explorer.destroyed.connect(lambda *_: unsubscribe())
        explorer.tree.itemActivated.connect(self._activated)  # a double-click or Enter (not both: one view)

    def _on_studio(self, event: "StudioEvent") -> None:
        if event.kind == "catalog":
            spawn(self.refresh(), "listing skills")

    async def refresh(self) -> list[Skill]:
        try:
            session = await self.studio.connection.client()
            self.skills, self.problem = await SkillsClient(session).list(), ""
        except (SkillRejected, RuntimeError, ConnectionError, OSError) as exc:
            self.skills, self.problem = [], str(exc)
        self._fill()
        return self.skills

    def _fill(self) -> None:
        tree = self.explorer.tree
        for i in reversed(range(tree.topLevelItemCount())):
            if tree.topLevelItem(i).data(0, SkillRole) == GROUP:
                tree.takeTopLevelItem(i)
        if not self.skills and "-32601" in self.problem:
            return  # the server has no skills extension: no empty group to puzzle over
        top = QTreeWidgetItem([f"{GROUP} ({len(self.skills)})", self.problem])
        fixtures = [i for i in range(tree.topLevelItemCount())
                    if tree.topLevelItem(i).text(0).startswith(FIXTURES_GROUP)]
        tree.insertTopLevelItem(fixtures[0] if fixtures else tree.topLevelItemCount(), top)  # before the fixtures
        top.setData(0, SkillRole, GROUP)
        top.setToolTip(0, "skills/list (SEP-2640): double-click a skill to verify it; nothing is read before")
        for skill in self.skills:
            description = str(skill.frontmatter.get("description") or "")
            item = QTreeWidgetItem(top, [skill.name, description])
            item.setData(0, SkillRole, skill)
            item.setToolTip(0, skill.uri)
            item.setToolTip(1, description[:2000])
        top.setExpanded(True)

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        skill = item.data(0, SkillRole)
        if isinstance(skill, Skill):
            self.open(skill)

    def open(self, skill: Skill) -> SkillView:
        view = SkillView(self.studio, skill, self.explorer)
        self.views.append(view)
        view.show()
        spawn(view.verify(), f"verifying skill {skill.name}")
        return view

