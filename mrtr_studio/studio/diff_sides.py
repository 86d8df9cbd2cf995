"""The sides `diff` compares, read from what is at hand: a live server's listing (interface_listing),
a saved `mrtr-studio list --json` document (a snapshot, the baseline of `check --baseline`), or a trace
file (its flows and whatever listings it recorded).

Shared by `mrtr-studio diff`, `check --baseline` and the window's Compare servers, so a file means the
same thing to each of them. Reads are bounded (MAX_LISTING_BYTES; trace files by trace/files.py);
a file that is neither is a ValueError saying so.
"""

import json
from typing import Any

from ..trace import files
from ..trace.store import link_replies
from .interface_listing import LISTINGS, Interface
from .server_diff import Side, trace_side

MAX_LISTING_BYTES = 64 * 1024 * 1024
FILE_FORMS = "trace files (.mrtr.json) or `list --json` files"


def snapshot_side(label: str, document: dict[str, Any]) -> Side:
    """A `list --json` document as a side (listings it lacks are not compared)."""
    listings = {name: value if isinstance(value := document.get(name), list) else None for name in LISTINGS}
    server = document.get("server")
    return Side(label, server if isinstance(server, dict) else {}, listings, None)


def interface_side(label: str, interface: Interface) -> Side:
    return Side(label, interface.server, interface.listings, None)


def listing_file(source: str) -> dict[str, Any] | None:
    """A saved `mrtr-studio list --json` document, or None for anything else (a trace is read elsewhere)."""
    try:
        with open(source, "rb") as handle:
            head = handle.read(MAX_LISTING_BYTES + 1)
    except OSError:
        return None
    if len(head) > MAX_LISTING_BYTES or b'"format"' in head[:200]:
        return None
    try:
        document = json.loads(head)
    except (ValueError, RecursionError):
        return None
    if isinstance(document, dict) and "tools" in document and "era" in document and "format" not in document:
        return document
    return None


def file_side(source: str) -> Side:
    """A snapshot or a trace file as a side; ValueError (why, and what is accepted) for anything else."""
    snapshot = listing_file(source)
    if snapshot is not None:
        return snapshot_side(source, snapshot)
    operations, messages = files.open_trace(source)
    return trace_side(source, operations, link_replies(sorted(messages, key=lambda m: m.seq)))
