"""`mrtr-studio list URL|stdio:CMD|memory: [--json]`: what a server offers — tools, prompts, resources
(and templates), skills when it lists them — through the same client session and transports as `call`.

Each listing follows `nextCursor` (at most interface_listing.MAX_PAGES pages). A listing the server does not offer
(-32601, method not found) is shown as "not offered", not as a failure; any other error is shown with
the listing it broke, and the others are still listed. Exit 0 when the server answered, 1 when it
could not be reached or its handshake failed, 2 for bad command-line input.

`fetch_interface` is also what `mrtr-studio diff` compares for a live server; the listing itself is
studio/interface_listing.py, shared with the window's Compare servers.
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from ..client import responders as R
from ..client.session import ClientSession
from ..client.settings import ClientSettings
from ..protocol.peer_text import printable
from ..studio.interface_listing import LISTING_KEYS, LISTINGS, Interface, list_interface
from ..transport.base import TransportLimits
from .check_report import terminal_text
from .targets import UsageError, make_transport


async def fetch_interface(target: str, bearer: str | None = None, era: str = "auto",
                          timeout: float | None = None) -> Interface:
    """List everything `target` offers (ConnectionError/TransportError when it cannot be reached)."""
    limits = TransportLimits(idle_timeout=timeout) if timeout else TransportLimits()
    transport, label = make_transport(target, bearer, limits)
    settings = ClientSettings(era=era, bearer_token=bearer, user=bearer or "", limits=limits)  # type: ignore[arg-type]
    session = ClientSession(transport, settings, R.compose(), server_label=label)
    try:
        return await list_interface(session, target)
    finally:
        await session.close()


def _line(entry: dict[str, Any], key: str) -> str:
    name = str(entry.get(key) or entry.get("name") or "?")
    described = str(entry.get("description") or entry.get("title") or "").split("\n")[0]
    extra = ""
    if key == "name" and isinstance(entry.get("arguments"), list):
        extra = "(" + ", ".join(str(a.get("name")) + ("" if a.get("required") else "?")
                                for a in entry["arguments"] if isinstance(a, dict)) + ")"
    if isinstance(entry.get("annotations"), dict) and entry["annotations"]:
        hints = [k for k, v in entry["annotations"].items() if v is True]
        extra += f" [{', '.join(hints)}]" if hints else ""
    if key == "uri" and entry.get("name") and entry.get("name") != name:
        extra += f" {entry['name']}"
    return terminal_text(f"  {name}{extra}" + (f" — {described[:200]}" if described else ""))


def describe(interface: Interface) -> str:
    info = interface.server.get("serverInfo") or {}
    lines = [terminal_text(f"server: {info.get('name', '?')} {info.get('version', '')} (era {interface.era})")]
    for name, entries in interface.listings.items():
        title = {"resourceTemplates": "resource templates"}.get(name, name)
        if entries is None:
            why = interface.problems.get(name)
            lines.append(f"{title}: " + (terminal_text(f"failed: {why}") if why else "not offered"))
            continue
        lines.append(f"{title} ({len(entries)}):")
        lines += [_line(entry, LISTING_KEYS[name]) for entry in entries]
    if "server" in interface.problems:
        lines.append(terminal_text(f"server/discover failed: {interface.problems['server']}"))
    return "\n".join(lines) + "\n"


def run_list(args: argparse.Namespace) -> int:
    if args.timeout is not None and args.timeout <= 0:
        print("mrtr-studio list: --timeout must be positive", file=sys.stderr)
        return 2
    try:
        interface = asyncio.run(fetch_interface(args.url, args.bearer, args.era, args.timeout))
    except UsageError as exc:
        print(f"mrtr-studio list: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # cannot connect, the handshake failed: one line, never a traceback
        print(f"mrtr-studio list: {printable(f'{type(exc).__name__}: {exc}', 4000)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(interface.to_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(describe(interface))
    return 0


__all__ = ["LISTINGS", "Interface", "fetch_interface", "run_list"]
