"""The `--auto` answer strategy: every input request answered from its schema's defaults.

Built on the forms logic (`client/forms/auto.py`): elicitations accepted with their defaults (URL
mode: plain accept), sampling echoed, roots listing one demo folder. Deterministic, so screenshots
and tests see the same flow every time.
"""

from typing import Any

from ..client.forms.auto import auto_responses

DEMO_ROOTS: list[dict[str, Any]] = [{"uri": "file:///home/demo/project", "name": "project"}]


async def auto_respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
    """A `Respond` for ClientSession: answers every input request of a round automatically."""
    return auto_responses(requests, roots=DEMO_ROOTS)
