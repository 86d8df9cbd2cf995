"""F5 and F10 act on the subject of the tab that is showing: the lesson on the Lessons tab, the
explorer's target on the Flow tab."""

from typing import Any

from PySide6.QtCore import Qt

from mrtr_studio.ui.main_window import MainWindow
from tests.ui.test_main_window import Runner, arun, settings, until, window  # noqa: F401  (pytest fixtures)


def test_f5_on_the_lessons_tab_runs_the_lesson_not_the_tool(window: MainWindow, qtbot: Any,  # noqa: F811
                                                            arun: Runner) -> None:  # noqa: F811
    teaching = window.teaching
    teaching.show("lessons")
    lessons = teaching.lessons
    before = len(window.studio.store.operations)
    window.activateWindow()

    async def press_f5() -> None:
        qtbot.keyClick(window, Qt.Key.Key_F5)
        assert lessons.running  # the lesson started
        assert window.studio.state == "idle" and window.studio.current_operation_id is None  # the tool did not
        assert window.statusBar().currentMessage().startswith("Running the lesson")
        await until(lambda: not lessons.running, timeout=15)
        await until(lambda: "Finished" in window.statusBar().currentMessage())  # not "Running…" for 8 s more
        assert window.statusBar().currentMessage() == lessons.status.text()

    arun(press_f5())
    assert not window.errors.texts()
    lesson_ops = lessons.operations[lessons.lesson().id]
    assert lesson_ops and len(window.studio.store.operations) == before + len(lesson_ops)
    qtbot.keyClick(window, Qt.Key.Key_F10)  # F10 walks the lesson: back to its first message
    assert lessons.position == 0 and window.studio.state == "idle"
    assert window.studio.current_operation_id is None


def test_f5_on_the_flow_tab_runs_the_explorers_target(window: MainWindow, qtbot: Any,  # noqa: F811
                                                      arun: Runner) -> None:  # noqa: F811
    window.teaching.show("flow")
    assert window.explorer.select("greet", "tool")
    before = len(window.studio.store.operations)

    async def press_f5() -> None:  # inside the loop, as in the application: the run is spawned on it
        qtbot.keyClick(window, Qt.Key.Key_F5)
        await until(lambda: len(window.studio.store.operations) > before and window.studio.state == "idle")

    arun(press_f5())
    assert [op.target for op in window.studio.store.operations[before:]] == ["greet"]
