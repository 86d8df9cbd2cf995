"""Protocol revisions and the `_meta` keys that carry per-request context in 2026-07-28.

Modern requests are self-describing (version, client info and capabilities travel in every
request's `_meta`); legacy ones rely on the `initialize` handshake and a session.
"""

from enum import StrEnum

MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"
#: Legacy revisions a 2025-11-25 server still negotiates with in `initialize`.
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SUPPORTED_VERSIONS = (MODERN_VERSION, *LEGACY_VERSIONS)

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"

#: Methods whose results may be `input_required` in 2026-07-28.
MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
#: The params field each of them names its target with (mirrored in the HTTP `Mcp-Name` header).
NAME_FIELDS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
               # the tasks extension (SEP-2663) routes its methods by task id
               "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


class Era(StrEnum):
    """Which side of the 2026-07-28 break a request lives on."""

    MODERN = "modern"
    LEGACY = "legacy"

    @classmethod
    def of_version(cls, version: str) -> "Era":
        return cls.MODERN if version == MODERN_VERSION else cls.LEGACY
