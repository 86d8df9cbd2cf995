"""The requestState inspector on real flows: tampered, expired and other-principal retries are
sent through the engine, and the check the server names in its -32602 is the one highlighted."""

import time
from types import SimpleNamespace
from typing import Any

from PySide6.QtCore import Qt

from mrtr_studio.client import tamper
from mrtr_studio.engine.state_token import CHECKS, decode
from mrtr_studio.studio.state_analysis import PAYLOAD_FIELDS
from mrtr_studio.trace import TraceStore
from mrtr_studio.transport.memory import MemoryTransport
from mrtr_studio.ui.selection import Selection
from mrtr_studio.ui.state_inspector import StateInspector, countdown_text
from tests.trace.view_flows import SECRET, demo_server, on_round, run_flow


class FakeStudio(SimpleNamespace):
    """What the shell's controller offers the inspector (duck-typed there too)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(engine_secret=SECRET, offset=0.0, pending=None, edited=[], said=[], **kw)

    def engine_now(self) -> float:
        return time.time() + self.offset

    def advance_clock(self, seconds: float) -> None:
        self.offset += seconds

    def edit_pending(self, message: dict) -> None:
        self.edited.append(message)
        self.pending.message = message

    def tamper(self, kind: str) -> str:
        self.said.append(kind)
        return f"done: {kind}"


def inspector(qtbot, store: TraceStore, studio: Any = None) -> tuple[StateInspector, Selection]:  # type: ignore[no-untyped-def]
    selection = Selection()
    widget = StateInspector(store, selection, studio)
    qtbot.addWidget(widget)
    return widget, selection


def tampered_signature_shown(qtbot, width: int, height: int) -> StateInspector:  # type: ignore[no-untyped-def]
    """The inspector at this size, showing a retry whose requestState had a signature byte flipped."""
    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_signature_byte(m).message))
    widget, selection = inspector(qtbot, store, FakeStudio())
    widget.resize(width, height)
    with qtbot.waitExposed(widget):
        widget.show()
    selection.select(store.messages_of(op.id)[2])
    qtbot.wait(10)
    return widget


def rejection(store: TraceStore, operation_id: str) -> Any:
    return store.messages_of(operation_id)[-1].message["error"]


def row(widget: StateInspector, name: str) -> tuple[str, str, bool]:
    return next(r for r in widget.checklist() if r[0] == name)


def test_flipped_signature_is_rejected_and_highlighted(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_signature_byte(m).message))
    error = rejection(store, op.id)
    assert (error["code"], error["message"], error["data"]["reason"]) == (-32602, "Invalid requestState", "signature")
    widget, selection = inspector(qtbot, store, FakeStudio())
    retry = store.messages_of(op.id)[2]
    selection.select(retry)
    assert row(widget, "signature") == ("signature", "✖ fail", True)
    assert [r for r in widget.checklist() if r[2]] == [row(widget, "signature")]  # only that one is highlighted
    assert row(widget, "malformed")[1] == "✔ pass"
    assert "signature" in widget.rejection_label.text()
    # The diff is against the state the server issued: only the signature differs, so the payload is equal.
    assert "issued" in widget.diff_label.text()
    # The state the server minted is still fine on its own.
    selection.select(store.messages_of(op.id)[1])
    assert row(widget, "signature") == ("signature", "✔ pass", False)
    assert widget.rejection_label.text() == ""


def test_payload_edit_shows_in_the_diff(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_payload_byte(m).message))
    assert rejection(store, op.id)["data"]["reason"] == "signature"
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[2])
    # The nonce field and the raw payload bytes changed; the signature was left as the server made it.
    assert widget.changed_fields() == ["nonce", "payload bytes"]
    assert "2 of 15 differ (nonce, payload bytes)" in widget.diff_label.text()
    first_rows = [widget.diff_table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in (0, 1)]
    assert first_rows == ["nonce", "payload bytes"]  # what differs comes first, in view without scrolling


def test_signature_tamper_marks_the_signature_in_the_diff(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_signature_byte(m, 5).message))
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[2])
    assert widget.changed_fields() == ["signature"]
    table = widget.diff_table
    row_of = {table.item(r, 0).data(Qt.ItemDataRole.UserRole): r for r in range(table.rowCount())}
    signature = widget.diff_table.item(row_of["signature"], 0)
    assert signature.text() == "≠ signature" and "First difference at character 5" in signature.toolTip()
    assert widget.diff_table.item(row_of["payload bytes"], 0).text().startswith("  ")


def test_every_payload_field_is_named_by_its_meaning(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file")
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[1])
    payload = decode(store.messages_of(op.id)[1].message["result"]["requestState"]).payload
    assert set(payload) == set(PAYLOAD_FIELDS)  # every payload key has a name and a reason
    labels = [widget.payload_table.item(r, 0).text() for r in range(widget.payload_table.rowCount())]
    assert labels == [PAYLOAD_FIELDS[key][0] for key in payload]
    assert {"arguments digest (a)", "principal (p)", "asked inputs (k)", "issued at (iat)"} <= set(labels)
    for r in range(widget.payload_table.rowCount()):
        tip = widget.payload_table.item(r, 0).toolTip()
        assert tip.startswith(PAYLOAD_FIELDS[list(payload)[r]][1]) and "As sent: " in tip


def test_all_seven_checks_are_visible_and_the_failed_one_is_marked(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = tampered_signature_shown(qtbot, 340, 430)  # a right-hand tab at 1366x768
    table = widget.checks_table
    assert [name for name, _status, _marked in widget.checklist()] == list(CHECKS)
    viewport = table.viewport().rect()
    for r in range(table.rowCount()):
        rect = table.visualItemRect(table.item(r, 0))
        assert viewport.contains(rect), (r, rect, viewport)
    assert table.verticalScrollBar().maximum() == 0
    failed = list(CHECKS).index("signature")
    assert table.currentRow() == failed
    assert table.item(failed, 0).text() == "▶ signature" and table.item(failed, 1).text() == "✖ fail"
    assert table.item(failed, 0).font().bold()
    assert widget.payload_table.isVisible() and widget.payload_table.height() > 40


def test_every_reason_reads_whole_in_a_narrow_panel(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The "why" column wraps instead of eliding, also after the panel is narrowed: each row is as tall as its
    reason needs at the column's width, and the table as tall as its rows."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFontMetrics

    widget = tampered_signature_shown(qtbot, 900, 600)
    table = widget.checks_table
    one_line = [table.rowHeight(r) for r in range(table.rowCount())]
    widget.resize(330, 600)  # narrowed after it was filled
    qtbot.wait(50)
    why = 2
    room = QRect(0, 0, table.columnWidth(why) - 10, 10_000)
    for r in range(table.rowCount()):
        item = table.item(r, why)
        needed = QFontMetrics(item.font()).boundingRect(room, Qt.TextFlag.TextWordWrap, item.text()).height()
        assert table.rowHeight(r) >= needed, (item.text(), table.rowHeight(r), needed)
    assert sum(table.rowHeight(r) for r in range(table.rowCount())) > sum(one_line)  # some reasons wrapped
    assert table.height() >= sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.verticalScrollBar().maximum() == 0


def test_expired_state_via_the_codec_clock(qtbot) -> None:  # type: ignore[no-untyped-def]
    server = demo_server()
    studio = FakeStudio()
    server.codec.clock = studio.engine_now

    def expire(message: dict) -> dict:
        studio.advance_clock(server.codec.ttl + 5)
        return message

    store = TraceStore()
    op = run_flow(store, "delete_file", server=server, step=on_round(2, expire))
    assert rejection(store, op.id)["data"]["reason"] == "expired"
    widget, selection = inspector(qtbot, store, studio)
    selection.select(store.messages_of(op.id)[1])
    assert row(widget, "expired")[:2] == ("expired", "✖ fail")
    assert widget.ttl_label.text().startswith("EXPIRED")
    selection.select(store.messages_of(op.id)[2])
    assert row(widget, "expired") == ("expired", "✖ fail", True)


def test_other_principal(qtbot) -> None:  # type: ignore[no-untyped-def]
    transports: list[MemoryTransport] = []

    def as_bob(message: dict) -> dict:
        transports[0].user = "bob"
        return message

    store = TraceStore()
    op = run_flow(store, "delete_file", user="alice", setup=transports.append, step=on_round(2, as_bob))
    assert rejection(store, op.id)["data"]["reason"] == "principal"
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[2])
    assert row(widget, "principal") == ("principal", "✖ fail", True)
    assert widget.payload_table.findItems("alice", Qt.MatchFlag.MatchExactly)


def test_external_server_cannot_check_the_signature(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file", server_label="http://127.0.0.1:8765/mcp")
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[1])
    status, why = row(widget, "signature")[1], widget.checks_table.item(1, 2).text()
    assert status == "? unknown"
    assert "cannot be verified without the server's secret" in why
    assert "compared with the request that carried it" in why
    assert row(widget, "arguments")[1] == "✔ pass"


def test_countdown_ticks_on_the_engine_clock(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file")
    studio = FakeStudio()
    widget, selection = inspector(qtbot, store, studio)
    selection.select(store.messages_of(op.id)[1])
    assert widget.ttl_label.text().startswith("expires in 9:") or widget.ttl_label.text() == "expires in 10:00"
    assert widget.timer.isActive() and widget.timer.interval() == 1000
    studio.advance_clock(3600)
    widget.tick()
    assert widget.ttl_label.text().startswith("EXPIRED")
    assert countdown_text(61) == "expires in 1:01"


def test_tamper_actions_edit_the_held_retry(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file")
    held = store.messages_of(op.id)[2].message
    studio = FakeStudio()
    studio.pending = SimpleNamespace(message=held, operation_id="other")
    widget, _selection = inspector(qtbot, store, studio)
    widget._update_tamper_enabled()
    assert widget.tamper_button.isEnabled()
    text = widget.apply_tamper(tamper.flip_signature_byte)
    assert "signature" in text and studio.edited[-1]["params"]["requestState"] != held["params"]["requestState"]
    widget.swap_from_other()
    assert studio.edited[-1]["params"]["requestState"] == store.messages_of(op.id)[1].message["result"]["requestState"]
    assert widget.as_other_identity() == "done: identity:bob"
    widget.wait_past_expiry()
    assert studio.offset > 0
    assert len(widget.tamper_button.menu().actions()) >= 9


def test_nothing_held_disables_tampering(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget, _ = inspector(qtbot, TraceStore(), FakeStudio())
    assert not widget.tamper_button.isEnabled()
    assert "nothing to tamper" in widget.apply_tamper(tamper.drop_state)


def test_a_short_panel_scrolls_instead_of_overlapping(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = tampered_signature_shown(qtbot, 340, 220)
    # The tables are fitted to their rows once the layout has run (ui/table_fit.py): wait for it to settle.
    qtbot.waitUntil(lambda: widget.checks_table.geometry().bottom() < widget.split.geometry().top(), timeout=3000)
    checks = widget.checks_table.geometry()
    below = widget.split.geometry()  # same parent: the scrolled content
    assert checks.bottom() < below.top()
    assert checks.height() >= sum(widget.checks_table.rowHeight(r) for r in range(7))
    assert widget.scroll_area.verticalScrollBar().maximum() > 0


def test_the_failed_checks_reason_is_shown_whole(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_signature_byte(m).message))
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[2])
    # the server named the check: its reason is said once, on the rejection line
    assert "signature matches none" in widget.rejection_label.text()
    assert not widget.failed_label.isVisibleTo(widget)
    selection.select(store.messages_of(op.id)[1])
    assert not widget.failed_label.isVisibleTo(widget)


def test_a_locally_failed_check_is_explained_in_full(qtbot) -> None:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = run_flow(store, "delete_file")
    studio = FakeStudio()
    widget, selection = inspector(qtbot, store, studio)
    studio.advance_clock(3600)  # the state the server issued has expired since, on the engine's clock
    selection.select(store.messages_of(op.id)[1])
    assert widget.rejection_label.text() == ""
    assert widget.failed_label.isVisibleTo(widget)
    assert widget.failed_label.text().startswith("✖ expiry: expired ")


def test_colours_follow_a_dark_palette(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QColor, QPalette

    from mrtr_studio.ui import tones

    store = TraceStore()
    op = run_flow(store, "delete_file", step=on_round(2, lambda m: tamper.flip_signature_byte(m).message))
    widget, selection = inspector(qtbot, store, FakeStudio())
    selection.select(store.messages_of(op.id)[2])
    shape = widget.checks_table.item(0, 1)
    assert shape.foreground().color().name() == tones.PASS[0]
    dark = QPalette(widget.palette())
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#2b2b2b"))
    widget.setPalette(dark)
    assert tones.is_dark(widget)
    assert widget.checks_table.item(0, 1).foreground().color().name() == tones.PASS[1]
    marked = widget.checks_table.item(list(CHECKS).index("signature"), 0)
    assert marked.foreground().color().name() == tones.MARKED_TEXT[1]
    assert marked.background().color().name() == tones.MARKED_BACKGROUND[1]
    assert tones.ERROR[1] in widget.rejection_label.styleSheet()


def test_a_lifetime_longer_than_the_engine_ttl_fails_the_expiry_check(qtbot) -> None:  # type: ignore[no-untyped-def]
    server = demo_server()
    server.codec.ttl = 10 * 365 * 86400  # a well-signed state that would live ten years
    store = TraceStore()
    op = run_flow(store, "delete_file", server=server)
    issued = store.messages_of(op.id)[1]
    widget, selection = inspector(qtbot, store, FakeStudio(engine=SimpleNamespace(codec=SimpleNamespace(ttl=600))))
    selection.select(issued)
    assert row(widget, "expired")[:2] == ("expired", "✖ fail")
    widget, selection = inspector(qtbot, store, FakeStudio(engine=SimpleNamespace(codec=server.codec)))
    selection.select(issued)
    assert row(widget, "expired")[:2] == ("expired", "✔ pass")
