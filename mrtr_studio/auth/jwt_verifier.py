"""The server's side: bearer JWT access tokens checked against the issuer's keys (`serve --auth jwt`).

A token is accepted when its signature verifies with a key of the issuer's JWKS (fetched from a URL,
bounded in size and time, cached, re-fetched once when an unknown `kid` arrives, or read from a file),
and where a JWKS endpoint is slow or silent, requests must not queue behind it: one fetch at a time
(concurrent requests await that same fetch, single-flight), a short overall deadline, and after a
failure no new fetch for `RETRY_AFTER` seconds (requests meanwhile get the failure at once).
it has not expired, its `aud` names this server's audience and its `iss` is the configured issuer.
The principal is `iss` + "#" + `sub`, so a requestState minted for one subject is refused for another
(and the same `sub` at two issuers are two principals). Refusals carry the spec's WWW-Authenticate:
401 `invalid_token` with `resource_metadata`, 403 `insufficient_scope` with the scope needed.
PyJWT does the JOSE work; nothing here parses or verifies signatures by hand.
"""

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt

MAX_JWKS = 256 * 1024
JWKS_TTL = 300.0
#: Seconds after a failed fetch (and with no keys held) during which requests are refused without one.
RETRY_AFTER = 5.0
#: Asymmetric algorithms only: an HMAC "alg" would let a public key act as a shared secret.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
PRM_PATH = "/.well-known/oauth-protected-resource"


