"""The `--auto` answer strategy of the studio, its lessons, lab and demos.

Deterministic, so screenshots and tests see the same flow every time: forms are accepted with their
defaults (client/forms decides what that means), sampling is answered by echo, roots/list lists one
demo folder.
"""

from typing import Any

DEMO_ROOTS = [{"uri": "file:///home/demo/project", "name": "project"}]


async def auto_respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
    """A `Respond` for ClientSession: answers every input request of a round automatically. (The forms'
    logic, with pydantic and jsonschema, loads with the first round answered, not with the window.)"""
    from .forms import auto_responses

    return auto_responses(requests, DEMO_ROOTS)
