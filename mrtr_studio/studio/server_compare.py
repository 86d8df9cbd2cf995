"""Compare servers, for the window: two sides read without blocking the event loop, then the same
interface diff `mrtr-studio diff` runs (server_diff.compare, report_text, diff_report_files).

A side is the current connection (its server, as its identity, through the window's own transport
factory: the embedded engine, HTTP with the OAuth flow, stdio), this window's trace (its flows), or
any of the command line's forms typed in: `http(s)://…`, `stdio:COMMAND ARGS`, `memory:` (here: the
window's embedded engine), or a file (a trace or a `list --json` snapshot). Both sides are read
concurrently, each within `timeout` seconds (defaults.COMPARE_TIMEOUT); files are parsed, and the
diff computed, in a worker thread. A side that cannot be read is a CompareError naming it, in one
line, for the view to show inline.
"""

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .. import defaults
from ..client import responders as R
from ..client.session import ClientSession
from ..client.settings import ClientSettings
from ..trace import TraceStore
from ..transport.base import TransportLimits
from .connection import Connection, connect_error
from .diff_sides import FILE_FORMS, file_side, interface_side
from .identities import Identity
from .interface_listing import list_interface
from .server_diff import DiffReport, Side, compare, trace_side
from .server_entries import ServerEntry, target_entry

SourceKind = Literal["connection", "trace", "server", "file"]
FORMS = f"http(s)://…, stdio:COMMAND, memory:, or the path of one of the {FILE_FORMS}"


class CompareError(Exception):
    """One side could not be read: what to show next to it."""


@dataclass(frozen=True)
class CompareSource:
    kind: SourceKind
    #: The server entry (kind "server") or the file's path (kind "file").
    entry: ServerEntry | None = None
    path: str = ""
    text: str = ""

    @property
    def label(self) -> str:
        return {"connection": "the current connection", "trace": "this window's trace"}.get(self.kind) or self.text


CURRENT = CompareSource("connection")
THIS_TRACE = CompareSource("trace")


def parse_source(text: str) -> CompareSource:
    """The command line's target forms (cli/targets.py), or a file; ValueError saying what is accepted."""
    text = text.strip()
    if not text:
        raise ValueError(f"nothing typed: use {FORMS}")
    try:
        entry = target_entry(text)
    except ValueError as exc:  # stdio: without a command, an unclosed quote
        raise ValueError(f"{text}: {exc}") from exc
    if entry is not None:
        return CompareSource("server", entry=entry, text=text)
    if not Path(text).is_file():
        raise ValueError(f"{text!r} is not a server or a file: use {FORMS}")
    return CompareSource("file", path=text, text=text)


class ServerCompare:
    """Reads sides for the window (its connection and its trace) and compares them."""

    def __init__(self, connection: Connection, store: TraceStore) -> None:
        self.connection = connection
        self.store = store

    async def compare(self, a: CompareSource, b: CompareSource,
                      timeout: float = defaults.COMPARE_TIMEOUT) -> DiffReport:
        """Both sides read at once; CompareError saying what failed on each side that failed ("A: …; B: …")."""
        sides = await asyncio.gather(self.side(a, timeout), self.side(b, timeout), return_exceptions=True)
        failed = []
        for name, side in zip("AB", sides, strict=True):
            if isinstance(side, BaseException):
                if not isinstance(side, CompareError):
                    raise side
                failed.append(f"{name}: {side}")
        if failed:
            raise CompareError("; ".join(failed))
        left, right = sides
        assert isinstance(left, Side) and isinstance(right, Side)
        return await asyncio.to_thread(compare, left, right)

    async def side(self, source: CompareSource, timeout: float) -> Side:
        label = source.label
        if source.kind == "trace":
            operations, messages = list(self.store.operations), list(self.store.messages)
            return await asyncio.to_thread(trace_side, label, operations, messages)
        if source.kind == "file":
            try:
                return await asyncio.to_thread(file_side, source.path)
            except ValueError as exc:
                raise CompareError(f"{exc} (a side is {FORMS})") from exc
        entry = self.connection.entry if source.kind == "connection" else source.entry
        identity = self.connection.identity if source.kind == "connection" else Identity("anonymous")
        if entry is None:
            raise CompareError(f"{label}: no server given")
        if source.kind == "connection":
            label = f"{entry.label} (current connection)"
        try:
            async with asyncio.timeout(timeout):
                return await self._listed(entry, identity, label, timeout)
        except TimeoutError:
            raise CompareError(f"{label}: no answer within {timeout:g} s") from None
        except Exception as exc:  # unreachable, a failed handshake, a broken listing: one line
            raise CompareError(connect_error(label, exc)) from exc

    async def _listed(self, entry: ServerEntry, identity: Identity, label: str, timeout: float) -> Side:
        transport = await self.connection.transport_factory(entry, identity, self.connection.host)
        limits = TransportLimits(idle_timeout=timeout, request_timeout=timeout)
        settings = ClientSettings(era="auto", bearer_token=identity.bearer, user=identity.user, limits=limits)
        session = ClientSession(transport, settings, R.compose(), server_label=label)
        try:
            return interface_side(label, await list_interface(session, label))
        finally:
            await session.close()
