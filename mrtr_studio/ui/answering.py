"""The GUI's answer strategy: a window-modal dialog per round, awaited without blocking the loop.

It uses the forms engineer's InputRoundDialog (`ask_input_round`: every input request of the round,
one inputResponses dict) when it is there; otherwise a JSON dialog prefilled with the automatic answers.
"""

import asyncio
import json
from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ..app.auto_answers import auto_respond
from ..app.studio import AnswerCancelled

try:
    from .forms import input_round_dialog as _round_dialog
except ImportError:  # pragma: no cover - until the forms engineer's dialog lands
    _round_dialog = None  # type: ignore[assignment]


class JsonAnswerDialog(QDialog):
    """Fallback: the round's inputResponses as JSON, prefilled with schema defaults."""

    def __init__(self, requests: dict[str, Any], answers: dict[str, Any], round_number: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Round {round_number}: the server asks")
        asked = "\n".join(f"• {key}: {r.get('method')} — {(r.get('params') or {}).get('message', '')}"
                          for key, r in requests.items() if isinstance(r, dict))
        self.edit = QPlainTextEdit(json.dumps(answers, indent=2))
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._try_accept)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addWidget(QLabel(asked or "(no input requests)"))
        box.addWidget(QLabel("inputResponses:"))
        box.addWidget(self.edit, 1)
        box.addWidget(self.error)
        box.addWidget(buttons)
        self.responses: dict[str, Any] = {}

    def _try_accept(self) -> None:
        try:
            value = json.loads(self.edit.toPlainText())
        except json.JSONDecodeError as exc:
            self.error.setText(f"Invalid JSON: {exc.msg} (line {exc.lineno})")
            return
        if not isinstance(value, dict):
            self.error.setText("inputResponses must be a JSON object")
            return
        self.responses = value
        self.accept()


class GuiAnswerer:
    """`await answerer(requests, round)` -> inputResponses; AnswerCancelled when the person cancels."""

    def __init__(self, parent: QWidget, server_name: str = "") -> None:
        self.parent = parent
        self.server_name = server_name

    async def __call__(self, requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        if _round_dialog is not None:
            answers = await _round_dialog.ask_input_round(requests, server_name=self.server_name, parent=self.parent)
        else:
            answers = await self._json_dialog(requests, round_number)
        if answers is None:
            raise AnswerCancelled(f"round {round_number}: the answer was cancelled")
        return answers

    async def _json_dialog(self, requests: dict[str, Any], round_number: int) -> dict[str, Any] | None:
        dialog = JsonAnswerDialog(requests, await auto_respond(requests, round_number), round_number, self.parent)
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()

        def settle(code: int) -> None:
            if not future.done():
                future.set_result(dialog.responses if code == QDialog.DialogCode.Accepted else None)

        dialog.finished.connect(settle)
        dialog.open()
        try:
            return await future
        finally:
            dialog.deleteLater()
