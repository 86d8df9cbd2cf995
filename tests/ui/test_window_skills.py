"""Skills in the explorer, against the embedded demo engine: the Skills group lists what skills/list
gives without reading a file; double-clicking one verifies SKILL.md check by check; a supporting file
is read only when asked; a listing that lies about a field is shown rejected, its text withheld."""

import dataclasses
from typing import Any

from PySide6.QtCore import Qt

from mrtr_studio.client.session import ClientSession
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.skill_view import GROUP, SkillRole

from .test_main_window import Runner, arun, settings, until, window  # noqa: F401 - fixtures


def skills_group(win: MainWindow) -> Any:
    tree = win.explorer.tree
    return next((tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).data(0, SkillRole) == GROUP), None)


class Spy:
    """The studio session's housekeeping requests (listings and reads are not operations of the trace)."""

    def __init__(self, monkeypatch: Any) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        original = ClientSession.request

        async def request(session: ClientSession, method: str, params: dict[str, Any] | None = None) -> Any:
            self.sent.append((method, dict(params or {})))
            return await original(session, method, params)

        monkeypatch.setattr(ClientSession, "request", request)

    def reads(self) -> list[str]:
        return [params["uri"] for method, params in self.sent if method == "resources/read"]


def test_skills_listed_then_verified_check_by_check(qtbot: Any, window: MainWindow, arun: Runner,  # noqa: F811
                                                    monkeypatch: Any) -> None:
    spy = Spy(monkeypatch)

    async def body() -> None:
        await until(lambda: skills_group(window) is not None)
        await window.skills.refresh()
        assert [method for method, _ in spy.sent] == ["skills/list"]
        group = skills_group(window)
        names = [group.child(i).text(0) for i in range(group.childCount())]
        assert group.text(0) == "Skills (2)" and sorted(names) == ["lesson-guide", "mrtr-debugging"]
        assert spy.reads() == []  # listing reads nothing
        item = next(group.child(i) for i in range(group.childCount()) if group.child(i).text(0) == "mrtr-debugging")
        tree = window.explorer.tree
        tree.scrollToItem(item)
        where = tree.visualItemRect(item).center()
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=where)  # a double-click's first press
        qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=where)
        await until(lambda: bool(window.skills.views) and window.skills.views[-1].report is not None)
        assert len(window.skills.views) == 1
        view = window.skills.views[-1]
        rows = view.rows()
        checks = {name: result for name, result, _e, _f in rows["SKILL.md"]}
        assert checks["size"] == checks["digest"] == checks["frontmatter.name"] == "✓"
        assert "frontmatter.description" in checks and "frontmatter.license" in checks
        assert "Debugging an MRTR exchange" in view.text.toPlainText()
        skill = view.skill
        assert spy.reads() == [skill.uri]  # SKILL.md only
        supporting = next(f.uri for f in skill.files if f.uri.endswith("ROUNDS.md"))
        assert view.rows()[supporting] == [] and not view.read_button.isEnabled()
        top = next(view.checks.topLevelItem(i) for i in range(view.checks.topLevelItemCount())
                   if view.checks.topLevelItem(i).text(0) == supporting)
        assert top.text(1) == "not read"
        view.checks.setCurrentItem(top)
        qtbot.mouseClick(view.read_button, Qt.MouseButton.LeftButton)
        await until(lambda: supporting in view.read_reports)
        assert {name: result for name, result, _e, _f in view.rows()[supporting]} == {"size": "✓", "digest": "✓"}
        assert spy.reads() == [skill.uri, supporting]

        liar = dataclasses.replace(skill, frontmatter={**skill.frontmatter, "license": "Proprietary"})
        lied = window.skills.open(liar)
        await until(lambda: lied.report is not None)
        found = {name: (result, expected, got) for name, result, expected, got in lied.rows()["SKILL.md"]}
        assert found["frontmatter.license"] == ("✗", "'Proprietary'", "'MIT'")
        assert found["digest"][0] == "✓"  # every check run, not only up to the first failure
        assert "REJECTED" in lied.summary.text() and "Debugging" not in lied.text.toPlainText()

    arun(body())
