"""The client's side of the draft SEPs, applied only when `ClientSettings.drafts` names them.

SEP-3221: the host binds the secure parameters of a tool (`ClientSettings.secure_arguments`, per tool
name) into `params.secureArguments` of the call; the retry of an MRTR round re-sends them unchanged,
as the SEP requires (the studio's retry keeps every param but the MRTR fields, so nothing is dropped).
SEP-2643: when a denial's envelope carries an `authorizationContextId`, the retry echoes it verbatim in
`_meta["io.modelcontextprotocol/authorization-context-id"]`.
"""

import copy
from typing import Any

from ..protocol.drafts import (
    AUTHORIZATION_META,
    CONTEXT_ID_META,
    EXTENSIONS,
    SECURE_ARGUMENTS,
    SEP_2643,
    SEP_3221,
)

Message = dict[str, Any]


def declared_extensions(drafts: frozenset[str]) -> dict[str, Any]:
    return {EXTENSIONS[name]: {} for name in sorted(drafts)}


def first_call(message: Message, drafts: frozenset[str], secure: dict[str, dict[str, Any]]) -> Message:
    """The first request with the host's secureArguments for its tool (draft SEP-3221 on and some bound)."""
    params = message.get("params")
    if SEP_3221 not in drafts or message.get("method") != "tools/call" or not isinstance(params, dict):
        return message
    bound = secure.get(str(params.get("name")))
    if bound is None:
        return message
    return {**message, "params": {**params, SECURE_ARGUMENTS: copy.deepcopy(bound)}}


def context_id_of(result: Any) -> str | None:
    meta = result.get("_meta") if isinstance(result, dict) else None
    found = meta.get(AUTHORIZATION_META) if isinstance(meta, dict) else None
    handle = found.get("authorizationContextId") if isinstance(found, dict) else None
    return handle if isinstance(handle, str) else None


def retry(message: Message, input_required: dict[str, Any], drafts: frozenset[str]) -> Message:
    """The retry with the denial's authorizationContextId echoed (draft SEP-2643 on and one given)."""
    handle = context_id_of(input_required) if SEP_2643 in drafts else None
    params = message.get("params")
    if handle is None or not isinstance(params, dict):
        return message
    found = params.get("_meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    return {**message, "params": {**params, "_meta": {**meta, CONTEXT_ID_META: handle}}}
