"""Error codes on the wire and the exception that carries one through the engine."""

from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
#: Legacy (2025-11-25) only: 2026-07-28 answers an unknown resource URI with INVALID_PARAMS (SEP-2164).
RESOURCE_NOT_FOUND = -32002


class McpError(Exception):
    """A JSON-RPC error that a handler or the engine wants on the wire exactly as given."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
