"""The client's configured roots and the ListRootsResult built from them.

The spec says a root's uri MUST be a `file://` URI for now; the editor checks each entry with
`root_problem` so a person cannot configure something a server would have to reject.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mrtr_studio.protocol.models import Root


def root_problem(uri: str) -> str | None:
    """Why `uri` is not an acceptable root, or None when it is."""
    if not uri.startswith("file://"):
        return "A root must be a file:// URI."
    if any(c.isspace() for c in uri):
        return "Spaces must be percent-encoded (%20)."
    try:
        parts = urlsplit(uri)
    except ValueError as exc:
        return f"Not a valid URI: {exc}"
    if parts.netloc not in ("", "localhost"):
        return f"Only local files are allowed (host {parts.netloc!r})."
    if not parts.path.startswith("/"):
        return "The path must be absolute, like file:///home/user/project."
    if parts.query or parts.fragment:
        return "A root may not have a query or fragment."
    return None


def path_to_uri(path: str | Path) -> str:
    """A local directory as a root URI (absolute, percent-encoded)."""
    return Path(path).expanduser().resolve().as_uri()


def make_root(uri: str, name: str | None = None) -> "Root":
    from mrtr_studio.protocol.models import Root  # pydantic with the first answer built, not at every launch

    problem = root_problem(uri)
    if problem:
        raise ValueError(f"{uri}: {problem}")
    return Root(uri=uri, name=name or None)


def list_roots_result(roots: "Iterable[Root | dict[str, Any] | tuple[str, str | None]]") -> dict[str, Any]:
    """The ListRootsResult wire dict; raises ValueError naming the first invalid root."""
    from mrtr_studio.protocol.models import (  # pydantic with the first answer built, not at every launch
        ListRootsResult,
        Root,
    )

    built = []
    for entry in roots:
        if isinstance(entry, Root):
            built.append(make_root(entry.uri, entry.name))
        elif isinstance(entry, dict):
            built.append(make_root(str(entry.get("uri", "")), entry.get("name")))
        else:
            built.append(make_root(entry[0], entry[1]))
    return ListRootsResult(roots=built).wire()
