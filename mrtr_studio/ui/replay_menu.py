"""Serve this recording: a context-menu entry on an operation of the operations list that starts a
replay server for it on 127.0.0.1 (studio/replay_serving.py), its URL shown and copyable from the
Serve menu, where each served recording is stopped too.

Installed from outside the operations list (its context-menu policy), like Copy as on the log.
"""

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from . import collections_panel
from .async_bridge import spawn

if TYPE_CHECKING:  # the replay server loads when a recording is first served
    from ..replay.server import StateMode
    from .main_window import MainWindow

SERVE_LABEL = "Serve this &recording on 127.0.0.1"


def install(window: "MainWindow") -> None:
    table = window.operations.table
    table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def requested(pos: QPoint) -> None:
        index = table.indexAt(pos)
        if not index.isValid():
            return
        operation_id = window.operations.model.row(index.row()).id
        menu = QMenu(table)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        served = window.studio.replays.served.get(operation_id)
        action = menu.addAction(SERVE_LABEL if served is None else f"Copy the replay URL {served.url}")
        action.setObjectName("serveRecording")
        action.triggered.connect(lambda _=False: serve_recording(window, operation_id))
        if served is None:  # states signed afresh: valid now and bound to the replaying client's principal
            resigned = menu.addAction("Serve this recording, requestStates &re-signed")
            resigned.setObjectName("serveRecordingResigned")
            resigned.triggered.connect(lambda _=False: serve_recording(window, operation_id, "resign"))
        collections_panel.add_to_menu(window, menu, operation_id)
        add_replay_against(window, menu, operation_id)
        window.operations.last_menu = menu
        menu.popup(table.viewport().mapToGlobal(pos))

    table.customContextMenuRequested.connect(requested)
    recordings = window.serve_menu.addMenu("Served &recordings")
    recordings.setObjectName("servedRecordings")
    recordings.aboutToShow.connect(lambda: fill_serve_menu(window, recordings))
    window.served_recordings_menu = recordings
    add_replay_against(window, window.serve_menu, None)
    fill_serve_menu(window, recordings)


def add_replay_against(window: "MainWindow", menu: QMenu, operation_id: str | None) -> None:
    """"Replay against…" for one operation (its context menu) or for the whole trace (the Serve menu); the
    dialog (and the replay it drives) is imported when first opened, not with the window."""
    text = "Replay this operation &against…" if operation_id else "Replay the whole trace &against…"
    action = menu.addAction(text)
    action.setObjectName("replayAgainst" if operation_id else "replayTraceAgainst")

    def open_dialog() -> None:
        from .replay_against_view import open_replay

        open_replay(window, operation_id)

    action.triggered.connect(lambda _=False: open_dialog())


def serve_recording(window: "MainWindow", operation_id: str, mode: "StateMode" = "verbatim") -> None:
    spawn(_start(window, operation_id, mode), "serving the recording")


async def _start(window: "MainWindow", operation_id: str, mode: "StateMode") -> None:
    try:
        served = await window.studio.replays.start(operation_id, mode)
    except (ValueError, OSError) as exc:
        window.show_error(f"Cannot serve this recording: {exc}")
        return
    QGuiApplication.clipboard().setText(served.url)
    window.show_info(f"Replaying {served.label} at {served.url} (copied; stop it from Serve > Served recordings)")
    fill_serve_menu(window, window.served_recordings_menu)


def fill_serve_menu(window: "MainWindow", menu: QMenu) -> None:
    """Per served recording: copy its URL, stop it; nothing served is said so."""
    menu.clear()
    served = list(window.studio.replays.served.values())
    if not served:
        menu.addAction("(no recording is being served: right-click an operation)").setEnabled(False)
        return
    for recording in served:
        copy = menu.addAction(f"Copy {recording.url} ({recording.label})")
        copy.setObjectName(f"copyReplay_{recording.operation_id}")
        copy.triggered.connect(lambda _=False, url=recording.url: copy_url(window, url))
        stop = menu.addAction(f"Stop replaying {recording.label}")
        stop.setObjectName(f"stopReplay_{recording.operation_id}")
        stop.triggered.connect(lambda _=False, op=recording.operation_id: stop_recording(window, op))


def copy_url(window: "MainWindow", url: str) -> None:
    QGuiApplication.clipboard().setText(url)
    window.show_info(f"Copied {url}")


def stop_recording(window: "MainWindow", operation_id: str) -> None:
    async def stop() -> None:
        await window.studio.replays.stop(operation_id)
        fill_serve_menu(window, window.served_recordings_menu)

    spawn(stop(), "stopping the replay server")
