"""JwtVerifier on its own: keys from a file or a document, the refusals and their WWW-Authenticate."""

import asyncio
import base64
import hashlib
import hmac
import json
import time
from pathlib import Path

import pytest

from mrtr_studio.auth.jwt_verifier import JwtVerifier, TokenRejected
from mrtr_studio.auth.local_issuer import LocalIssuer

ISSUER = LocalIssuer("https://issuer.test")


def principal(verifier: JwtVerifier, token: str) -> str:
    return asyncio.run(verifier.principal(token))


def test_keys_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(ISSUER.jwks()))
    verifier = JwtVerifier(ISSUER.issuer, "aud-1", str(path))
    assert principal(verifier, ISSUER.mint("carol", "aud-1")) == "https://issuer.test#carol"


def test_a_symmetric_token_signed_with_the_public_key_is_refused() -> None:
    # Algorithm confusion: an HS256 token whose "secret" is the issuer's public key must not verify.
    # (PyJWT will not even sign such a token, so it is put together by hand.)
    public = json.dumps(ISSUER.jwks()["keys"][0]).encode()

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": ISSUER.kid}).encode())
    body = b64(json.dumps({"iss": ISSUER.issuer, "sub": "mallory", "aud": "aud-1",
                           "exp": int(time.time()) + 60}).encode())
    forged = f"{head}.{body}." + b64(hmac.new(public, f"{head}.{body}".encode(), hashlib.sha256).digest())
    with pytest.raises(TokenRejected) as refused:
        principal(JwtVerifier(ISSUER.issuer, "aud-1", ISSUER.jwks()), forged)
    assert refused.value.status == 401


def test_missing_scope_is_403_insufficient_scope_with_the_scope_needed() -> None:
    verifier = JwtVerifier(ISSUER.issuer, "aud-1", ISSUER.jwks(), required_scopes=["files:write"])
    with pytest.raises(TokenRejected) as refused:
        principal(verifier, ISSUER.mint("carol", "aud-1", scope="files:read"))
    assert (refused.value.status, refused.value.error) == (403, "insufficient_scope")
    challenge = verifier.challenge("https://rs.test/.well-known/oauth-protected-resource/mcp", refused.value)
    assert challenge.startswith('Bearer error="insufficient_scope"')
    assert 'scope="files:read files:write"' in challenge
    assert principal(verifier, ISSUER.mint("carol", "aud-1", scope="files:read files:write"))


def test_an_unknown_key_id_is_refused() -> None:
    other = LocalIssuer(ISSUER.issuer, kid="other")
    with pytest.raises(TokenRejected, match="no key 'other'"):
        principal(JwtVerifier(ISSUER.issuer, "aud-1", ISSUER.jwks()), other.mint("carol", "aud-1"))


@pytest.mark.slow
def test_an_openid_provider_without_rfc8414_metadata_has_its_keys_found_through_openid_discovery() -> None:
    """An OpenID provider may publish only /.well-known/openid-configuration: its jwks_uri is found there."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from mrtr_studio.auth.loopback_app import LoopbackApp

    host = LoopbackApp()
    issuer = LocalIssuer(host.url)
    routes = [Route("/.well-known/oauth-authorization-server", lambda request: Response(status_code=404)),
              Route("/.well-known/openid-configuration",
                    lambda request: JSONResponse({"issuer": host.url, "jwks_uri": f"{host.url}/jwks"})),
              Route("/jwks", lambda request: JSONResponse(issuer.jwks()))]
    host.start(Starlette(routes=routes))
    try:
        verifier = JwtVerifier(host.url, "aud-1")
        assert asyncio.run(verifier.principal(issuer.mint("alice", "aud-1"))) == f"{host.url}#alice"
    finally:
        host.stop()


async def _silent_jwks() -> tuple[asyncio.Server, str, list[int]]:
    """A JWKS URL on loopback that accepts connections and never answers."""
    seen: list[int] = []

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(1)
        try:
            await reader.read()  # until the client gives up and closes
        finally:
            writer.close()

    server = await asyncio.start_server(hang, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/jwks.json", seen


def test_a_silent_jwks_endpoint_is_asked_once_for_all_concurrent_requests() -> None:
    async def scenario() -> tuple[list[BaseException | str], int, int, float, BaseException | str]:
        server, url, seen = await _silent_jwks()
        async with server:
            verifier = JwtVerifier(ISSUER.issuer, "aud-1", url, timeout=0.5)
            token = ISSUER.mint("carol", "aud-1")
            started = time.monotonic()
            results = await asyncio.gather(*(verifier.principal(token) for _ in range(20)), return_exceptions=True)
            elapsed = time.monotonic() - started
            # Right after the failure, a request is refused at once without another fetch.
            again = await asyncio.gather(verifier.principal(token), return_exceptions=True)
            return results, verifier.fetches, len(seen), elapsed, again[0]

    results, fetches, connections, elapsed, again = asyncio.run(scenario())
    assert all(isinstance(r, TokenRejected) and "no answer within 0.5 s" in str(r) for r in results)
    assert fetches == 1 and connections == 1
    assert elapsed < 5.0  # one 0.5 s fetch for all, not twenty in a row under a lock
    assert isinstance(again, TokenRejected) and "unavailable" in str(again)


def test_concurrent_requests_share_one_fetch_of_a_working_jwks() -> None:
    body = json.dumps(ISSUER.jwks()).encode()

    async def scenario() -> tuple[list[str | BaseException], int, int]:
        hits: list[int] = []

        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            hits.append(1)
            await reader.readuntil(b"\r\n\r\n")
            await asyncio.sleep(0.2)  # slow enough for every request to arrive while it is under way
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
                         b"connection: close\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        async with server:
            url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/jwks.json"
            verifier = JwtVerifier(ISSUER.issuer, "aud-1", url)
            results = await asyncio.gather(*(verifier.principal(ISSUER.mint(f"u{i}", "aud-1")) for i in range(10)),
                                           return_exceptions=True)
            return results, verifier.fetches, len(hits)

    results, fetches, hits = asyncio.run(scenario())
    assert results == [f"https://issuer.test#u{i}" for i in range(10)]
    assert fetches == 1 and hits == 1
