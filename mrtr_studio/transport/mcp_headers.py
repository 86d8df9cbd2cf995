"""The HTTP headers a 2026-07-28 request carries beside its body: what it accepts, and the request
metadata it mirrors (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*), built in one place for
the client, `check`'s header check, the load generator and the replay across nodes."""

from typing import Any

from ..protocol import param_headers
from ..protocol.versions import META_PROTOCOL_VERSION, NAME_FIELDS

__all__ = ["ACCEPT", "header_value", "is_modern", "modern_headers"]

ACCEPT = "application/json, text/event-stream"


header_value = param_headers.encode  # the spec's Value Encoding, shared with the server

def modern_headers(message: dict[str, Any],
                   header_params: dict[str, list[param_headers.HeaderParam]] | None = None) -> dict[str, str]:
    """The request metadata headers a 2026-07-28 POST must mirror from its body, Mcp-Param-* included."""
    raw_params = message.get("params")
    params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
    raw_meta = params.get("_meta")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    headers = {"MCP-Protocol-Version": str(meta.get(META_PROTOCOL_VERSION, "")), "Mcp-Method": message["method"]}
    field = NAME_FIELDS.get(message["method"])
    if field and isinstance(params.get(field), str):
        headers["Mcp-Name"] = header_value(params[field])
    if message["method"] == "tools/call" and header_params and params.get("name") in header_params:
        headers.update(param_headers.headers_for(header_params[params["name"]], params.get("arguments")))
    return headers


def is_modern(message: dict[str, Any]) -> bool:
    params = message.get("params")
    return isinstance(params, dict) and isinstance(params.get("_meta"), dict) \
        and META_PROTOCOL_VERSION in params["_meta"]
