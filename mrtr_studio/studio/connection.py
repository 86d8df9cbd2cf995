"""The connection: which server (a ServerEntry), as which client (era, capabilities, identity), the
client session over it and the catalog it listed. It opens a client transport for an entry (in memory
to the embedded engine, Streamable HTTP, or stdio), and says in one sentence why a connection failed.

A failed connect is reported once: the four listings failing with the same server error become one
message, and a transport error that already names the server is not wrapped in a second "cannot
connect to ..." (people read the first clause and stop).
"""

import contextlib
import os
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .. import defaults
from ..client.driver import Respond
from ..client.session import ClientSession
from ..client.settings import ALL_CAPABILITIES, CAPABILITY_FLAGS, ClientSettings, EraChoice
from ..engine import McpServer
from ..trace import TraceStore
from ..transport.base import ClientTransport, TransportError
from ..transport.memory import MemoryTransport
from .auth_log import AuthLog
from .events import Catalog, CatalogChanged, Events, Notice
from .identities import IDENTITY_PRESETS, Identity
from .server_entries import EMBEDDED, ServerEntry


class TransportHost(Protocol):
    """What opening a transport needs: the embedded engine and the OAuth flows (the Studio has both)."""

    engine: McpServer
    auth: AuthLog


TransportFactory = Callable[[ServerEntry, Identity, Any], Awaitable[ClientTransport]]


async def default_transport_factory(entry: ServerEntry, identity: Identity, studio: TransportHost) -> ClientTransport:
    if entry.kind == "embedded":
        return MemoryTransport(studio.engine, user=identity.user)
    if entry.kind == "http":
        from ..transport.http_client import HttpClientTransport  # httpx loads with the first HTTP server

        # No static token: a 401 runs the OAuth flow (the Auth view shows each of its exchanges).
        auth = None if identity.bearer else studio.auth.flow_for(entry.url)
        return HttpClientTransport(entry.url, bearer_token=identity.bearer, headers=entry.headers, auth=auth)
    if entry.kind == "stdio":
        from ..transport.stdio_client import StdioClientTransport

        stdio = StdioClientTransport([entry.command, *entry.args],
                                     env={**os.environ, **entry.env} if entry.env else None, cwd=entry.cwd)
        await stdio.start()
        return stdio
    raise ValueError(f"unknown connection kind {entry.kind!r}")


#: Failures whose message is the explanation itself; any other exception keeps its type name.
_PLAIN_FAILURES = (TransportError, ConnectionError, RuntimeError, TimeoutError, OSError, ValueError)


def connect_error(label: str, exc: BaseException) -> str:
    """"cannot connect to LABEL: why", said once."""
    text = str(exc).strip() or type(exc).__name__
    if not isinstance(exc, _PLAIN_FAILURES):
        text = f"{type(exc).__name__}: {text}"
    prefix = f"cannot connect to {label}"
    if text.startswith(prefix):
        return text
    return f"{prefix}: {text}"


def listing_failure(failures: list[tuple[str, str, str]]) -> str:
    """Why no listing worked, from (what, method, error text); one reason when they all say the same."""
    reasons = [text.removeprefix(f"{method}: ") for _what, method, text in failures]
    if reasons and all(reason == reasons[0] for reason in reasons):
        return f"the server answered every listing ({', '.join(m for _w, m, _t in failures)}) with {reasons[0]}"
    return "no listing worked: " + "; ".join(f"{what}: {reason}" for (what, _m, _t), reason in
                                            zip(failures, reasons, strict=True))


async def close_all(transports: Any) -> None:
    for transport in list(transports):
        with contextlib.suppress(Exception):
            await transport.close()


