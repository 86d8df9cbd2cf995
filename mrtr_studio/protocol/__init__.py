"""The wire: JSON-RPC envelopes, MRTR models, error codes, protocol eras and schema validation.

Nothing is re-exported here: the era constants live in `protocol.versions`, the codes and McpError in
`protocol.errors`, and every module imports them from there (one name, one place).
"""
