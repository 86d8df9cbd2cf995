"""The explorer keeps the demo readable: the conformance suite's fixtures, as their server flags them,
sit in a folded group of their own, dimmed; nothing is judged by its name."""

from typing import Any

from PySide6.QtCore import Qt

from mrtr_studio.engine.registry import FIXTURE_META
from mrtr_studio.studio.controller import Catalog
from mrtr_studio.ui.main_window import MainWindow
from mrtr_studio.ui.server_explorer import FIXTURES_GROUP, Target, is_fixture
from tests.ui.test_main_window import arun, settings, window  # noqa: F401  (pytest fixtures)

DIM = "#888888"


def groups(win: MainWindow) -> dict[str, Any]:
    tree = win.explorer.tree
    return {tree.topLevelItem(i).text(0).split(" (")[0]: tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}


def test_fixtures_are_in_their_own_folded_group_and_dimmed(window: MainWindow, arun: Any) -> None:  # noqa: F811
    arun(window.skills.refresh())  # the Skills group (ui/skill_view.py) joins after the listings
    top = groups(window)
    assert list(top) == ["Tools", "Prompts", "Resources", "Resource templates", "Skills", FIXTURES_GROUP]
    holder = top[FIXTURES_GROUP]
    assert not holder.isExpanded()  # folded: the demo's ten tools are what the list shows
    listed: dict[str, bool] = {}
    for item in window.explorer.items():
        target = item.data(0, Qt.ItemDataRole.UserRole)
        inside = item.parent() is not None and item.parent().parent() is holder
        assert inside == is_fixture(target), target.name
        assert (item.foreground(0).color().name() == DIM) == inside, target.name
        listed[target.name] = inside
    for fixture in ("test_simple_text", "json_schema_2020_12_tool", "test_prompt_with_arguments",
                    "test://static-text", "test://template/{id}/data", "greet", "slow_compute", "multi_input"):
        assert listed[fixture], fixture
    for demo in ("delete_file", "long_report", "code_review", "config://secrets", "notes://{topic}"):
        assert not listed[demo], demo
    assert top["Tools"].text(0) == "Tools (10)" and top["Tools"].childCount() == 10
    assert window.explorer.select("test_simple_text", "tool") and holder.isExpanded()  # picked by name: unfolded


def test_a_fixture_is_what_the_server_flags_not_a_name_prefix(window: MainWindow) -> None:  # noqa: F811
    flagged = {"name": "plain_name", "inputSchema": {"type": "object"}, "_meta": {FIXTURE_META: True}}
    named = {"name": "test_lookalike", "inputSchema": {"type": "object"}}
    window.explorer.show_catalog(Catalog(server="elsewhere", era="modern", tools=[flagged, named]))
    top = groups(window)
    assert [top["Tools"].child(i).text(0) for i in range(top["Tools"].childCount())] == ["test_lookalike"]
    assert top[FIXTURES_GROUP].child(0).child(0).text(0) == "plain_name"
    assert not is_fixture(Target("tool", "tools/call", "x", raw={"_meta": {FIXTURE_META: "yes"}}))
