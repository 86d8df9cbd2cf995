"""The Proxy panel, offscreen on a qasync loop: start a proxy in front of a served engine, see a client's
flow recorded through it, listen for wrapped sessions, stop the proxy; a bad URL is said inline."""

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.studio.controller import Studio
from mrtr_studio.transport.http_client import HttpClientTransport
from mrtr_studio.ui.proxy_panel import ProxyPanel
from tests.ui.test_main_window import Runner, arun  # noqa: F401  (the qasync loop fixture)


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    while not predicate():
        await asyncio.wait_for(asyncio.sleep(0.01), timeout)


def test_the_panel_starts_a_proxy_that_records_and_stops_it(qtbot: Any, arun: Runner, tmp_path: Path) -> None:  # noqa: F811
    upstream, studio = Studio(), Studio()
    studio.watching.feed_home = tmp_path / "home"
    served = arun(upstream.start_serving())
    panel = ProxyPanel(studio)
    qtbot.addWidget(panel)
    panel.show()
    try:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        assert "Enter your server's MCP URL" in panel.problem.text()
        panel.upstream.setText(served)
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        arun(until(lambda: panel.proxies.count() == 1))
        url = panel.proxies.item(0).data(Qt.ItemDataRole.UserRole)
        assert panel.problem.text() == "" and served in panel.proxies.item(0).text()

        async def outside() -> Any:
            client = ClientSession(HttpClientTransport(url), ClientSettings(era="modern"), auto_respond)
            try:
                return await client.call_tool("delete_file", {"path": "/a"})
            finally:
                await client.close()

        assert arun(outside()).drive.outcome == "complete"
        (op,) = studio.store.operations
        assert (op.rounds, op.outcome, op.label) == (2, "complete", "proxied client")
        panel.listen.setChecked(True)
        arun(until(lambda: "Listening at" in panel.feed_path.text()))
        assert (tmp_path / "home" / "feed.sock").exists()
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
        arun(until(lambda: panel.proxies.count() == 0))
        assert studio.watching.proxies == {}
        panel.upstream.setText("ftp://nowhere")
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        arun(until(lambda: "did not start" in panel.problem.text()))
    finally:
        arun(studio.close())
        arun(upstream.close())
    assert not (tmp_path / "home" / "feed.sock").exists()


def test_intercept_holds_a_request_which_is_edited_in_the_panel_and_forwarded(qtbot: Any, arun: Runner) -> None:  # noqa: F811
    upstream, studio = Studio(), Studio()
    served = arun(upstream.start_serving())
    panel = ProxyPanel(studio)
    qtbot.addWidget(panel)
    panel.show()
    try:
        panel.upstream.setText(served)
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        arun(until(lambda: panel.proxies.count() == 1))
        url = panel.proxies.item(0).data(Qt.ItemDataRole.UserRole)
        panel.intercept.setChecked(True)
        assert not panel.forward_button.isEnabled()

        async def outside() -> Any:
            transport = HttpClientTransport(url)
            try:
                return await transport.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "delete_file", "arguments": {"path": "/a"}, "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}}})
            finally:
                await transport.close()

        async def steer() -> Any:
            sending = asyncio.ensure_future(outside())
            await until(lambda: panel.forward_button.isEnabled())
            assert "client->server" in panel.held_header.text()
            panel.held_editor.set_text(panel.held_editor.text().replace('"/a"', '"/edited'))  # broken JSON
            await asyncio.sleep(0.05)
            assert not panel.forward_button.isEnabled() and "Invalid JSON" in panel.held_editor.error.text()
            panel.held_editor.set_text(panel.held_editor.text().replace('"/edited', '"/edited"'))
            await until(lambda: panel.forward_button.isEnabled())
            qtbot.mouseClick(panel.forward_button, Qt.MouseButton.LeftButton)
            await until(lambda: "server->client" in panel.held_header.text())
            qtbot.mouseClick(panel.drop_button, Qt.MouseButton.LeftButton)  # the answer never arrives...
            panel.intercept.setChecked(False)
            sending.cancel()  # ...so the client gives up
            with contextlib.suppress(BaseException):
                await sending

        arun(steer())
    finally:
        arun(studio.close())
        arun(upstream.close())
    assert [op.arguments for op in upstream.store.operations if op.label] == [{"path": "/edited"}]
    (op,) = studio.store.operations
    assert op.arguments == {"path": "/edited"}
