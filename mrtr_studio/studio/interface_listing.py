"""What a server offers, listed over an open client session: discovery and every listing (tools,
prompts, resources, resource templates, skills), each following `nextCursor` (at most MAX_PAGES pages).

Kept below the command line so `mrtr-studio list`, `diff`, `check --baseline` and the window's
Compare servers (studio/server_compare.py) list a server the same way: a listing the server does not
offer (-32601) is None, any other failure is None with its reason in `problems`, and the others are
still listed.
"""

from dataclasses import dataclass, field
from typing import Any

from ..client.session import ClientSession
from ..protocol.errors import METHOD_NOT_FOUND

MAX_PAGES = 100
#: Listing name -> (method, key of the entries in its result).
LISTINGS = {"tools": ("tools/list", "tools"), "prompts": ("prompts/list", "prompts"),
            "resources": ("resources/list", "resources"),
            "resourceTemplates": ("resources/templates/list", "resourceTemplates"), "skills": ("skills/list", "skills")}
#: Listing name -> the field that names an entry (what two interfaces' entries are paired by).
LISTING_KEYS = {"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate",
                "skills": "uri"}


@dataclass
class Interface:
    """A server's interface as listed: each listing's entries, or None when it is not offered."""

    target: str
    era: str
    server: dict[str, Any] = field(default_factory=dict)
    listings: dict[str, list[dict[str, Any]] | None] = field(default_factory=dict)
    #: Listing -> why it failed (not "not offered": that is a None listing).
    problems: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "era": self.era, "server": self.server, **self.listings,
                "problems": self.problems}


class _NotOffered(Exception):
    pass


async def _listing(session: ClientSession, method: str, key: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor: Any = None
    for _ in range(MAX_PAGES):
        try:
            result = await session.request(method, {"cursor": cursor} if cursor is not None else {})
        except RuntimeError as exc:
            if str(exc).startswith(f"{method}: {METHOD_NOT_FOUND} "):
                raise _NotOffered from exc
            raise
        page = result.get(key, [])
        if not isinstance(page, list) or not all(isinstance(entry, dict) for entry in page):
            raise RuntimeError(f"{method}: {key} is not a list of objects")
        entries += page
        cursor = result.get("nextCursor")
        if cursor is None:
            return entries
        if not isinstance(cursor, str):
            raise RuntimeError(f"{method}: nextCursor is {cursor!r}, not a string")
    raise RuntimeError(f"{method}: still more after {MAX_PAGES} pages; the listing is cut there")


async def list_interface(session: ClientSession, target: str) -> Interface:
    """Everything the session's server offers (ConnectionError/TransportError when it cannot be reached).
    The caller owns the session and closes it."""
    chosen = await session.ensure_era()
    interface = Interface(target, chosen.value)
    if chosen.value == "modern":
        try:
            discovered = await session.request("server/discover")
            interface.server = {k: v for k, v in discovered.items() if k != "_meta"}
        except RuntimeError as exc:
            interface.problems["server"] = str(exc)
        interface.server["serverInfo"] = session.server_info
    else:
        interface.server = {"serverInfo": session.server_info, "protocolVersion": session.legacy_version}
    for name, (method, key) in LISTINGS.items():
        try:
            interface.listings[name] = await _listing(session, method, key)
        except _NotOffered:
            interface.listings[name] = None
        except RuntimeError as exc:
            interface.listings[name] = None
            interface.problems[name] = str(exc)
    return interface
