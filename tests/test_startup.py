"""The collector paused while `mrtr-studio` starts (`mrtr_studio.startup`): off from the entry point's
first line, back on (its survivors frozen) once a command's modules are in; never left off."""

import argparse
import gc
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from mrtr_studio import startup
from mrtr_studio.cli import lazy


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does to the collector, the next test finds it on and unfrozen."""
    yield
    startup.ready()
    gc.unfreeze()
    gc.enable()


def test_pause_turns_the_collector_off_and_ready_freezes_and_turns_it_back_on(collector: None) -> None:
    gc.unfreeze()
    startup.pause()
    assert not gc.isenabled() and startup.paused()
    startup.ready()
    assert gc.isenabled() and not startup.paused()
    assert gc.get_freeze_count() > 0  # what was alive at the start is out of the generations
    startup.ready()  # twice is harmless
    assert gc.isenabled()


def test_ready_without_resuming_lifts_the_pause_and_leaves_collection_to_the_window(collector: None) -> None:
    """The window collects from a GUI-thread timer (`ui/gui_thread_collector.py`): the pause ends, the
    launch's survivors are frozen, and automatic collection stays off."""
    gc.unfreeze()
    startup.pause()
    startup.ready(resume=False)
    assert not startup.paused() and not gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_a_collector_someone_else_turned_off_stays_off(collector: None) -> None:
    gc.disable()
    startup.pause()
    assert not startup.paused()
    startup.ready()
    assert not gc.isenabled()  # not ours to turn on


def test_a_command_runs_with_the_collector_on(collector: None, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(lazy, "run_probe", lambda args: seen.append(gc.isenabled()) or 0, raising=False)
    startup.pause()
    assert lazy.run_lazily({"probe": ("lazy", "run_probe")}, argparse.Namespace(command="probe")) == 0
    assert seen == [True]


def test_the_entry_point_leaves_the_collector_on_whatever_the_command_does() -> None:
    """Through the real entry point: a command (here `state decode`, which is not dispatched lazily, and a
    usage error) ends with the collector on, checked in the same process at exit."""
    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('collector', gc.isenabled()))\n"
            "from mrtr_studio.__main__ import main\n"
            "sys.argv = ['mrtr-studio', *sys.argv[1:]]\n"
            "main()\n")
    for argv, status in ((["state", "decode", "not-a-token"], None), (["--no-such-flag"], 2)):
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        assert "collector True" in done.stdout, (argv, done.stdout, done.stderr)
        if status is not None:
            assert done.returncode == status
