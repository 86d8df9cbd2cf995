"""The engine's side of the draft SEPs (off unless `ServerOptions.drafts` names them).

SEP-3221, secure parameters: a tool may have a `secureInputSchema` beside its `inputSchema`; its values
come in `params.secureArguments`, set by the host and never by the model. The engine lists the schema
only to clients that declared the extension (and hides such tools from the others, the SEP's graceful
fallback), refuses a call whose `arguments` name a secure parameter or whose `secureArguments` do not
fit the schema (-32602, naming the field but never echoing a value), and binds the secure arguments
into the requestState's digest, so a retry that drops, alters or swaps them fails verification.

SEP-2643, structured authorization denials: `deny_with_url` turns a handler's answer into the SEP's
InputRequiredResult carrying a URL elicitation and the denial envelope in `_meta`.
"""

import secrets
from typing import Any

from ..protocol import capabilities
from ..protocol.drafts import AUTHORIZATION_META, EXTENSIONS, SECURE_ARGUMENTS, SECURE_SCHEMA, SEP_2643, SEP_3221
from ..protocol.errors import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, McpError
from .handler_api import Request, Response
from .registry import ToolEntry
from .server_session import Session

SECURE_EXTENSION = EXTENSIONS[SEP_3221]
#: The key secure arguments take inside the state's binding (no tool argument can be named so).
#: What a client declares to be shown secure tools (SEP-3221).
SECURE_DECLARED: dict[str, Any] = {"extensions": {SECURE_EXTENSION: {}}}
BOUND_KEY = "\u0000" + SECURE_ARGUMENTS


def extensions_for(drafts: frozenset[str]) -> dict[str, Any]:
    """The extension declarations the enabled drafts add to the server's capabilities."""
    return {EXTENSIONS[name]: {} for name in sorted(drafts)}


def check_secure_schema(schema: Any, tool: str) -> dict[str, Any]:
    """A secureInputSchema is a Draft 2020-12 object schema (SEP-3221 §3.2); ValueError otherwise."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError(f"tool {tool!r}: secureInputSchema must be a JSON Schema with top-level type object")
    from jsonschema import Draft202012Validator  # with the first secure tool, not with the engine
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"tool {tool!r}: secureInputSchema is not valid JSON Schema: {exc.message}") from None
    return schema


def _secure_names(entry: ToolEntry) -> set[str]:
    properties = (entry.secure_input_schema or {}).get("properties")
    return set(properties) if isinstance(properties, dict) else set()


def listed_tool(entry: ToolEntry, caps: dict[str, Any], drafts: frozenset[str]) -> dict[str, Any] | None:
    """The tool as `tools/list` shows it to this client, or None to leave it out."""
    wire = entry.wire()
    if entry.secure_input_schema is None:
        return wire
    if SEP_3221 not in drafts or not capabilities.declares(caps, SECURE_DECLARED):
        return None  # a client that cannot send secureArguments never sees a tool it could not call
    return {**wire, SECURE_SCHEMA: entry.secure_input_schema}


def secure_call(entry: ToolEntry, params: dict[str, Any], arguments: dict[str, Any], caps: dict[str, Any],
                drafts: frozenset[str]) -> dict[str, Any] | None:
    """The call's verified secureArguments (None for a tool without secure parameters)."""
    if entry.secure_input_schema is None or SEP_3221 not in drafts:
        return None
    if not capabilities.declares(caps, SECURE_DECLARED):
        raise McpError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                       f"Missing required client capability: {SECURE_EXTENSION}",
                       {"requiredCapabilities": {"extensions": {SECURE_EXTENSION: {}}}})
    colliding = sorted(_secure_names(entry) & set(arguments))
    if colliding:
        raise McpError(INVALID_PARAMS, f"Invalid params: {', '.join(colliding)} may only come in secureArguments "
                                       "(draft SEP-3221), never in arguments")
    given = params.get(SECURE_ARGUMENTS, {})
    if not isinstance(given, dict):
        raise McpError(INVALID_PARAMS, "Invalid params: secureArguments must be an object")
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(entry.secure_input_schema).iter_errors(given), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        # The validator's message may quote the value; the field and the rule are enough, and leak nothing.
        raise McpError(INVALID_PARAMS, f"Invalid params: secureArguments {where} fails '{errors[0].validator}' "
                                       "of the tool's secureInputSchema")
    return given


def bound_arguments(arguments: dict[str, Any], secure: dict[str, Any] | None) -> dict[str, Any]:
    """What the requestState binds: the arguments, and the secure arguments beside them when there are any."""
    return arguments if secure is None else {**arguments, BOUND_KEY: secure}


def secure_arguments(request: Request) -> dict[str, Any]:
    """A handler's view of the call's secureArguments (verified by the engine before the handler runs)."""
    params = request.raw.get("params") if isinstance(request.raw, dict) else None
    value = params.get(SECURE_ARGUMENTS) if isinstance(params, dict) else None
    return value if isinstance(value, dict) else {}


def new_context_id() -> str:
    return "authzctx_" + secrets.token_hex(8)


def envelope(remediation: str, context_id: str | None = None, hints: list[dict[str, Any]] | None = None
             ) -> dict[str, Any]:
    """SEP-2643's denial envelope; hints only when a remediation is available (the SEP forbids them else)."""
    if remediation not in ("available", "unavailable", "undisclosed"):
        raise ValueError(f"remediation must be available, unavailable or undisclosed, not {remediation!r}")
    body: dict[str, Any] = {"reason": "insufficient_authorization", "remediation": remediation}
    if context_id:
        body["authorizationContextId"] = context_id
    if hints and remediation == "available":
        body["remediationHints"] = hints
    return body


def deny_with_url(session: Session, request: Request, response: Response, key: str, url: str, message: str,
                  context_id: str) -> None:
    """Deny on authorization grounds, remedied by the user at `url` (SEP-2643 interaction 1)."""
    if SEP_2643 not in session.server.options.drafts:
        raise RuntimeError("deny_with_url needs the sep-2643 draft on (ServerOptions.drafts)")
    if not capabilities.declares(request.client_capabilities, {"elicitation": {"url": {}}}):
        response.result.is_error = True
        response.result.content.add_text("Access needs an approval this client cannot show (no URL elicitation).")
        response.result.meta[AUTHORIZATION_META] = envelope("undisclosed", context_id)
        return
    response.input_required.add_elicitation_url(key, message, url, elicitation_id=context_id)
    response.input_required.meta[AUTHORIZATION_META] = envelope("available", context_id, [{"type": "url"}])
