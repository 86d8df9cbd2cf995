"""What to call and with which client: the part a lesson's run and a named demo run (`--scenario NAME`)
both start from, so the two cannot drift in what a planned call is."""

from dataclasses import dataclass, field
from typing import Any

from ..protocol.call import Call
from .settings import ALL_CAPABILITIES, EraChoice


@dataclass(frozen=True)
class ClientCall(Call):
    """The call (its arguments none unless given), the client's era and the capabilities it declares."""

    arguments: dict[str, Any] = field(default_factory=dict)
    era: EraChoice = "modern"
    capabilities: frozenset[str] = ALL_CAPABILITIES
