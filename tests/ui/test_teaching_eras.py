"""Eras side by side: the modern-only tool completes for the modern client and is -32603 for the legacy one."""

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from mrtr_studio.studio.controller import Studio
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.teaching.eras_view import ErasView
from tests.ui.test_teaching_loop import qt_loop, run_until


@pytest.fixture
def loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    with qt_loop(qapp) as running:
        yield running


@pytest.fixture
def view(qtbot, loop) -> ErasView:
    widget = ErasView(Studio(store=TraceStore()))
    qtbot.addWidget(widget)
    widget.resize(1400, 800)
    widget.show()
    return widget


def run(qtbot, loop, view: ErasView) -> None:
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    run_until(loop, lambda: view.task is not None and view.task.done(), timeout=30, what="both eras")
    assert view.task is not None and view.task.result() is not None, view.status.text()


def test_legacy_diagram_shows_32603_as_an_error_arrow(qtbot, loop, view) -> None:
    assert view.tool.currentData() == ("tools/call", "delete_file")
    assert view.diagrams["modern"].operation_id == "" and view.diagrams["legacy"].operation_id == ""
    run(qtbot, loop, view)
    assert view.last is not None
    modern, legacy = view.diagrams["modern"], view.diagrams["legacy"]
    assert modern.operation_id == view.last.modern.operation.id
    assert legacy.operation_id == view.last.legacy.operation.id
    assert [i.arrow.kind for i in modern.arrow_items.values()] == ["request", "input_required", "request", "complete"]
    legacy_arrows = [i.arrow for i in legacy.arrow_items.values()]
    assert [a.kind for a in legacy_arrows] == ["request", "error"]
    error = legacy_arrows[-1]
    assert "-32603" in error.sublabel and "input_required needs protocol 2026-07-28" in error.sublabel
    assert error.style.colour == "#c0392b" and error.style.line == "solid"
    assert view.verdicts["modern"].text() == "✔ modern: complete in 2 rounds — File deleted"
    assert view.verdicts["legacy"].text().startswith("✖ legacy: error -32603 input_required needs")


def test_a_dual_era_tool_completes_in_both_with_different_shapes(qtbot, loop, view) -> None:
    view.pick("tools/call", "count_roots", {})
    run(qtbot, loop, view)
    kinds = {era: [i.arrow.kind for i in view.diagrams[era].arrow_items.values()] for era in ("modern", "legacy")}
    assert kinds["modern"] == ["request", "input_required", "request", "complete"]
    assert kinds["legacy"] == ["request", "server_request", "client_response", "complete"]
    assert all(view.verdicts[era].text().startswith("✔") for era in ("modern", "legacy"))
    # A second run re-pins both diagrams to the new operations.
    first = view.last
    run(qtbot, loop, view)
    assert view.last is not first and view.last is not None
    assert view.diagrams["legacy"].operation_id == view.last.legacy.operation.id
