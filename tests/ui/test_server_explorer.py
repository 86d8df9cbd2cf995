"""The server explorer in a narrow column, and what a failed connect leaves behind."""

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from mrtr_studio.studio.connection import default_transport_factory
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import EMBEDDED, http_entry
from mrtr_studio.transport.base import TransportError
from mrtr_studio.ui.async_bridge import install_event_loop
from mrtr_studio.ui.server_explorer import ServerExplorer, schema_text


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = install_event_loop(qapp)
    yield event_loop
    event_loop.close()
    asyncio.set_event_loop(None)


async def refusing_http(entry: Any, identity: Any, studio: Studio) -> Any:
    if entry.kind == "http":
        raise TransportError(f"cannot connect to {entry.url}: All connection attempts failed")
    return await default_transport_factory(entry, identity, studio)


def test_the_address_is_usable_in_a_300_px_column(qtbot: Any) -> None:
    explorer = ServerExplorer(Studio())
    qtbot.addWidget(explorer)
    explorer.resize(300, 500)
    with qtbot.waitExposed(explorer):
        explorer.show()
    explorer.kind_box.setCurrentIndex(explorer.kind_box.findData("http"))
    assert explorer.address.width() >= 250
    assert explorer.address.fontMetrics().horizontalAdvance("http://127.0.0.1:8765/mcp") < explorer.address.width()
    for widget in (explorer.kind_box, explorer.connect_button, explorer.import_button):
        assert explorer.rect().contains(widget.geometry()), widget


def test_a_failed_connect_clears_the_previous_servers_tools(qtbot: Any, loop: asyncio.AbstractEventLoop) -> None:
    studio = Studio(transport_factory=refusing_http)
    explorer = ServerExplorer(studio)
    qtbot.addWidget(explorer)
    targets: list[Any] = []
    explorer.targetChanged.connect(targets.append)
    loop.run_until_complete(asyncio.wait_for(studio.connect(EMBEDDED), 20))
    assert len(explorer.items()) > 5 and explorer.select("delete_file")
    loop.run_until_complete(asyncio.wait_for(studio.connect(http_entry("http://127.0.0.1:9/mcp")), 20))
    assert explorer.items() == [] and explorer.tree.topLevelItemCount() == 0
    assert explorer.current_target() is None and targets[-1] is None
    assert explorer.schema_view.toPlainText() == ""
    assert explorer.status.text().count("All connection attempts failed") == 1
    assert explorer.status.text().count("cannot connect to") == 1
    loop.run_until_complete(studio.close())


def test_a_listing_entry_too_deep_or_too_long_to_print_is_said() -> None:
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"x": deep}
    assert "nested too deeply" in schema_text({"inputSchema": deep})
    long_text = schema_text({"description": "d" * 300_000})
    assert len(long_text) < 210_000 and long_text.endswith("more characters)")


def test_the_left_column_panels_fit_a_300_px_column(qtbot: Any) -> None:
    from mrtr_studio.ui.arguments_panel import ArgumentsPanel
    from mrtr_studio.ui.client_panel import ClientPanel

    studio = Studio()
    for panel in (ServerExplorer(studio), ClientPanel(studio), ArgumentsPanel()):
        qtbot.addWidget(panel)
        assert panel.minimumSizeHint().width() <= 280, type(panel).__name__  # room for margins and a scrollbar
    client = ClientPanel(studio)
    qtbot.addWidget(client)
    assert client.era_box.toolTip() == client.era_box.currentText()  # the whole name when the box elides it


def test_names_and_descriptions_share_a_narrow_tree(qtbot: Any, loop: asyncio.AbstractEventLoop) -> None:
    studio = Studio()
    explorer = ServerExplorer(studio)
    qtbot.addWidget(explorer)
    explorer.resize(266, 500)
    with qtbot.waitExposed(explorer):
        explorer.show()
    loop.run_until_complete(asyncio.wait_for(studio.connect(EMBEDDED), 20))
    qtbot.wait(10)
    tree, header = explorer.tree, explorer.tree.header()
    assert tree.horizontalScrollBar().maximum() == 0  # no sideways scrolling to read a description
    assert header.sectionSize(1) >= 48 and header.length() <= tree.viewport().width()
    fixture = next(i for i in explorer.items() if i.text(0).startswith("test_"))
    assert fixture.toolTip(0).startswith(fixture.text(0) + "\n")  # the whole name where the column elides it
    loop.run_until_complete(studio.close())
