"""Command-line flags for OAuth: `serve --auth jwt ...` (verified tokens), `call|check --oauth ...` (the flow).

`call --oauth` (and `check --oauth`, whose every transport shares the one flow) runs the MCP
authorization flow when the server answers 401: it prints the authorization URL on stderr and waits
for the browser's redirect on a loopback URI; `--oauth-headless` follows the authorization endpoint's
redirect itself (mock servers and CI).
Tokens stay in memory unless `--oauth-remember` puts them in the OS keyring. The grants without a
browser: `--client-credentials`, `--jwt-bearer` (a workload's JWT) and `--enterprise-idp` (SEP-990: the
user's enterprise ID token exchanged for an ID-JAG). A pre-registered client authenticates with its secret,
or with `--client-key` (private_key_jwt). DPoP is used where both the resource and its authorization server
support it, unless `--no-dpop`.
"""

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # building the parser must not load httpx, authlib or PyJWT: `--help` stays instant
    from ...auth.demo_authority import DemoAuthority
    from ...auth.enterprise import EnterpriseLogin
    from ...auth.flow import Grant, OAuthClient, OAuthSettings
    from ...auth.jwt_verifier import JwtVerifier

CLIENT_SECRET_ENV = "MRTR_STUDIO_CLIENT_SECRET"
#: The workload's JWT for `--jwt-bearer` without a FILE.
ASSERTION_ENV = "MRTR_STUDIO_ASSERTION"
#: Where `--enterprise-idp` reads the user's ID token when `--id-token` is not given.
ID_TOKEN_ENV = "MRTR_STUDIO_ID_TOKEN"
#: The largest JWT `--jwt-bearer` reads (far more than any real one; a bound on what is read).
MAX_ASSERTION = 64 * 1024


def add_serve_auth_flags(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--auth", choices=["jwt", "demo"],
                       help="require OAuth bearer JWTs: 'jwt' from --issuer for --audience; 'demo' from a demo "
                            "authorization server started beside it on loopback (signs in alice without asking)")
    serve.add_argument("--issuer", metavar="URL", help="the authorization server whose tokens are accepted")
    serve.add_argument("--audience", action="append", default=[], metavar="AUD",
                       help="an `aud` a token may carry (repeatable; the first is the resource this server "
                            "advertises: behind a reverse proxy, give the proxy's URL first, then the server's)")
    serve.add_argument("--jwks", metavar="URL|FILE", help="the issuer's keys (default: its metadata's jwks_uri)")
    serve.add_argument("--required-scope", action="append", default=[], metavar="SCOPE",
                       help="a scope every token must carry (repeatable; 403 insufficient_scope otherwise)")


def verifier_of(args: argparse.Namespace) -> "JwtVerifier | None":
    """The token verifier `serve` asks for; ValueError on an incomplete combination of flags."""
    if getattr(args, "auth", None) in (None, "demo"):
        if getattr(args, "issuer", None) or getattr(args, "audience", None) or getattr(args, "jwks", None):
            raise ValueError("--issuer, --audience and --jwks need --auth jwt"
                             + (" (--auth demo runs its own authorization server)" if args.auth else ""))
        if args.auth == "demo" and args.user:
            raise ValueError("--auth demo and --user cannot be combined (tokens come from the demo server)")
        return None  # --auth demo: made by `demo_verifier` once the port is known
    if not args.issuer or not args.audience:
        raise ValueError("--auth jwt needs --issuer URL and --audience AUD")
    if args.user:
        raise ValueError("--auth jwt and --user cannot be combined (tokens come from the issuer)")
    from ...auth.jwt_verifier import JwtVerifier

    return JwtVerifier(args.issuer, args.audience[0], args.jwks, list(args.required_scope),
                       also_accepted=list(args.audience[1:]))


def demo_verifier(host: str, port: int, path: str, scopes: list[str]) -> "tuple[DemoAuthority, JwtVerifier]":
    """`serve --auth demo`: the demo authorization server, started on loopback, and the verifier of its tokens
    for this server (audience: its own URL)."""
    from ...auth.demo_authority import DemoAuthority
    from ...auth.jwt_verifier import JwtVerifier
    from ...transport.http_host import http_url

    authority = DemoAuthority()
    authority.start()
    # The audience is the URL `serve` prints (the host as given): the resource a client asks its token for.
    return authority, JwtVerifier(authority.issuer, http_url(host, port, path), authority.jwks(), scopes)


