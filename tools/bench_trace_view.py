"""How fast the window opens and the trace views take a big trace (offscreen); prints numbers, asserts nothing.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/bench_trace_view.py [--operations 2500] [--big 25000]

A two-round operation is four messages (request, input_required, retry, complete), so the default
2,500 operations make 10,000 messages; --operations 5000 gives 20,000. `--big` operations (100,000
messages by default) are loaded into the operations list and the message log, as opening such a file
does after it has been read. The launch is tools/bench_launch.py's.
"""

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication
from synthetic_trace import synthetic_trace

from mrtr_studio.trace import TraceStore
from mrtr_studio.ui import gui_thread_collector
from mrtr_studio.ui.diagram import SequenceDiagramView
from mrtr_studio.ui.log import MessageLogView
from mrtr_studio.ui.operations_view import OperationsView
from mrtr_studio.ui.selection import Selection


def _app() -> QApplication:
    """The QApplication, collecting as `mrtr-studio` does: on the GUI thread, from a timer."""
    app = QApplication.instance() or QApplication(sys.argv)
    gui_thread_collector.install(app)
    return app  # type: ignore[return-value]  # instance() is typed as QCoreApplication


def timed(label: str, action: Callable[[], Any], results: list[tuple[str, float]]) -> Any:
    start = time.perf_counter()
    value = action()
    results.append((label, time.perf_counter() - start))
    return value