class TokenRejected(Exception):
    def __init__(self, status: int, error: str, description: str, scope: list[str] | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.scope = scope


@dataclass
class JwtVerifier:
    issuer: str
    audience: str
    #: JWKS URL, file or document (a dict); None: the issuer's metadata (RFC 8414 `jwks_uri`).
    jwks: str | dict[str, Any] | None = None
    required_scopes: list[str] = field(default_factory=list)
    leeway: float = 30.0
    #: Seconds for one whole key fetch (the issuer's metadata and its JWKS).
    timeout: float = 3.0
    #: More `aud` values accepted besides `audience` (`serve --audience` repeated): the server's own URL
    #: and a proxy's, say. `audience` stays the resource the metadata advertises.
    also_accepted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._keys: jwt.PyJWKSet | None = None
        self._fetched = float("-inf")
        #: The fetch under way, awaited by every request that needs it.
        self._inflight: asyncio.Task[None] | None = None
        self._failure: str | None = None
        #: How many fetches were started (what tests count).
        self.fetches = 0

    # --- what the HTTP server serves and answers ------------------------------------------------

    def metadata(self, resource: str) -> dict[str, Any]:
        """This server's Protected Resource Metadata (RFC 9728)."""
        document: dict[str, Any] = {"resource": resource, "authorization_servers": [self.issuer],
                                    "bearer_methods_supported": ["header"]}
        if self.required_scopes:
            document["scopes_supported"] = list(self.required_scopes)
        return document

    def challenge(self, metadata_url: str, rejected: TokenRejected | None = None) -> str:
        """The WWW-Authenticate value for a refusal (none yet: only where to find the metadata)."""
        parts = [f'resource_metadata="{metadata_url}"']
        scope = rejected.scope if rejected and rejected.scope else self.required_scopes
        if scope:
            parts.append(f'scope="{" ".join(scope)}"')
        if rejected is not None:
            description = rejected.description.replace("\\", "").replace('"', "'")
            parts = [f'error="{rejected.error}"', f'error_description="{description}"', *parts]
        return "Bearer " + ", ".join(parts)

    # --- the check --------------------------------------------------------------------------------

    async def principal(self, token: str) -> str:
        """The principal of a valid token; TokenRejected (401 or 403) for anything else."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRejected(401, "invalid_token", "the token is not a JWT") from None
        key = await self._key(header.get("kid"))
        try:
            claims = jwt.decode(token, key.key, algorithms=ALGORITHMS, audience=[self.audience, *self.also_accepted],
                                issuer=self.issuer, leeway=self.leeway,
                                options={"require": ["exp", "iss", "aud", "sub"]})
        except jwt.ExpiredSignatureError:
            raise TokenRejected(401, "invalid_token", "the token has expired") from None
        except jwt.InvalidAudienceError:
            raise TokenRejected(401, "invalid_token", "the token is not for audience "
                                + " or ".join([self.audience, *self.also_accepted])) from None
        except jwt.InvalidIssuerError:
            raise TokenRejected(401, "invalid_token", f"the token was not issued by {self.issuer}") from None
        except jwt.InvalidSignatureError:
            raise TokenRejected(401, "invalid_token", "the token's signature does not verify") from None
        except jwt.PyJWTError as exc:
            raise TokenRejected(401, "invalid_token", f"the token is invalid: {exc}") from None
        granted = str(claims.get("scope") or "").split()
        missing = [s for s in self.required_scopes if s not in granted]
        if missing:
            raise TokenRejected(403, "insufficient_scope", f"the token lacks scope {' '.join(missing)}",
                                scope=sorted(set(granted) | set(self.required_scopes)))
        return f"{claims['iss']}#{claims['sub']}"

    async def _key(self, kid: str | None) -> jwt.PyJWK:
        keys = await self._key_set(refresh=False)
        found = _pick(keys, kid)
        if found is None and time.monotonic() - self._fetched > RETRY_AFTER:
            found = _pick(await self._key_set(refresh=True), kid)  # the issuer may have rotated its keys
        if found is None:
            raise TokenRejected(401, "invalid_token", f"no key {kid!r} in the issuer's JWKS")
        return found

    async def _key_set(self, refresh: bool) -> jwt.PyJWKSet:
        since = time.monotonic() - self._fetched
        if self._keys is not None and since < JWKS_TTL and not refresh:
            return self._keys
        if self._inflight is None:
            if self._keys is None and self._failure is not None and since < RETRY_AFTER:
                raise TokenRejected(401, "invalid_token", f"the issuer's keys are unavailable: {self._failure}")
            self._inflight = asyncio.create_task(self._fetch())
        await asyncio.shield(self._inflight)  # a request that gives up does not cancel the others' fetch
        if self._keys is None:
            raise TokenRejected(401, "invalid_token", f"the issuer's keys are unavailable: {self._failure}")
        return self._keys

    async def _fetch(self) -> None:
        """One fetch for everyone waiting: keys replaced on success; on failure the old set is kept."""
        self.fetches += 1
        try:
            async with asyncio.timeout(self.timeout):
                document = await self._load_jwks()
            self._keys = jwt.PyJWKSet.from_dict(document)
            self._failure = None
        except TimeoutError:
            self._failure = f"no answer within {self.timeout:g} s"
        except (OSError, ValueError, httpx.HTTPError, jwt.PyJWTError) as exc:
            self._failure = str(exc) or type(exc).__name__
        finally:
            self._fetched = time.monotonic()
            self._inflight = None

    async def _load_jwks(self) -> dict[str, Any]:
        source = self.jwks
        if isinstance(source, dict):
            return source
        if source and not source.startswith(("http://", "https://")):
            text = Path(source).read_bytes()[:MAX_JWKS + 1]
            return _document(text)
        async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=False) as client:
            if not source:
                metadata = await self._metadata(client)
                source = str(metadata.get("jwks_uri") or "")
                if not source:
                    raise ValueError(f"{self.issuer} publishes no jwks_uri")
            return _document(await _get(client, source))


    async def _metadata(self, client: httpx.AsyncClient) -> dict[str, Any]:
        """The issuer's metadata: RFC 8414's well-known URI, else OpenID Discovery's (an OpenID provider such
        as oidc-provider may publish only that one); the first error is the one reported."""
        base = self.issuer.rstrip("/")
        try:
            return _document(await _get(client, base + "/.well-known/oauth-authorization-server"))
        except ValueError as first:
            try:
                return _document(await _get(client, base + "/.well-known/openid-configuration"))
            except ValueError:
                raise first from None


async def _get(client: httpx.AsyncClient, url: str) -> bytes:
    async with asyncio.timeout(client.timeout.read or 10.0):
        async with client.stream("GET", url, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise ValueError(f"GET {url}: HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_JWKS:
                    raise ValueError(f"GET {url}: over {MAX_JWKS} bytes")
    return bytes(body)


def _document(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_JWKS:
        raise ValueError(f"the JWKS is over {MAX_JWKS} bytes")
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _pick(keys: jwt.PyJWKSet, kid: str | None) -> jwt.PyJWK | None:
    usable = [k for k in keys.keys if getattr(k, "public_key_use", None) in (None, "sig")]
    if kid is None:
        return usable[0] if len(usable) == 1 else None
    return next((k for k in usable if k.key_id == kid), None)
