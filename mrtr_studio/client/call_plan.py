"""What to call and with which client: the part a lesson's run and a named demo run (`--scenario NAME`)
both start from, so the two cannot drift in what a planned call is."""

from dataclasses import dataclass, field
from typing import Any

from .settings import ALL_CAPABILITIES, EraChoice


@dataclass(frozen=True)
class ClientCall:
    """The call (method, tool or prompt name or resource URI, arguments) and the client's era and the
    capabilities it declares."""

    method: str
    target: str
    arguments: dict[str, Any] = field(default_factory=dict)
    era: EraChoice = "modern"
    capabilities: frozenset[str] = ALL_CAPABILITIES