def bench(operations: int) -> list[tuple[str, float]]:
    app = _app()
    results: list[tuple[str, float]] = []
    ops, messages = synthetic_trace(operations)
    store, selection = TraceStore(), Selection()
    log = MessageLogView(store, selection)
    diagram = SequenceDiagramView(store, selection)
    for widget in (log, diagram):
        widget.resize(1200, 800)
        widget.show()
    app.processEvents()

    def open_trace() -> None:
        store.load(ops, messages)
        app.processEvents()  # the log's single reset and the diagram's single rebuild happen here
        log.table.viewport().repaint()
        diagram.canvas.viewport().repaint()

    timed(f"open {len(messages)} messages (store.load + log reset + diagram + first paint)", open_trace, results)
    assert log.model.rowCount() == len(messages), log.model.rowCount()

    bar = log.table.verticalScrollBar()

    def scroll() -> int:
        steps = 0
        for value in range(0, bar.maximum() + 1, max(bar.pageStep(), 1)):
            bar.setValue(value)
            log.table.viewport().repaint()
            steps += 1
        return steps

    steps = timed("scroll the log top to bottom, page by page, repainting each page", scroll, results)
    results.append((f"  per page ({steps} pages)", results[-1][1] / max(steps, 1)))
    timed("filter the log by free text 'f1234' (10k rows)", lambda: log.text_edit.setText("f1234"), results)
    timed("clear the filter", lambda: log.text_edit.setText(""), results)

    def switch_operations() -> None:
        for op in ops[:: max(len(ops) // 100, 1)][:100]:
            selection.select_operation(op.id)
            diagram.canvas.viewport().repaint()

    timed("diagram: show 100 different operations (rebuild each)", switch_operations, results)
    results.append(("  per operation", results[-1][1] / 100))

    live = store.begin_operation("tools/call", "delete_file", {"path": "/live"}, "2026-07-28", "embedded")
    selection.select_operation(live.id)

    def live_adds() -> None:
        for i in range(200):
            store.record(live.id, 1 + i // 2, "client->server" if i % 2 == 0 else "server->client",
                         {"jsonrpc": "2.0", "id": i // 2, "method": "tools/call", "params": {"name": "x"}}
                         if i % 2 == 0 else {"jsonrpc": "2.0", "id": i // 2, "result": {"content": []}})
        app.processEvents()

    timed("live: 200 messages added one by one (log insert + diagram arrow each)", live_adds, results)
    results.append(("  per message", results[-1][1] / 200))
    for widget in (log, diagram):
        widget.close()
        widget.deleteLater()
    app.processEvents()
    return results


def bench_diagram_zoom(messages: int = 1200, steps: int = 20) -> list[tuple[str, float]]:
    """Zooming and resizing one operation of `messages` messages: time per step, and items created (none).

    Zoom is the view's transform alone; a resize moves the items to the new lane positions. Items are
    counted twice: ArrowItem constructions (patched counter) and the scene's item count.
    """
    from mrtr_studio.ui.diagram import items as diagram_items

    app = _app()
    results: list[tuple[str, float]] = []
    store, selection = TraceStore(), Selection()
    op = store.begin_operation("tools/call", "delete_file", {"path": "/big"}, "2026-07-28", "embedded")
    for i in range(messages):
        request = i % 2 == 0
        store.record(op.id, 1 + i // 2, "client->server" if request else "server->client",
                     {"jsonrpc": "2.0", "id": i // 2, "method": "tools/call", "params": {"name": "delete_file"}}
                     if request else {"jsonrpc": "2.0", "id": i // 2, "result": {
                         "resultType": "input_required", "inputRequests": {"confirm": {"method": "elicitation/create"}},
                         "requestState": "s"}})
    diagram = SequenceDiagramView(store, selection)
    diagram.resize(1200, 800)
    diagram.show()
    selection.select_operation(op.id)
    app.processEvents()
    created = [0]
    original = diagram_items.ArrowItem.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        created[0] += 1
        original(self, *args, **kwargs)

    diagram_items.ArrowItem.__init__ = counting  # type: ignore[method-assign]
    scene_items = len(diagram.scene.items())
    try:
        def zoom() -> None:
            for i in range(steps):
                (diagram.zoom_in if i % 2 == 0 else diagram.zoom_out)()
                diagram.canvas.viewport().repaint()

        timed(f"diagram of {len(diagram.arrow_items)} messages: {steps} zoom steps (transform + repaint)", zoom,
              results)
        results.append(("  per zoom step", results[-1][1] / steps))

        def resize() -> None:
            for i in range(steps):
                diagram.resize(700 + 40 * (i % 10), 800)
                app.processEvents()  # the resize, and the relayout it schedules, happen here
                diagram.canvas.viewport().repaint()

        timed(f"diagram: {steps} resizes (lanes re-spread: items move, none created)", resize, results)
        results.append(("  per resize", results[-1][1] / steps))
        timed("diagram: Fit width then Ctrl+0", lambda: (diagram.fit_width(), diagram.reset_zoom(),
                                                          app.processEvents()), results)
    finally:
        diagram_items.ArrowItem.__init__ = original  # type: ignore[method-assign]
    print(f"diagram zoom/resize: {created[0]} arrow items created, scene items {scene_items} -> "
          f"{len(diagram.scene.items())}")
    diagram.close()
    diagram.deleteLater()
    app.processEvents()
    return results


def big_trace(operations: int) -> list[tuple[str, float]]:
    """A 100,000-message trace into the operations list and the log: one reset each, then a paint."""
    app = _app()
    results: list[tuple[str, float]] = []
    ops, messages = synthetic_trace(operations)
    store, selection = TraceStore(), Selection()
    listing, log = OperationsView(store, selection), MessageLogView(store, selection)
    for widget in (listing, log):
        widget.resize(1200, 300)
        widget.show()
    app.processEvents()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def load() -> None:
        store.load(ops, messages)
        app.processEvents()
        listing.table.viewport().repaint()
        log.table.viewport().repaint()

    timed(f"{len(messages)} messages, {len(ops)} operations into the operations list + log (+ first paint)",
          load, results)
    assert listing.model.rowCount() == len(ops) and log.model.rowCount() == len(messages)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"{'':10}    peak RSS grew {grown:.0f} MB while loading (the trace objects were built before)")
    live = store.begin_operation("tools/call", "delete_file", {"path": "/live"}, "2026-07-28", "embedded")

    def live_adds() -> None:
        for i in range(200):
            store.record(live.id, 1 + i // 2, "client->server" if i % 2 == 0 else "server->client",
                         {"jsonrpc": "2.0", "id": i // 2, "method": "tools/call", "params": {"name": "x"}}
                         if i % 2 == 0 else {"jsonrpc": "2.0", "id": i // 2, "result": {"content": []}})
            app.processEvents()  # what a live message costs: its events, the views' own (coalesced) repaints
        expected = len(messages) + 200
        while log.model.rowCount() < expected:  # the log gathers live adds on a big trace
            app.processEvents()
        listing.table.viewport().repaint()
        log.table.viewport().repaint()

    timed("live: 200 messages added one by one on top of it (a turn of the event loop each, then a paint)",
          live_adds, results)
    results.append(("  per message", results[-1][1] / 200))
    for widget in (listing, log):
        widget.close()
        widget.deleteLater()
    app.processEvents()
    return results


def window_trace(operations: int) -> list[tuple[str, float]]:
    """The same trace into the whole window: every view that listens to the store gets every event."""
    from PySide6.QtCore import QRect, QSettings

    from mrtr_studio.studio.controller import Studio
    from mrtr_studio.ui.main_window import MainWindow

    app = _app()
    results: list[tuple[str, float]] = []
    ops, messages = synthetic_trace(operations)
    # A scratch file: QSettings saves by writing a temporary file and renaming it over its path, so a
    # settings path must never be a device (os.devnull would be replaced by a regular file).
    scratch = tempfile.mkdtemp(prefix="mrtr-bench-")
    settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, 1366, 768))
    window.show()
    app.processEvents()
    window.teaching.tabs.setCurrentIndex(0)  # the Flow tab, as at launch
    app.processEvents()

    def load() -> None:
        window.studio.store.load(ops, messages)
        while window.selection.operation_id != ops[-1].id:  # the window shows the last flow once loaded
            app.processEvents()
        window.repaint()

    timed(f"{len(messages)} messages into the whole window (every view, then the last flow shown and painted)",
          load, results)
    window.close()
    window.deleteLater()
    app.processEvents()
    return results


#: (already in the box, then typed a key at a time): a free-text word from its first letter (the first
#: keystroke searches every message), a term after a narrowing one, a word every request holds.
TYPED = (("", "f1234"), ("kind:request ", "round:2"), ("", "Delete"))
#: The issue's goal for one keystroke.
GOAL = 0.2


def scan_floor(messages: Sequence[Any]) -> None:
    """The anchor for a free-text keystroke: one case-insensitive pass over every message's JSON with
    no index, in its cheapest pieces: each block of text the store sealed (trace/model.py's PackedBlock,
    already contiguous) lowered and searched for a word none holds, each piece timed over all blocks.
    A keystroke that searches every message in Python cannot cost less than their sum."""
    from mrtr_studio.trace.model import blocks_of

    spent = [0.0, 0.0]
    size = 0
    for block in blocks_of(messages):
        size += len(block.data)
        began = time.perf_counter()
        lowered = block.data.lower()
        folded = time.perf_counter()
        lowered.find(b"no message holds this")
        found = time.perf_counter()
        spent[0] += folded - began
        spent[1] += found - folded
    total = sum(spent)
    print(f"  anchor: one pass over the {size / 1e6:,.0f} MB of sealed message JSON, a block at a time: lowered "
          f"{spent[0] * 1000:.0f} ms, searched {spent[1] * 1000:.0f} ms = {total:.3f} s "
          f"({total / GOAL:.2f}x the {GOAL} s goal)")


def typing(path: str, typed: tuple[tuple[str, str], ...] = TYPED) -> None:
    """Typing as typing: a trace file opened in the whole window, then keys typed into the real filter
    box with QTest.keyClicks, one at a time. Printed per keystroke: the time until the log shows that
    keystroke's result (the debounce, the worker's run, the swap), and over each sequence the GUI's
    longest stall, measured by a 10 ms QTimer heartbeat (its longest gap past 10 ms)."""
    from PySide6.QtCore import QEventLoop, QRect, QSettings, QTimer
    from PySide6.QtTest import QTest

    from mrtr_studio.studio.controller import Studio
    from mrtr_studio.ui.main_window import MainWindow

    app = _app()
    scratch = tempfile.mkdtemp(prefix="mrtr-bench-")
    settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Studio(), settings, interactive_answers=False, available=QRect(0, 0, 1366, 768))
    window.show()
    app.processEvents()
    began = time.perf_counter()
    window.open_trace(path)
    store, log = window.studio.store, window.log
    while not store.messages or log.model.rowCount() < len(store.messages):
        app.processEvents()
    log.table.viewport().repaint()
    opened = time.perf_counter() - began
    proxy, bar = log.proxy, log.filter_bar
    while not proxy.ready():
        app.processEvents()
        time.sleep(0.005)
    print(f"typing: {len(store.messages):,} messages opened in the window in {opened:.1f} s; the filter's columns "
          f"ready {time.perf_counter() - began - opened:.1f} s later (on the worker)")
    scan_floor(store.messages)
    swaps = [0]
    proxy.filtered.connect(lambda: swaps.__setitem__(0, swaps[0] + 1))
    gaps: list[float] = []
    last = [time.perf_counter()]

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    heart = QTimer()
    heart.setInterval(10)
    heart.timeout.connect(beat)
    heart.start()

    def settled(before: int) -> bool:
        if not bar.error.isHidden() and not bar._debounce.isActive():
            return True  # a half-typed term: the mistake is shown, the last filter stays
        return swaps[0] > before and not bar._debounce.isActive() and proxy.ready()

    def settle(before: int) -> None:
        """Wait in Qt's event loop (idle, as a window waiting for a person is, not spinning) until the
        keystroke's result is shown, or 60 s."""
        loop, poll, deadline = QEventLoop(), QTimer(), time.perf_counter() + 60
        poll.setInterval(2)
        poll.timeout.connect(lambda: loop.quit() if settled(before) or time.perf_counter() > deadline else None)
        poll.start()
        if not settled(before):
            loop.exec()
        poll.stop()
        if not settled(before):
            print("  (no result within 60 s)")

    worst = 0.0
    for prefix, keys in typed:
        if prefix:
            before = swaps[0]
            bar.set_text(prefix)
            settle(before)
        bar.edit.setFocus()
        bar.edit.end(False)
        gaps.clear()
        last[0] = time.perf_counter()
        for key in keys:
            before = swaps[0]
            bar.completer.popup().hide()  # a person types on past the completions; so does the bench
            started = time.perf_counter()
            QTest.keyClicks(bar.edit, key)
            settle(before)
            took = time.perf_counter() - started
            worst = max(worst, took)
            half = not bar.error.isHidden()
            state = "a half-typed term (shown as a mistake)" if half else f"{proxy.rowCount():,} rows"
            print(f"  typed {bar.edit.text()!r:24} -> shown in {took * 1000:7.1f} ms ({took / GOAL:.2f}x the "
                  f"{GOAL} s goal), {state}")
        stall = max(gaps, default=0.0) - 0.010
        print(f"  longest GUI stall while typing {keys!r}: {stall * 1000:.1f} ms (10 ms heartbeat)")
        before = swaps[0]
        bar.set_text("")
        settle(before)
    heart.stop()
    print(f"  RATIO: slowest keystroke {worst:.3f} s, {worst / GOAL:.2f}x the goal (< {GOAL} s a keystroke)")
    window.close()
    window.deleteLater()
    app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=2500, help="two-round operations (4 messages each)")
    parser.add_argument("--diagram-messages", type=int, default=1200, help="messages in the zoomed diagram")
    parser.add_argument("--big", type=int, default=25000, help="operations in the big trace (0 to skip)")
    parser.add_argument("--typing", metavar="TRACE", help="only type filters into the window over this trace file "
                        "(tools/synthetic_trace.py's save_synthetic writes a 1,000,000-message one)")
    args = parser.parse_args()
    if args.typing:
        typing(args.typing)
        return
    results = bench(args.operations)
    if args.big:
        results += big_trace(args.big)
        results += window_trace(args.big)
    for label, seconds in results:
        print(f"{seconds * 1000:10.1f} ms  {label}")
    for label, seconds in bench_diagram_zoom(args.diagram_messages):
        print(f"{seconds * 1000:10.1f} ms  {label}")


if __name__ == "__main__":
    main()
