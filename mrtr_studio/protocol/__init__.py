"""The wire: JSON-RPC envelopes, MRTR models, error codes, protocol eras and schema validation."""

from .errors import McpError
from .versions import (
    LEGACY_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    MODERN_VERSION,
    MRTR_METHODS,
    SUPPORTED_VERSIONS,
    Era,
)

__all__ = [
    "LEGACY_VERSION",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "MODERN_VERSION",
    "MRTR_METHODS",
    "SUPPORTED_VERSIONS",
    "Era",
    "McpError",
]
