"""The client panel's Identity says who the requests speak for: "anonymous" sends no Authorization,
but once the server's OAuth flow holds a token the requests carry it, and the choice says so, as the
operations list does (`Studio.identity_shown`)."""

from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry
from mrtr_studio.ui.client_panel import ClientPanel


def test_anonymous_reads_as_the_oauth_sign_in_once_the_flow_holds_a_token(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    studio = Studio()
    panel = ClientPanel(studio)
    qtbot.addWidget(panel)
    box = panel.identity_box
    anonymous = box.findData("anonymous")
    assert box.itemText(anonymous) == "anonymous"
    studio.connection.entry = http_entry("http://127.0.0.1:9/mcp", "demo")
    signed_in = {"now": True}
    monkeypatch.setattr(studio.auth, "authorized", lambda url: signed_in["now"])
    width = box.sizeHint().width()
    studio.set_era("modern")  # any settings change makes the panel look again
    assert studio.identity_shown() == "OAuth" and box.itemText(anonymous) == "OAuth sign-in"
    assert box.sizeHint().width() == width  # the column does not move
    signed_in["now"] = False
    studio.set_era("modern")
    assert box.itemText(anonymous) == "anonymous"
