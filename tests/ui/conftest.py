"""The Qt tests collect garbage as the window does: on the GUI thread only (`ui/gui_thread_collector.py`).

Without it a test's dropped views were collected on whatever thread allocated next (the log's filter
worker), destroying QObjects there; their timers stayed registered and a later test crashed on one.
"""

from collections.abc import Iterator
from typing import Any

import pytest

from mrtr_studio.ui import gui_thread_collector


@pytest.fixture(scope="package", autouse=True)
def collect_on_the_gui_thread(qapp: Any) -> Iterator[gui_thread_collector.GuiThreadCollector]:
    collector = gui_thread_collector.install(qapp)
    yield collector
    gui_thread_collector.uninstall()


@pytest.fixture(autouse=True)
def collect_after_each_test(collect_on_the_gui_thread: gui_thread_collector.GuiThreadCollector) -> Iterator[None]:
    """What a test left for the collector is looked at on this thread, before the next test's threads run."""
    yield
    collect_on_the_gui_thread.check()
