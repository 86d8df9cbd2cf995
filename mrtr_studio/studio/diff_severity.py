"""How much an interface difference matters to a client written against the first side (A, "before").

- `breaking`: a client that worked against A may fail against B: a tool, prompt or resource removed,
  an input schema narrowed (a new required argument, a type changed, an enum value or a property
  taken away, a tighter bound or pattern, additionalProperties closed), an output schema widened the
  other way (a promised field no longer required or gone), a capability or protocol version dropped,
  a flow that now asks for an input it did not ask for, or that now ends in an error;
- `warning`: behaviour changed, maybe harmlessly (other schema edits, annotations such as
  destructiveHint, a flow with more rounds, a flow only one side recorded);
- `info`: additive or cosmetic (something added, a description, serverInfo).

`check --baseline` and `diff --exit-code` still count every difference; severity is what the report
and the window show first. Pure functions over json_diff's Differences; no I/O.
"""

from typing import Any, Literal

from .json_diff import Difference

Severity = Literal["breaking", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("breaking", "warning", "info")
#: Bounds that narrow what a schema accepts when they go down (upper) or up (lower).
_UPPER = frozenset({"maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum"})
_LOWER = frozenset({"minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum"})
_TIGHTENING = frozenset({"pattern", "format", "const", "multipleOf", "uniqueItems"})
_COSMETIC = frozenset({"description", "title", "$comment", "examples", "icons", "_meta"})


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _input_narrowed(path: tuple[str | int, ...], difference: Difference) -> bool:
    """Whether an edit at `path` inside an input schema accepts less than before."""
    if not path:
        return difference.kind != "added"
    last = path[-1]
    parent = path[-2] if len(path) >= 2 else None
    if parent == "required" or last == "required":
        return difference.kind != "removed"  # a requirement added (or the list replaced)
    if parent == "enum":
        return difference.kind == "removed" or difference.kind == "changed"
    if parent == "properties":
        return difference.kind == "removed"  # an argument the client sends is no longer known
    if last == "type":
        return True
    if last == "additionalProperties":
        return difference.right is False
    if last in _UPPER or last in _LOWER:
        if difference.kind == "added":
            return True
        if difference.kind == "removed":
            return False
        before, after = _number(difference.left), _number(difference.right)
        if before is None or after is None:
            return True
        return after < before if last in _UPPER else after > before
    if last in _TIGHTENING:
        return difference.kind != "removed"
    return False


def _output_narrowed(path: tuple[str | int, ...], difference: Difference) -> bool:
    """Whether an edit inside an output schema takes away something a client could rely on."""
    if not path:
        return difference.kind == "removed"
    last = path[-1]
    parent = path[-2] if len(path) >= 2 else None
    if parent == "required" or last == "required":
        return difference.kind != "added"
    if parent == "properties":
        return difference.kind == "removed"
    if parent == "enum":
        return difference.kind != "removed"  # a value the client has never seen
    return last == "type"


def entry_severity(listing: str, difference: Difference) -> Severity:
    """One difference inside a listing entry (a tool, prompt, resource, template or skill)."""
    path = difference.path
    if not path:
        return "warning"
    head = path[0]
    if head in _COSMETIC or (path[-1] in _COSMETIC and (len(path) < 2 or path[-2] != "properties")):
        return "info"
    if head == "inputSchema":
        return "breaking" if _input_narrowed(path[1:], difference) else \
            "info" if difference.kind == "added" and len(path) >= 3 and path[-2] == "properties" else "warning"
    if head == "outputSchema":
        return "breaking" if _output_narrowed(path[1:], difference) else "warning"
    if listing == "prompts" and head == "arguments":
        if difference.kind == "added" and isinstance(difference.right, dict):
            return "breaking" if difference.right.get("required") is True else "info"
        if difference.kind == "removed":
            return "breaking"
        if path[-1] == "required":
            return "breaking" if difference.right is True else "info"
        return "warning"
    if head in ("uri", "uriTemplate", "mimeType", "name"):
        return "breaking" if head != "mimeType" else "warning"
    return "warning"


def server_severity(field: str, difference: Difference) -> Severity:
    """A discovery difference: versions and capabilities taken away break clients; added ones do not."""
    if field in ("supportedVersions", "capabilities"):
        return "info" if difference.kind == "added" else "breaking"
    return "warning"


def removed_or_added(listing_only_in_a: bool) -> Severity:
    """A whole entry only on one side: removed (only in A) breaks clients, added does not."""
    return "breaking" if listing_only_in_a else "info"


def asked_severity(before: tuple[str, ...] | None, after: tuple[str, ...] | None) -> Severity:
    """A round asks differently: an input it did not ask before is breaking (the client must answer it)."""
    return "breaking" if set(after or ()) - set(before or ()) else "warning"


def outcome_severity(before: str, after: str) -> Severity:
    return "breaking" if before == "complete" and after != "complete" else "warning"
