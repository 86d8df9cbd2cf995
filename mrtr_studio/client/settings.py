"""What the simulated client is: its era, the capabilities it declares, who it is, how patient it is."""

from dataclasses import dataclass, field
from typing import Any, Literal

from .. import defaults
from ..protocol.drafts import check_drafts
from ..protocol.tasks_extension import TASKS_EXTENSION
from ..protocol.versions import (
    LEGACY_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
    MODERN_VERSION,
)
from ..transport.base import TransportLimits
from .drafts import declared_extensions

EraChoice = Literal["modern", "legacy", "auto"]
#: The capability switches the studio exposes, in display order.
CAPABILITY_FLAGS = ("elicitation", "elicitation.url", "sampling", "sampling.tools", "roots", "tasks")
ALL_CAPABILITIES = frozenset({"elicitation", "elicitation.url", "sampling", "roots"})


def capabilities_from_flags(flags: set[str] | frozenset[str]) -> dict[str, Any]:
    """`{"elicitation", "sampling.tools"}` -> the ClientCapabilities object to declare."""
    unknown = set(flags) - set(CAPABILITY_FLAGS)
    if unknown:
        raise ValueError(f"unknown capabilities: {', '.join(sorted(unknown))} (known: {', '.join(CAPABILITY_FLAGS)})")
    caps: dict[str, Any] = {}
    if "elicitation" in flags or "elicitation.url" in flags:
        caps["elicitation"] = {}
        if "elicitation" in flags:
            caps["elicitation"]["form"] = {}
        if "elicitation.url" in flags:
            caps["elicitation"]["url"] = {}
    if "sampling" in flags or "sampling.tools" in flags:
        caps["sampling"] = {"tools": {}} if "sampling.tools" in flags else {}
    if "roots" in flags:
        caps["roots"] = {}
    if "tasks" in flags:  # the tasks extension (SEP-2663), declared per request in 2026-07-28
        caps["extensions"] = {TASKS_EXTENSION: {}}
    return caps


def parse_flags(text: str) -> frozenset[str]:
    """`"elicitation, roots"` -> flags; `""` -> none. Raises ValueError naming unknown ones."""
    flags = frozenset(part.strip() for part in text.split(",") if part.strip())
    capabilities_from_flags(flags)
    return flags


@dataclass
class ClientSettings:
    era: EraChoice = "modern"
    capabilities: frozenset[str] = ALL_CAPABILITIES
    client_name: str = "mrtr-studio"
    client_version: str = "0.1.0"
    #: Bearer token sent over HTTP; for the embedded engine, `user` is the principal directly.
    bearer_token: str | None = None
    user: str = ""
    max_rounds: int = defaults.ROUND_LIMIT
    extra_meta: dict[str, Any] = field(default_factory=dict)
    #: How much the client accepts from a server and how long it waits (bytes, nesting, seconds).
    limits: TransportLimits = field(default_factory=TransportLimits)
    #: Draft SEPs switched on ("sep-2643", "sep-3221"), declared as their extensions; none by default.
    drafts: frozenset[str] = frozenset()
    #: Draft SEP-3221: the host's secure parameters per tool name, sent as `secureArguments`.
    secure_arguments: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.drafts = check_drafts(self.drafts)

    def declared_capabilities(self) -> dict[str, Any]:
        caps = capabilities_from_flags(self.capabilities)
        if self.drafts:
            caps["extensions"] = {**caps.get("extensions", {}), **declared_extensions(self.drafts)}
        return caps

    @property
    def declares_tasks(self) -> bool:
        return "tasks" in self.capabilities

    def client_info(self) -> dict[str, Any]:
        return {"name": self.client_name, "version": self.client_version}

    def request_meta(self, version: str = MODERN_VERSION) -> dict[str, Any]:
        return {
            META_PROTOCOL_VERSION: version,
            META_CLIENT_INFO: self.client_info(),
            META_CLIENT_CAPABILITIES: self.declared_capabilities(),
            **self.extra_meta,
        }

    def initialize_params(self, version: str = LEGACY_VERSION) -> dict[str, Any]:
        caps = self.declared_capabilities()
        caps.pop("extensions", None)  # the tasks extension is not defined for 2025-11-25
        if "elicitation" in caps and not caps["elicitation"]:
            caps["elicitation"] = {"form": {}}
        return {"protocolVersion": version, "capabilities": caps, "clientInfo": self.client_info()}
