"""The requestState inspector's part for states in other formats, and the key remembered per server.

Kept beside state_inspector.py (a mixin of StateInspector): a foreign state shows its detected
format, what can be read (header, payload, by meaning) and its decoder's checks; the key that opens
a server's states is typed once and kept in the OS keyring through studio.state_keys, never in settings.
"""

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from ..studio.state_keys import StateKeys

if TYPE_CHECKING:
    from ..studio.state_analysis import StateView


class ForeignStateMixin:
    """Needs the inspector's tables, labels, `_fill_checks`, `_add_row`, `_said`, `show_seq` and `tick`."""

    _state_keys: StateKeys | None
    view: "StateView | None"
    store: Any
    selection: Any

    def _render_foreign(self, view: "StateView", where: str) -> None:
        """Another format's state: its name, what can be read, and its own checks as its decoder said them."""
        decoded = view.decoded
        assert decoded is not None
        self.header.setText(f"#{view.entry.seq}: requestState {where} round {view.entry.round} (external server) "
                            f"— format: {decoded.format} — verdict: {decoded.verdict}")
        for name, value in (decoded.header or {}).items():
            self._add_row(self.payload_table, [f"header: {name}", _field_text("", value)],
                          tooltip="Readable without the key")
        for name, value in (decoded.payload or {}).items():
            label = decoded.labels.get(name, name)
            raw = json.dumps(value, ensure_ascii=False)[:2000]
            self._add_row(self.payload_table, [label, _field_text(name, value)], tooltip=f"As sent: {raw}")
        self.payload_heading.setText(f"Payload ({decoded.format})" if decoded.payload is not None
                                     else f"Payload ({decoded.format}: cannot be read, see the checks)")
        failed = next((c.name for c in decoded.checks if c.status == "fail"), None)
        self._fill_checks([(c.name, c.status, c.why) for c in decoded.checks], failed)
        self.failed_label.setText("\n".join(f"\u2716 {c.name}: {c.why}" for c in decoded.checks
                                             if c.status == "fail"))
        self.failed_label.setVisible(bool(self.failed_label.text()))
        if view.rejected:
            self.rejection_label.setText(f"The server rejected this state: -32602, reason {view.rejected!r}")
        self.diff_label.setText("Rounds compared by the format's checks.")
        self.tick()
        self.timer.start()
        self._update_tamper_enabled()

    # --- the key per server -------------------------------------------------------------------

    @property
    def state_keys(self) -> StateKeys:
        if self._state_keys is None:
            self._state_keys = StateKeys()
        return self._state_keys

    def current_server(self) -> str | None:
        if self.view is None or self.view.embedded:
            return None
        return self.store.operation(self.view.entry.operation_id).server

    def ask_server_key(self) -> None:
        server = self.current_server()
        if server is None:
            return
        parent = self if isinstance(self, QWidget) else None
        text, ok = QInputDialog.getText(parent, "requestState key", f"Key for {server} (hex:…, base64:… or text; "
                                        "empty forgets it):", QLineEdit.EchoMode.Password)
        if ok:
            self.set_server_key(text)

    def set_server_key(self, text: str) -> str:
        """Remember (or, empty, forget) the key for the selected state's server, then show the state again."""
        server = self.current_server()
        if server is None:
            return self._said("select a state from an external server first")
        if not text:
            self.state_keys.forget(server)
            said = f"forgot the key for {server}"
        else:
            try:
                self.state_keys.remember(server, text)
            except ValueError as exc:
                return self._said(f"not a key: {exc}")
            said = f"key for {server} remembered in the keyring"
            if self.state_keys.problem:
                said = f"key for {server} kept for this session: {self.state_keys.problem}"
        self.show_seq(self.selection.message_seq)
        return self._said(said)


def _field_text(name: str, value: Any) -> str:
    from .state_inspector import field_text

    return field_text(name, value)
