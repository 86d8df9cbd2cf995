"""The OAuth demo: the demo engine served on loopback behind the demo authorization server.

`--scenario oauth` opens the studio connected to it: the first request is refused with 401, and the
whole MCP authorization flow (metadata, registration, sign-in, token) runs and is drawn before the MRTR
rounds it unlocks. The demo authority signs in without asking, so the flow follows its redirect itself
(no browser). Both servers stop with the demo.
"""

from ..auth.demo_authority import DemoAuthority
from ..auth.flow import OAuthClient
from ..auth.jwt_verifier import JwtVerifier
from ..auth.redirect import HeadlessRedirect
from ..scenarios.demo import build_demo_server
from ..transport.http_host import ServerThread
from ..transport.http_server import HttpServerConfig
from .server_entries import ServerEntry, http_entry

SCENARIO = "oauth"


class ProtectedDemo:
    def __init__(self, subject: str = "alice") -> None:
        self.authority = DemoAuthority(subject)
        self._thread: ServerThread | None = None
        self.url = ""

    def start(self) -> str:
        self.authority.start()
        verifier = JwtVerifier(self.authority.issuer, "", self.authority.jwks())
        self._thread = ServerThread(build_demo_server(), config=HttpServerConfig(verifier=verifier))
        try:
            self.url = self._thread.start()
        except BaseException:
            self.authority.stop()
            raise
        verifier.audience = self.url  # the resource the client asks its token for
        return self.url

    def stop(self) -> None:
        if self._thread is not None:
            self._thread.stop()
        self.authority.stop()

    def entry(self) -> ServerEntry:
        return http_entry(self.url, name="OAuth demo")

    def flow(self) -> OAuthClient:
        """The client's flow for the demo: it follows the demo authority's redirect itself."""
        return OAuthClient(self.url, HeadlessRedirect())
