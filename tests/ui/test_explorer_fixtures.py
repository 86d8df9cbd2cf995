"""The explorer keeps the demo readable: every conformance fixture comes after the demo entries, dimmed."""

from PySide6.QtCore import Qt

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import arun, settings, window  # noqa: F401  (pytest fixtures)

DIM = "#888888"


def test_fixtures_come_last_and_dimmed(window: MainWindow) -> None:  # noqa: F811
    tree = window.explorer.tree
    seen: dict[str, str] = {}
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        names = [top.child(j).text(0) for j in range(top.childCount())]
        dimmed = [top.child(j).foreground(0).color().name() == DIM for j in range(top.childCount())]
        assert dimmed == sorted(dimmed), f"{top.text(0)}: a demo entry comes after a fixture: {names}"
        seen.update({name: "dim" if dim else "plain" for name, dim in zip(names, dimmed, strict=True)})
        assert all(top.child(j).data(0, Qt.ItemDataRole.UserRole) is not None for j in range(top.childCount()))
    for fixture in ("test_simple_text", "json_schema_2020_12_tool", "test_prompt_with_arguments",
                    "test://static-text", "test://template/{id}/data", "greet", "slow_compute", "multi_input"):
        assert seen[fixture] == "dim", fixture
    for demo in ("delete_file", "long_report", "code_review", "config://secrets", "notes://{topic}"):
        assert seen[demo] == "plain", demo
