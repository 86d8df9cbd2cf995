"""The GUI's answer strategy: the round's input requests in one dialog, awaited without blocking the loop."""

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from ..studio.controller import AnswerCancelled
from .forms.input_round_dialog import ask_input_round


class GuiAnswerer:
    """`await answerer(requests, round)` -> inputResponses; AnswerCancelled when the person cancels."""

    def __init__(self, parent: QWidget, server_name: str = "", auto_roots: Callable[[], bool] = lambda: False) -> None:
        """`auto_roots`: asked each round, whether roots/list is answered without showing it (off by default)."""
        self.parent = parent
        self.server_name = server_name
        self.auto_roots = auto_roots

    async def __call__(self, requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        answers = await ask_input_round(requests, server_name=self.server_name, parent=self.parent,
                                        auto_roots=self.auto_roots())
        if answers is None:
            raise AnswerCancelled("the person cancelled the round")  # the driver names the round
        return answers
