"""Which client capability each kind of input request needs, and what a client lacks."""

from typing import Any

from .versions import META_CLIENT_CAPABILITIES


def required_for(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The ClientCapabilities fragment an input request of `method` needs, `{}` for none."""
    if method == "elicitation/create":
        if params.get("mode") == "url":
            return {"elicitation": {"url": {}}}
        return {"elicitation": {}}
    if method == "sampling/createMessage":
        if params.get("tools") or params.get("toolChoice"):
            return {"sampling": {"tools": {}}}
        return {"sampling": {}}
    if method == "roots/list":
        return {"roots": {}}
    return {}


def declares(declared: dict[str, Any], needed: dict[str, Any]) -> bool:
    """Does `declared` cover `needed`?

    An empty `elicitation: {}` means form mode (backwards compatibility with 2025-06-18), so form needs
    `elicitation` that is empty or names `form`; URL mode needs `elicitation.url` explicitly.
    """
    for name, sub in needed.items():
        have = declared.get(name)
        if not isinstance(have, dict):
            return False
        if name == "elicitation" and not sub and have and not isinstance(have.get("form"), dict):
            return False  # declares only URL mode: forms are not supported
        for sub_name in sub:
            if not isinstance(have.get(sub_name), dict):
                return False
    return True


def _report(declared: dict[str, Any], needed: dict[str, Any]) -> dict[str, Any]:
    """What to name in `requiredCapabilities`: the bare capability, or `form` when only URL mode was declared."""
    if needed == {"elicitation": {}} and isinstance(declared.get("elicitation"), dict):
        return {"elicitation": {"form": {}}}
    return needed


def merge(into: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    for name, sub in extra.items():
        into.setdefault(name, {}).update(sub)
    return into


def missing(declared: dict[str, Any], requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The capabilities the input requests need that `declared` lacks, as one ClientCapabilities."""
    lacking: dict[str, Any] = {}
    for entry in requests.values():
        needed = required_for(entry.get("method", ""), entry.get("params") or {})
        if needed and not declares(declared, needed):
            merge(lacking, _report(declared, needed))
    return lacking


def from_meta(params: dict[str, Any] | None) -> dict[str, Any]:
    meta = (params or {}).get("_meta")
    caps = meta.get(META_CLIENT_CAPABILITIES) if isinstance(meta, dict) else None
    return caps if isinstance(caps, dict) else {}
