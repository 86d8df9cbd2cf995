"""The studio's OAuth sessions: one flow per HTTP server, and the log of every exchange the Auth view draws.

A remote server that answers 401 gets the MCP authorization flow (`mrtr_studio.auth`): the system
browser opens on the authorization URL and a loopback listener takes the redirect. Tokens stay in
memory (or the OS keyring when `remember` is on), never in the trace, QSettings or logs; what the
log keeps is the flow's masked exchanges with their spec checks.
"""

import webbrowser
from collections.abc import Callable
from dataclasses import dataclass

from ..auth.exchanges import Exchange
from ..auth.flow import OAuthClient, OAuthSettings
from ..auth.redirect import LoopbackRedirect
from ..auth.tokens import CredentialStore, KeyringStore, MemoryStore


@dataclass(frozen=True)
class AuthEntry:
    server_url: str
    exchange: Exchange


class AuthLog:
    def __init__(self, open_url: Callable[[str], object] = webbrowser.open) -> None:
        self.entries: list[AuthEntry] = []
        self.remember = False
        self.open_url = open_url
        self._listeners: list[Callable[[AuthEntry], None]] = []
        self._flows: dict[str, OAuthClient] = {}
        self._memory = MemoryStore()

    def listen(self, listener: Callable[[AuthEntry], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def add(self, server_url: str, exchange: Exchange) -> None:
        entry = AuthEntry(server_url, exchange)
        self.entries.append(entry)
        for listener in list(self._listeners):
            listener(entry)

    def store(self) -> CredentialStore:
        return KeyringStore() if self.remember else self._memory

    def notice(self) -> str | None:
        """What the person should know about where tokens are kept (a keyring that could not be used)."""
        return next((problem for flow in self._flows.values()
                     if (problem := getattr(flow.store, "problem", None))), None)

    def flow_for(self, server_url: str, settings: OAuthSettings | None = None) -> OAuthClient:
        """The flow for one server, kept for the studio's lifetime so its tokens serve every reconnection."""
        flow = self._flows.get(server_url)
        if flow is None:
            flow = OAuthClient(server_url, LoopbackRedirect(lambda url: self.open_url(url)), settings,
                               store=self.store(), on_exchange=lambda exchange: self.add(server_url, exchange))
            self._flows[server_url] = flow
        return flow

    def authorized(self, server_url: str) -> bool:
        """Whether the flow for this server holds a token (requests to it carry a real identity)."""
        flow = self._flows.get(server_url)
        return flow is not None and flow.state.tokens is not None

    def adopt(self, server_url: str, flow: OAuthClient) -> None:
        """Use a flow made elsewhere (a headless one in tests, a lesson's) for this server."""
        flow.http.on_exchange = lambda exchange: self.add(server_url, exchange)
        self._flows[server_url] = flow

    async def aclose(self) -> None:
        for flow in self._flows.values():
            await flow.aclose()
        self._flows.clear()
