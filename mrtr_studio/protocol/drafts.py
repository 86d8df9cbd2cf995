"""Draft SEPs the studio can switch on as experiments (off by default), named by their SEP number.

SEP-2643 (structured authorization denials) and SEP-3221 (secure parameters) are drafts: their wire may
still change, so nothing of them is on unless asked for by name, on the server (`ServerOptions.drafts`,
`serve --draft sep-2643`) and on the client (`ClientSettings.drafts`). This module holds what both
sides and the trace views agree on: the names, the extension identifiers and the wire keys, and how to
tell a message that carries a draft's fields (the diagram labels it "draft SEP-NNNN").
"""

from typing import Any

SEP_2643 = "sep-2643"
SEP_3221 = "sep-3221"
DRAFTS = {SEP_2643: "structured authorization denials", SEP_3221: "secure parameters"}
EXTENSIONS = {SEP_2643: "io.modelcontextprotocol/structured-authorization-denials",
              SEP_3221: "io.modelcontextprotocol/secure-params"}
#: SEP-2643: the denial envelope in a result's `_meta`, and the retry's echo of its correlation handle.
AUTHORIZATION_META = "io.modelcontextprotocol/authorization"
CONTEXT_ID_META = "io.modelcontextprotocol/authorization-context-id"
#: SEP-3221: the tool's application-controlled schema and the call's values for it.
SECURE_SCHEMA = "secureInputSchema"
SECURE_ARGUMENTS = "secureArguments"


def check_drafts(names: object) -> frozenset[str]:
    """The draft names, each one the studio knows (ValueError naming the unknown ones otherwise)."""
    if isinstance(names, str) or not isinstance(names, set | frozenset | list | tuple):
        raise ValueError(f"drafts must be a set of names like {sorted(DRAFTS)}, not {names!r}")
    unknown = sorted(str(n) for n in names if n not in DRAFTS)
    if unknown:
        raise ValueError(f"unknown draft(s): {', '.join(unknown)} (known: {', '.join(sorted(DRAFTS))})")
    return frozenset(str(n) for n in names)


def _object(value: Any, key: str) -> dict[str, Any]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def drafts_in(message: Any) -> list[str]:
    """Which drafts' fields `message` carries ("sep-2643", "sep-3221"), for labels and filters."""
    params, result = _object(message, "params"), _object(message, "result")
    found = []
    if AUTHORIZATION_META in _object(result, "_meta") or CONTEXT_ID_META in _object(params, "_meta") or \
            AUTHORIZATION_META in _object(_object(result, "result"), "_meta"):
        found.append(SEP_2643)
    listed = result.get("tools")
    tools = listed if isinstance(listed, list) else []
    if SECURE_ARGUMENTS in params or any(isinstance(t, dict) and SECURE_SCHEMA in t for t in tools):
        found.append(SEP_3221)
    return found


def draft_label(message: Any) -> str:
    """`"draft SEP-3221 · "` for a message carrying a draft's fields, `""` otherwise."""
    names = drafts_in(message)
    return "".join(f"draft {name.upper()} · " for name in names)
