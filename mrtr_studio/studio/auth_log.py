"""The studio's OAuth sessions: one flow per HTTP server, and the log of every exchange the Auth view draws.

A remote server that answers 401 gets the MCP authorization flow (`mrtr_studio.auth`): the system
browser opens on the authorization URL and a loopback listener takes the redirect. Tokens stay in
memory (or the OS keyring when `remember` is on), never in the trace, QSettings or logs; what the
log keeps is the flow's masked exchanges with their spec checks.
"""

import time
import webbrowser
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..auth.tokens import CredentialStore, KeyringStore, MemoryStore

if TYPE_CHECKING:  # the OAuth libraries (authlib, joserfc, httpx) load with the first flow, not at launch
    from ..auth.exchanges import Exchange
    from ..auth.flow import OAuthClient, OAuthSettings


@dataclass(frozen=True)
class AuthEntry:
    server_url: str
    exchange: "Exchange"


#: Exchanges kept for the Auth view (a server that makes the client re-authorize forever cannot grow it).
KEPT = 1000
#: Hears that a sign-in waits in the browser (server URL, authorization URL, whether a browser opened),
#: and that it ended (authorization URL None).
BrowserListener = Callable[[str, str | None, bool], None]


class AuthLog:
    def __init__(self, open_url: Callable[[str], object] = webbrowser.open) -> None:
        self.entries: deque[AuthEntry] = deque(maxlen=KEPT)
        self.remember = False
        self.open_url = open_url
        #: Server URL -> the authorization URL its sign-in waits on in the browser.
        self.waiting: dict[str, str] = {}
        self._listeners: list[Callable[[AuthEntry], None]] = []
        self._browser_listeners: list[BrowserListener] = []
        self._flows: dict[str, OAuthClient] = {}
        self._settings: dict[str, OAuthSettings] = {}
        self._memory = MemoryStore()

    def listen(self, listener: Callable[[AuthEntry], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def listen_browser(self, listener: BrowserListener) -> Callable[[], None]:
        self._browser_listeners.append(listener)
        return lambda: self._browser_listeners.remove(listener) if listener in self._browser_listeners else None

    def add(self, server_url: str, exchange: "Exchange") -> None:
        entry = AuthEntry(server_url, exchange)
        self.entries.append(entry)
        if exchange.method != "BROWSER" and self.waiting.pop(server_url, None) is not None:
            self._tell_browser(server_url, None, False)  # the redirect came back (or the flow ended)
        for listener in list(self._listeners):
            listener(entry)

    def sign_in(self, server_url: str, url: str) -> None:
        """The flow's browser step: open the system browser on the authorization URL and say it waits there
        (with whether a browser opened: without one the person needs the link itself)."""
        try:
            opened = bool(self.open_url(url))
        except Exception:  # webbrowser raises on some broken setups: the link is still shown
            opened = False
        self.waiting[server_url] = url
        self._tell_browser(server_url, url, opened)

    def _tell_browser(self, server_url: str, url: str | None, opened: bool) -> None:
        for listener in list(self._browser_listeners):
            listener(server_url, url, opened)

    def store(self) -> CredentialStore:
        return KeyringStore() if self.remember else self._memory

    def notice(self) -> str | None:
        """What the person should know about where tokens are kept (a keyring that could not be used)."""
        return next((problem for flow in self._flows.values()
                     if (problem := getattr(flow.store, "problem", None))), None)

    def flow_for(self, server_url: str, settings: "OAuthSettings | None" = None) -> "OAuthClient":
        """The flow for one server, kept for the studio's lifetime so its tokens serve every reconnection."""
        flow = self._flows.get(server_url)
        if flow is None:
            from ..auth.flow import OAuthClient
            from ..auth.redirect import LoopbackRedirect

            flow = OAuthClient(server_url, LoopbackRedirect(lambda url: self.sign_in(server_url, url)),
                               settings or self._settings.get(server_url), store=self.store(),
                               on_exchange=lambda exchange: self.add(server_url, exchange))
            self._flows[server_url] = flow
        return flow

    def settings_for(self, server_url: str) -> "OAuthSettings":
        """The client settings the next authorization with this server uses."""
        from ..auth.flow import OAuthSettings

        flow = self._flows.get(server_url)
        return flow.settings if flow is not None else self._settings.get(server_url) or OAuthSettings()

    def configure(self, server_url: str, settings: "OAuthSettings") -> None:
        """Use these client settings (a pre-registered id and secret, scopes, a machine grant) from the next
        authorization on. A flow already made keeps serving its transports: it takes the settings in place,
        and a changed client drops the registration and tokens made for the old one."""
        self._settings[server_url] = settings
        flow = self._flows.get(server_url)
        if flow is None:
            return
        before = flow.settings
        flow.settings = settings
        flow.book.add(settings.client_secret, settings.private_key_pem, settings.assertion)
        if (before.client_id, before.client_secret, before.private_key_pem, before.grant) != \
                (settings.client_id, settings.client_secret, settings.private_key_pem, settings.grant):
            self.sign_out(server_url, registration=True)

    def sign_out(self, server_url: str, registration: bool = False) -> bool:
        """Forget the tokens held for this server (and, with `registration`, the client registered there), in
        memory and in the keyring: the next request runs the flow again. False when none were held."""
        flow = self._flows.get(server_url)
        if flow is None:
            return False
        state = flow.state
        held = state.tokens is not None
        if state.discovered is not None:
            if registration or state.registration is None:
                flow.store.forget(state.discovered.resource, state.discovered.issuer)
            else:
                flow.store.save(state.discovered.resource, state.registration, None)
        state.tokens = None
        state.step_ups = 0
        if registration:
            state.registration = None
        return held

    def status(self, server_url: str) -> str:
        """One line on this server's authorization, without any secret: who the client is, what is held."""
        flow = self._flows.get(server_url)
        settings = self.settings_for(server_url)
        client = f"client {settings.client_id}" if settings.client_id else "a client registered on demand"
        grant = {"authorization_code": "browser sign-in", "client_credentials": "client credentials",
                 "jwt_bearer": "JWT bearer", "enterprise": "enterprise IdP"}[settings.grant]
        if flow is None or flow.state.tokens is None:
            registered = flow.state.registration if flow is not None else None
            known = f"; registered as {registered.client_id} ({registered.kind})" if registered else ""
            return f"Not authorized ({grant}, {client}{known}): the flow runs when the server answers 401."
        tokens = flow.state.tokens
        bits = [f"{tokens.token_type} token" + (f" for {' '.join(tokens.scope)}" if tokens.scope else "")]
        if tokens.expires_at is not None:
            left = tokens.expires_at - time.time()
            bits.append(f"expires in {left / 60:.0f} min" if left > 0 else "expired")
        if tokens.refresh_token:
            bits.append("refresh token held")
        issuer = flow.state.discovered.issuer if flow.state.discovered else tokens.issuer
        return f"Authorized by {issuer} ({grant}): " + ", ".join(bits) + "."

    def authorized(self, server_url: str) -> bool:
        """Whether the flow for this server holds a token (requests to it carry a real identity)."""
        flow = self._flows.get(server_url)
        return flow is not None and flow.state.tokens is not None

    def adopt(self, server_url: str, flow: "OAuthClient") -> None:
        """Use a flow made elsewhere (a headless one in tests, a lesson's) for this server."""
        flow.http.on_exchange = lambda exchange: self.add(server_url, exchange)
        self._flows[server_url] = flow

    async def aclose(self) -> None:
        for flow in self._flows.values():
            await flow.aclose()
        self._flows.clear()
