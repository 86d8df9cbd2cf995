"""The GUI's answer strategy: a window-modal dialog per round, awaited without blocking the loop.

It uses the forms engineer's InputRoundDialog (every input request of the round, one
inputResponses dict) when it is there; otherwise a JSON dialog prefilled with the automatic answers.
"""

import asyncio
import inspect
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


def _make_dialog(requests: dict[str, Any], round_number: int, parent: QWidget, server: str) -> Any:
    cls = getattr(_round_dialog, "InputRoundDialog", None) if _round_dialog is not None else None
    if cls is None:
        return None
    accepted = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = {}
    for name, value in (("server_name", server), ("round_number", round_number), ("parent", parent)):
        if name in accepted:
            kwargs[name] = value
    return cls(requests, **kwargs)


class GuiAnswerer:
    """`await answerer(requests, round)` -> inputResponses; AnswerCancelled when the person cancels."""

    def __init__(self, parent: QWidget, server_name: str = "") -> None:
        self.parent = parent
        self.server_name = server_name
        self.current: QDialog | None = None

    async def __call__(self, requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        dialog = _make_dialog(requests, round_number, self.parent, self.server_name)
        if dialog is None:
            dialog = JsonAnswerDialog(requests, await auto_respond(requests, round_number), round_number, self.parent)
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()

        def settle(value: dict[str, Any] | None) -> None:
            if not future.done():
                future.set_result(value)

        if hasattr(dialog, "answered"):
            dialog.answered.connect(lambda value: settle(dict(value)))
        dialog.finished.connect(lambda code: settle(
            (getattr(dialog, "responses", None) or _responses_of(dialog)) if code == QDialog.DialogCode.Accepted
            else None))
        self.current = dialog
        dialog.open()
        try:
            answers = await future
        finally:
            self.current = None
            if dialog.isVisible():
                dialog.close()
            dialog.deleteLater()
        if answers is None:
            raise AnswerCancelled(f"round {round_number}: the answer was cancelled")
        return answers


def _responses_of(dialog: Any) -> dict[str, Any]:
    for name in ("input_responses", "responses", "result"):
        value = getattr(dialog, name, None)
        value = value() if callable(value) else value
        if isinstance(value, dict):
            return value
    return {}
