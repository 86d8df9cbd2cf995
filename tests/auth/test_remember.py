""""Remember": tokens kept in the OS keyring (through `keyring`) are reused by the next client, for the same
server and issuer only; nothing is written anywhere else."""

from collections.abc import Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend

from mrtr_studio.auth.flow import OAuthClient, OAuthSettings
from mrtr_studio.auth.jwt_verifier import JwtVerifier
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.auth.tokens import KEYRING_SERVICE, KeyringStore
from mrtr_studio.scenarios.demo import build_demo_server
from mrtr_studio.transport.http_host import ServerThread
from mrtr_studio.transport.http_server import HttpServerConfig

from .as_fixture import AuthServer, list_once

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


class DictKeyring(KeyringBackend):
    """A keyring in a dict: the OS keyring's interface, without touching the machine's own."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


@pytest.fixture
def ring() -> Iterator[DictKeyring]:
    previous = keyring.get_keyring()
    backend = DictKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def run(url: str, store: KeyringStore) -> None:
    list_once(url, OAuthClient(url, HeadlessRedirect(), OAuthSettings(), store=store))


def test_remembered_tokens_are_reused_by_the_next_client(ring: DictKeyring) -> None:
    with AuthServer() as issuer:
        verifier = JwtVerifier(issuer.issuer, audience="")
        config = HttpServerConfig(verifier=verifier)
        with ServerThread(build_demo_server(), config=config) as thread:
            verifier.audience = thread.url
            run(thread.url, KeyringStore())
            assert [service for service, _ in ring.items] == [KEYRING_SERVICE]
            run(thread.url, KeyringStore())  # a new process, in effect: only the keyring remembers
            assert len([r for r in issuer.requests if r["path"] == "/authorize"]) == 1
            assert len([r for r in issuer.requests if r["path"] == "/token"]) == 1
            issuer.requests.clear()
            other = AuthServer()
            with other:
                # The server moved to another authorization server (same URL, new metadata and keys).
                config.verifier = JwtVerifier(other.issuer, audience=thread.url)
                run(thread.url, KeyringStore())
            assert not issuer.requests  # the first issuer's credentials were not offered to the second
            assert [r["path"] for r in other.requests if r["path"] in ("/register", "/token")] == \
                ["/register", "/token"]


def test_without_a_usable_keyring_tokens_stay_in_memory() -> None:
    from keyring.backends.fail import Keyring as NoKeyring

    from mrtr_studio.auth.tokens import Registration, TokenSet

    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    try:
        store = KeyringStore()
        registration = Registration("https://as.test", "client-1")
        store.save("https://rs.test/mcp", registration, TokenSet("access-1234567", issuer="https://as.test"))
        assert store.problem and "unavailable" in store.problem and "access-1234567" not in store.problem
        loaded, tokens = store.load("https://rs.test/mcp", "https://as.test")
        assert loaded == registration and tokens is not None and tokens.access_token == "access-1234567"
    finally:
        keyring.set_keyring(previous)
