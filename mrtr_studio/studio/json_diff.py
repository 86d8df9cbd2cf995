"""Where two JSON values differ, as a flat list of paths: what the flow comparison marks.

Objects are compared key by key and arrays item by item, so a changed argument shows as
`params.arguments.path` rather than "the message changed". The walk is bounded in depth and in
the number of differences it reports, since traces hold whatever peers sent.
"""

from dataclasses import dataclass
from typing import Any, Literal

MAX_DEPTH = 64
MAX_DIFFERENCES = 500
Path = tuple[str | int, ...]
ChangeKind = Literal["added", "removed", "changed"]
_MISSING = object()


@dataclass(frozen=True)
class Difference:
    path: Path
    kind: ChangeKind
    left: Any = None
    right: Any = None

    @property
    def dotted(self) -> str:
        """`params.arguments.path`, `content[0].text`: the path as a reader writes it."""
        text = ""
        for part in self.path:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
        return text or "(whole value)"


def json_diff(left: Any, right: Any, *, ignore: frozenset[Path] = frozenset(),
              limit: int = MAX_DIFFERENCES) -> list[Difference]:
    """Every path where `left` and `right` differ (at most `limit`), paths in `ignore` skipped."""
    found: list[Difference] = []
    _walk(left, right, (), ignore, found, limit)
    return found


def _walk(left: Any, right: Any, path: Path, ignore: frozenset[Path], found: list[Difference], limit: int) -> None:
    if len(found) >= limit or path in ignore:
        return
    if left is _MISSING:
        found.append(Difference(path, "added", None, right))
        return
    if right is _MISSING:
        found.append(Difference(path, "removed", left, None))
        return
    if len(path) >= MAX_DEPTH:
        if left != right:
            found.append(Difference(path, "changed", left, right))
        return
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [k for k in right if k not in left]:
            _walk(left.get(key, _MISSING), right.get(key, _MISSING), (*path, str(key)), ignore, found, limit)
        return
    if isinstance(left, list) and isinstance(right, list):
        for i in range(max(len(left), len(right))):
            _walk(left[i] if i < len(left) else _MISSING, right[i] if i < len(right) else _MISSING,
                  (*path, i), ignore, found, limit)
        return
    if type(left) is not type(right) or left != right:
        found.append(Difference(path, "changed", left, right))