def add_oauth_flags(parser: argparse.ArgumentParser) -> None:
    """The OAuth client flags `call` and `check` share (one flow per run, its token on every request)."""
    parser.add_argument("--oauth", action="store_true",
                        help="on 401, run the OAuth flow: print the authorization URL and wait on a loopback redirect")
    parser.add_argument("--oauth-headless", action="store_true",
                        help="run the OAuth flow following the authorization redirect itself (mock servers, CI)")
    parser.add_argument("--client-id", help="a pre-registered OAuth client id")
    parser.add_argument("--client-secret", help=f"its secret (or the env {CLIENT_SECRET_ENV})")
    parser.add_argument("--client-key", metavar="PEM_FILE",
                        help="its private key (PEM: RSA, EC or Ed25519) for private_key_jwt client authentication "
                             "(RFC 7523); needs --client-id")
    parser.add_argument("--client-metadata-url", metavar="URL", help="a Client ID Metadata Document URL")
    parser.add_argument("--scope", help="scopes to ask for, space-separated (default: the server's challenge)")
    machine = parser.add_mutually_exclusive_group()
    machine.add_argument("--client-credentials", action="store_true",
                         help="a machine client: the client-credentials grant (needs --client-id)")
    machine.add_argument("--jwt-bearer", nargs="?", const="", metavar="FILE",
                         help="a workload: the JWT-bearer grant (RFC 7523) with its JWT read from FILE ('-': stdin; "
                              f"no FILE: the env {ASSERTION_ENV}); needs --client-id; put it after the URL")
    machine.add_argument("--enterprise-idp", metavar="TOKEN_ENDPOINT",
                         help="enterprise-managed authorization (SEP-990): exchange the user's ID token at this IdP "
                              "token endpoint for an ID-JAG, then the JWT-bearer grant; needs --client-id, "
                              "--idp-client-id and --id-token")
    parser.add_argument("--idp-client-id", metavar="ID", help="the client's id at the enterprise IdP")
    parser.add_argument("--id-token", metavar="FILE",
                        help=f"the user's ID token from the enterprise IdP ('-': stdin; default: the env "
                             f"{ID_TOKEN_ENV})")
    parser.add_argument("--no-dpop", action="store_true",
                        help="never ask for DPoP-bound tokens, even when the authorization server offers them")
    parser.add_argument("--oauth-remember", action="store_true", help="keep tokens in the OS keyring")


def read_assertion(source: str, flag: str = "--jwt-bearer", env: str = ASSERTION_ENV) -> str:
    """The workload's JWT for `--jwt-bearer` (or the ID token for `--id-token`): from a file, stdin (`-`) or
    the environment (no FILE), at most MAX_ASSERTION bytes, surrounding whitespace stripped. ValueError
    (never quoting the JWT) when unusable."""
    where = "stdin" if source == "-" else source or f"${env}"
    if source == "-":
        if sys.stdin.isatty():
            raise ValueError(f"{flag} -: stdin is a terminal; pipe the JWT in, or give FILE")
        raw = sys.stdin.buffer.read(MAX_ASSERTION + 1)
    elif source:
        from ...trace.bounded_read import read_capped  # here: the parser imports this module, keep it light

        raw = read_capped(source, MAX_ASSERTION, flag)
    else:
        raw = os.environ.get(env, "").encode("utf-8", errors="replace")
    if len(raw) > MAX_ASSERTION:
        raise ValueError(f"{flag}: the JWT in {where} is over {MAX_ASSERTION // 1024} KiB")
    try:
        text = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        raise ValueError(f"{flag}: {where} holds bytes that are not ASCII; a JWT is base64url") from None
    if not text:
        raise ValueError(f"{flag}: {where} is empty" + ("" if source else
                                                              f" (give FILE, '-' for stdin, or set {env})"))
    if len(text.split()) != 1 or text.count(".") not in (2, 4):
        raise ValueError(f"{flag}: {where} does not hold one JWT (header.payload.signature)")
    return text


