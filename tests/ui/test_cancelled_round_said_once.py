"""A round the person cancels is reported once, naming the round once: "could not answer round 1: the
person cancelled the round", not "round 1: round 1: the answer was cancelled" (the driver puts
"could not answer round N: " in front of what the answerer says)."""

import asyncio
from typing import Any

import pytest

from mrtr_studio.studio.controller import AnswerCancelled
from mrtr_studio.ui import answering


def test_the_cancelled_round_is_named_once(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QWidget

    async def cancelled(*_args: Any, **_kwargs: Any) -> None:
        return None  # what the round's dialog gives back when the person cancels it

    monkeypatch.setattr(answering, "ask_input_round", cancelled)
    parent = QWidget()
    qtbot.addWidget(parent)
    answerer = answering.GuiAnswerer(parent)
    with pytest.raises(AnswerCancelled) as raised:
        asyncio.run(answerer({"confirm": {"method": "elicitation/create"}}, 1))
    assert str(raised.value) == "the person cancelled the round" and "round 1" not in str(raised.value)
