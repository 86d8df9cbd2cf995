"""The requestState inspector on other servers' states: the format named, its checks, a key kept per server."""

from typing import Any

from mrtr_studio.studio.state_keys import StateKeys
from mrtr_studio.trace import TraceStore
from mrtr_studio.ui.selection import Selection
from mrtr_studio.ui.state_inspector import StateInspector
from tests.states.test_python_sdk import KEY, sdk_token

SERVER = "http://127.0.0.1:9/python-sdk/mcp"


class MemoryKeyring:
    """A keyring backend that keeps what it is given, so the test sees where the key went."""

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, name: str) -> str | None:
        return self.saved.get((service, name))

    def set_password(self, service: str, name: str, value: str) -> None:
        self.saved[(service, name)] = value

    def delete_password(self, service: str, name: str) -> None:
        self.saved.pop((service, name), None)


class BrokenKeyring(MemoryKeyring):
    def get_password(self, service: str, name: str) -> str | None:
        raise RuntimeError("no keyring here")

    def set_password(self, service: str, name: str, value: str) -> None:
        raise RuntimeError("no keyring here")


def sdk_flow(store: TraceStore) -> Any:
    """A python-sdk server's first round, as the studio records it."""
    op = store.begin_operation("tools/call", "delete_file", {"path": "/a", "force": True}, "modern", SERVER)
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "delete_file", "arguments": {"path": "/a", "force": True}}}
    store.record(op.id, 1, "client->server", request)
    result = {"resultType": "input_required", "inputRequests": {}, "requestState": sdk_token(principal=None)}
    store.record(op.id, 1, "server->client", {"jsonrpc": "2.0", "id": 1, "result": result})
    return op


def shown(qtbot, keyring: MemoryKeyring) -> tuple[StateInspector, TraceStore, Any]:  # type: ignore[no-untyped-def]
    store = TraceStore()
    op = sdk_flow(store)
    selection = Selection()
    widget = StateInspector(store, selection, None)
    widget._state_keys = StateKeys(backend=keyring)
    qtbot.addWidget(widget)
    selection.select(store.messages_of(op.id)[1])
    return widget, store, op


def statuses(widget: StateInspector) -> dict[str, str]:
    return {name: status for name, status, _ in widget.checklist()}


def test_a_python_sdk_state_names_its_format_and_needs_the_key(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget, _, _ = shown(qtbot, MemoryKeyring())
    assert "format: python-sdk" in widget.header.text()
    assert statuses(widget)["decryption"] == "? cannot check"
    assert widget.key_button.isVisibleTo(widget)
    first = widget.payload_table.item(0, 0)
    assert first is not None and first.text() == "header: key id"


def test_the_key_is_remembered_per_server_in_the_keyring_and_opens_the_state(qtbot) -> None:  # type: ignore[no-untyped-def]
    keyring = MemoryKeyring()
    widget, _, _ = shown(qtbot, keyring)
    said = widget.set_server_key("hex:" + KEY.hex())
    assert "remembered in the keyring" in said
    assert list(keyring.saved) == [("mrtr-studio requestState keys", SERVER)]
    result = statuses(widget)
    assert result["decryption"] == "✔ pass" and result["method"] == "✔ pass" and result["arguments"] == "✔ pass"
    labels = [widget.payload_table.item(r, 0).text() for r in range(widget.payload_table.rowCount())]
    assert "handler state (s, the server's plaintext)" in labels
    # A second window (a restart) finds the key in the keyring.
    again, _, _ = shown(qtbot, keyring)
    assert statuses(again)["decryption"] == "✔ pass"
    # A wrong key is refused clearly; an empty one forgets it.
    widget.set_server_key("y" * 40)
    assert statuses(widget)["decryption"] == "✖ fail"
    assert "cannot decrypt: wrong key or tampered" in widget.failed_label.text()
    widget.set_server_key("")
    assert keyring.saved == {}


def test_a_bad_key_is_said_and_a_missing_keyring_keeps_it_for_the_session(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget, _, _ = shown(qtbot, BrokenKeyring())
    assert widget.set_server_key("hex:zz").startswith("not a key:")
    said = widget.set_server_key("hex:" + KEY.hex())
    assert "kept for this session" in said and KEY.hex() not in said
    assert statuses(widget)["decryption"] == "✔ pass"