class Connection:
    """The current server, the client's settings, the session over it and what the server offers.

    Settings changed while a session is open mark it stale: the next run builds a fresh client (a
    running one keeps its settings)."""

    def __init__(self, host: TransportHost, store: TraceStore, events: Events, answer: Respond,
                 transport_factory: TransportFactory | None = None) -> None:
        self.host = host
        self.store = store
        self.events = events
        self.answer = answer
        self.transport_factory: TransportFactory = transport_factory or default_transport_factory
        self.entry: ServerEntry = EMBEDDED
        self.era: EraChoice = "modern"
        self.capabilities: frozenset[str] = ALL_CAPABILITIES
        self.identity: Identity = IDENTITY_PRESETS["anonymous"]
        #: Rounds before the client gives up (a collection's call may ask for another limit while it runs).
        self.max_rounds = defaults.ROUND_LIMIT
        self.catalog: Catalog | None = None
        self.session: ClientSession | None = None
        self.stale = False

    # --- the client's settings -------------------------------------------------------------------

    def client_settings(self) -> ClientSettings:
        return ClientSettings(era=self.era, capabilities=self.capabilities, bearer_token=self.identity.bearer,
                              user=self.identity.user, max_rounds=self.max_rounds)

    def set_era(self, era: EraChoice) -> None:
        if era not in ("modern", "legacy", "auto"):
            raise ValueError(f"unknown era {era!r}")
        self.era = era
        self._changed(f"era: {era}")

    def set_capabilities(self, flags: set[str] | frozenset[str]) -> None:
        unknown = set(flags) - set(CAPABILITY_FLAGS)
        if unknown:
            raise ValueError(f"unknown capabilities: {', '.join(sorted(unknown))}")
        self.capabilities = frozenset(flags)
        self._changed("capabilities: " + (", ".join(sorted(flags)) or "none"))

    def set_identity(self, identity: Identity | str) -> None:
        self.identity = IDENTITY_PRESETS[identity] if isinstance(identity, str) else identity
        self._changed(f"identity: {self.identity.name}")

    def identity_shown(self) -> str:
        """Who the requests speak for, as the operations list says it: "OAuth" when no static token is set
        and the server's authorization flow holds one."""
        entry = self.entry
        if entry.kind == "http" and not self.identity.bearer and self.host.auth.authorized(entry.url):
            return "OAuth"
        return self.identity.name

    def _changed(self, text: str) -> None:
        self.stale = True
        self.events.emit(Notice("settings", text))

    def switch_live_identity(self, identity: Identity) -> None:
        """Send the next request of the running flow as `identity` (the Tamper menu's other identity)."""
        transport: Any = self.session.transport if self.session else None
        if transport is not None and hasattr(transport, "user"):
            transport.user = identity.user
        if transport is not None and hasattr(transport, "bearer_token"):
            transport.bearer_token = identity.bearer  # HTTP: the next request carries the other token
        self.stale = True  # the next run goes back to the identity picked in the client panel

    # --- the session -----------------------------------------------------------------------------

    async def client(self) -> ClientSession:
        if self.session is not None and self.stale:
            await self.drop_session()
        if self.session is None:
            transport: ClientTransport = await self.transport_factory(self.entry, self.identity, self.host)
            label = "embedded" if self.entry.kind == "embedded" else self.entry.label
            self.session = ClientSession(transport, self.client_settings(), self.answer, self.store,
                                         server_label=label)
            self.stale = False
        return self.session

    async def drop_session(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()

    async def connect(self, entry: ServerEntry | None = None) -> Catalog | None:
        """Connect (or reconnect) and list what the server offers; a failure is an error event and None."""
        if entry is not None:
            if entry.problem:
                self.events.error(f"{entry.label}: {entry.problem}")
                return None
            self.entry = entry
        await self.drop_session()
        try:
            catalog = await self._list(await self.client())
        except Exception as exc:
            await self.drop_session()
            self.catalog = None
            self.events.error(connect_error(self.entry.label, exc))
            return None
        self.catalog = catalog
        self.events.emit(CatalogChanged(catalog))
        return catalog

    async def open_transports(self, entry: ServerEntry, identities: list[Identity]) -> dict[str, ClientTransport]:
        """One fresh transport per identity name (the lab's, the eras view's), besides the session's own;
        on a failure the ones already open are closed again. The caller closes them (`close_all`)."""
        opened: dict[str, ClientTransport] = {}
        try:
            for identity in identities:
                if identity.name not in opened:
                    opened[identity.name] = await self.transport_factory(entry, identity, self.host)
        except BaseException:
            await close_all(opened.values())
            raise
        return opened

    async def _list(self, session: ClientSession) -> Catalog:
        era = await session.ensure_era()
        catalog = Catalog(self.entry.label, era.value, server_info=dict(session.server_info))
        failures: list[tuple[str, str, str]] = []
        for attr, method, lister in (("tools", "tools/list", session.list_tools),
                                     ("prompts", "prompts/list", session.list_prompts),
                                     ("resources", "resources/list", session.list_resources),
                                     ("templates", "resources/templates/list", session.list_resource_templates)):
            try:
                setattr(catalog, attr, await lister())
            except RuntimeError as exc:  # a JSON-RPC error: this server just lacks that listing
                catalog.problems.append(f"{attr}: {exc}")
                failures.append((attr, method, str(exc)))
        if len(failures) == 4:
            raise ConnectionError(listing_failure(failures))
        rejected = getattr(session.transport, "rejected_tools", {})
        catalog.problems += [f"tool {name!r} left out: its x-mcp-header annotations are invalid ({why})"
                             for name, why in rejected.items()]
        return catalog