def oauth_settings_of(args: argparse.Namespace) -> "OAuthSettings | None":
    """What the OAuth flags ask for, or None when they ask for no flow; ValueError on a combination that
    cannot work (checked before anything connects, so it is a usage error)."""
    jwt_source = getattr(args, "jwt_bearer", None)
    machine = getattr(args, "client_credentials", False) or jwt_source is not None \
        or getattr(args, "enterprise_idp", None) is not None
    if not (getattr(args, "oauth", False) or getattr(args, "oauth_headless", False) or machine):
        if getattr(args, "idp_client_id", None) or getattr(args, "id_token", None):
            raise ValueError("--idp-client-id and --id-token go with --enterprise-idp TOKEN_ENDPOINT")
        if getattr(args, "client_key", None):
            raise ValueError("--client-key goes with --oauth, --oauth-headless or a machine grant "
                             "(--client-credentials, --jwt-bearer)")
        return None
    from ...auth.flow import OAuthSettings

    if args.client_credentials and not args.client_id:
        raise ValueError("--client-credentials needs --client-id")
    if jwt_source is not None and not args.client_id:
        raise ValueError("--jwt-bearer needs --client-id (the pre-registered client the authorization server "
                         "exchanges the workload's JWT for)")
    secret = args.client_secret or os.environ.get(CLIENT_SECRET_ENV)
    key_pem, key_alg = _client_key(args)
    login = _enterprise_login(args)
    grant: Grant = "client_credentials" if args.client_credentials else "jwt_bearer" if jwt_source is not None \
        else "enterprise" if login is not None else "authorization_code"
    return OAuthSettings(client_id=args.client_id, client_secret=secret,
                         client_metadata_url=args.client_metadata_url, grant=grant,
                         assertion=read_assertion(jwt_source) if jwt_source is not None else None,
                         enterprise=login, scope=args.scope.split() if args.scope else None,
                         dpop="off" if getattr(args, "no_dpop", False) else "auto",
                         private_key_pem=key_pem, signing_alg=key_alg)


def _client_key(args: argparse.Namespace) -> tuple[str | None, str]:
    """`--client-key`: the PEM and its algorithm (the settings' default algorithm without one)."""
    path = getattr(args, "client_key", None)
    if path is None:
        return None, "RS256"
    if not args.client_id:
        raise ValueError("--client-key needs --client-id (the pre-registered client whose key it is)")
    if args.client_secret:
        raise ValueError("--client-key and --client-secret cannot be combined (one client authentication)")
    from ...auth.client_auth import read_client_key

    return read_client_key(path)


def _enterprise_login(args: argparse.Namespace) -> "EnterpriseLogin | None":
    endpoint = getattr(args, "enterprise_idp", None)
    if endpoint is None:
        if getattr(args, "idp_client_id", None) or getattr(args, "id_token", None):
            raise ValueError("--idp-client-id and --id-token go with --enterprise-idp TOKEN_ENDPOINT")
        return None
    if not endpoint.startswith(("http://", "https://")):
        raise ValueError("--enterprise-idp wants the IdP's token endpoint URL (http:// or https://)")
    if not args.client_id or not args.idp_client_id:
        raise ValueError("--enterprise-idp needs --client-id (at the authorization server) and --idp-client-id "
                         "(at the IdP)")
    from ...auth.enterprise import EnterpriseLogin

    token = read_assertion(args.id_token or "", "--id-token", ID_TOKEN_ENV)
    return EnterpriseLogin(endpoint, args.idp_client_id, token)


def oauth_client_of(args: argparse.Namespace, url: str, settings: "OAuthSettings | None" = None,
                    ) -> "OAuthClient | None":
    """The one OAuth client of a run (None without OAuth flags); `settings` from `oauth_settings_of`."""
    settings = settings or oauth_settings_of(args)
    if settings is None:
        return None
    from ...auth.flow import OAuthClient
    from ...auth.redirect import HeadlessRedirect, LoopbackRedirect

    # The machine grants never send a browser anywhere: no loopback listener for them.
    headless = args.oauth_headless or settings.grant != "authorization_code"
    redirect = HeadlessRedirect() if headless else LoopbackRedirect(
        lambda link: print(f"Open this URL to authorize:\n{link}", file=sys.stderr, flush=True))
    store = None
    if args.oauth_remember:
        from ...auth.tokens import KeyringStore

        store = KeyringStore()
    return OAuthClient(url, redirect, settings, store=store)
