"""The studio against an OAuth-protected server: the flow runs on 401 (here with a headless redirect instead of
the browser), the run completes, and the Auth log has every exchange with its checks; the browser path
opens the authorization URL and takes the redirect on a loopback listener."""

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from mrtr_studio.auth.flow import OAuthClient
from mrtr_studio.auth.redirect import HeadlessRedirect
from mrtr_studio.studio.auth_log import AuthLog
from mrtr_studio.studio.controller import Studio
from mrtr_studio.studio.server_entries import http_entry

from .as_fixture import AuthServer
from .as_fixture import protected as protected_by

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
def protected() -> Iterator[tuple[str, AuthServer]]:
    with AuthServer() as issuer, protected_by(issuer) as (url, _):
        yield url, issuer


def test_the_studio_authorizes_then_runs(protected: tuple[str, AuthServer]) -> None:
    url, issuer = protected

    async def go() -> tuple[object, object]:
        studio = Studio()
        studio.auth.adopt(url, OAuthClient(url, HeadlessRedirect()))
        try:
            assert studio.identity_shown() == "anonymous"
            catalog = await studio.connect(http_entry(url))
            assert studio.identity_shown() == "OAuth"  # the operations list says whose requests these are
            result = await studio.run("tools/call", "delete_file", {"path": "/a"})
            drawn.extend(m.method for m in studio.store.messages if m.kind == "auth" and m.round == 0)
            return catalog, result
        finally:
            await studio.close()
            studio_log.extend(studio.auth.entries)

    studio_log: list = []
    drawn: list = []
    catalog, result = asyncio.run(go())
    assert catalog is not None and result is not None and result.drive.ok, studio_log
    phases = [entry.exchange.phase for entry in studio_log]
    assert phases[0] == "protected resource metadata" and "token request" in phases
    assert all(check.passed for entry in studio_log for check in entry.exchange.checks)
    assert len([r for r in issuer.requests if r["path"] == "/authorize"]) == 1  # one authorization, many requests
    # The flow ran while connecting; the first call's trace draws it before its rounds.
    assert drawn == ["challenge", *phases], drawn


def test_the_browser_path_opens_the_url_and_takes_the_loopback_redirect(protected: tuple[str, AuthServer]) -> None:
    url, issuer = protected
    opened: list[str] = []

    def browser(link: str) -> None:  # a browser: follow the authorization redirect back to the loopback URI
        opened.append(link)

        async def visit() -> None:
            async with httpx.AsyncClient(follow_redirects=True) as client:
                await client.get(link)

        asyncio.get_running_loop().create_task(visit())

    log = AuthLog(open_url=browser)

    async def go() -> list[str]:
        from mrtr_studio.client import responders as R
        from mrtr_studio.client.session import ClientSession
        from mrtr_studio.client.settings import ClientSettings
        from mrtr_studio.transport.http_client import HttpClientTransport

        session = ClientSession(HttpClientTransport(url, auth=log.flow_for(url)), ClientSettings(), R.compose(),
                                server_label=url)
        try:
            return [tool["name"] for tool in await session.list_tools()]
        finally:
            await session.close()
            await log.aclose()

    assert "delete_file" in asyncio.run(go())
    assert len(opened) == 1 and opened[0].startswith(f"{issuer.issuer}/authorize?")
    redirect = next(e.exchange for e in log.entries if e.exchange.phase == "authorization response")
    assert redirect.url.startswith("http://127.0.0.1:") and "code=***" in redirect.url
