"""The explorer's connection fields say what is on screen: each kind keeps its own address (the stdio
command field never holds the HTTP URL), an import replaces the last connection's error, and the
imported servers' row hides while the embedded engine is picked."""

import json
from pathlib import Path

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, settings, window  # noqa: F401  (fixtures)


def pick_kind(win: MainWindow, kind: str) -> None:
    box = win.explorer.kind_box
    box.setCurrentIndex(box.findData(kind))


def test_each_kind_keeps_its_own_address(window: MainWindow) -> None:  # noqa: F811
    explorer = window.explorer
    pick_kind(window, "http")
    explorer.address.setText("http://127.0.0.1:9/mcp")
    pick_kind(window, "stdio")
    assert explorer.address.text() == "" and explorer.address.isVisibleTo(explorer)
    explorer.address.setText("python -m my_server")
    pick_kind(window, "http")
    assert explorer.address.text() == "http://127.0.0.1:9/mcp"
    pick_kind(window, "stdio")
    assert explorer.address.text() == "python -m my_server"
    assert explorer.entry().command_line == "python -m my_server"


def test_import_replaces_the_old_error_and_hides_under_embedded(window: MainWindow, tmp_path: Path) -> None:  # noqa: F811
    explorer = window.explorer
    pick_kind(window, "http")
    explorer.address.setText("not a url")
    explorer.connect_clicked()
    assert explorer.status.text().startswith("Cannot connect")
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"local": {"url": "http://127.0.0.1:8765/mcp"}}}))
    assert [e.name for e in explorer.import_file(str(path))] == ["local"]
    assert explorer.address.text() == "http://127.0.0.1:8765/mcp"
    assert "Cannot connect" not in explorer.status.text() and explorer.status.text().startswith("local:")
    assert explorer.imported_box.isVisibleTo(explorer)
    pick_kind(window, "embedded")
    assert not explorer.imported_box.isVisibleTo(explorer)
    pick_kind(window, "http")
    assert explorer.imported_box.isVisibleTo(explorer)
