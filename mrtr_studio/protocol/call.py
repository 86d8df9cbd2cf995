"""An operation's request as people name it: the method, its target and its arguments.

The triple every part of the studio keys a call on (a lesson's run, a live run to start again, the
request a replay matches against a recording), held in one type so it is spelled one way.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    """`method` (tools/call, prompts/get, resources/read), `target` (the tool or prompt name, or the
    resource URI) and `arguments` (a tool's or prompt's; none for a resource)."""

    method: str
    target: str
    arguments: dict[str, Any]
