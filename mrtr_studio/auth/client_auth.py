"""How the client authenticates at the token endpoint, and the private key `private_key_jwt` signs with.

The methods: `client_secret_basic` (applied here, RFC 6749 §2.3.1 exactly), `client_secret_post` and
`none` (authlib's), and `private_key_jwt` (RFC 7523 §2.2, authlib's `PrivateKeyJWT`, audience the issuer).
`read_client_key` loads the PEM a person names (`--client-key`, the window's key picker): bounded, checked
with `cryptography`, and the signing algorithm follows from the key, so a wrong file is a clear error
before any request, not a refusal from the authorization server.
"""

import base64
from typing import Any
from urllib.parse import quote

from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc.jwk import import_key

from .tokens import Registration

#: The largest key file read (a 4096-bit RSA PEM is about 3.3 KiB).
MAX_KEY_FILE = 64 * 1024


def client_secret_basic(client: ClientAuth, method: str, uri: str, headers: dict[str, str],
                        body: str) -> tuple[str, dict[str, str], str]:
    """`client_secret_basic` as RFC 6749 §2.3.1 says: the id and the secret each form-urlencoded (UTF-8)
    before they are joined with ':' and base64-encoded, so an id or secret with ':', '+', spaces or
    non-ASCII survives. (authlib's `encode_client_secret_basic` joins them raw, as latin-1.) A space is
    sent as %20, which form decoders read as a space and so do the plain percent-decoders of authlib's
    and the MCP SDK's servers (a '+' would reach those as a '+')."""
    pair = f"{quote(str(client.client_id), safe='')}:{quote(str(client.client_secret or ''), safe='')}"
    headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("ascii")).decode("ascii")
    return uri, headers, body


def client_auth(registration: Registration, issuer: str, signing_alg: str) -> ClientAuth:
    """The authlib client authentication for a registration at `issuer`."""
    method: Any = registration.auth_method
    secret: Any = registration.client_secret
    if method == "client_secret_basic":
        method = client_secret_basic
    elif method == "private_key_jwt":
        # The assertion's audience is the issuer identifier (RFC 7523bis; the token endpoint is ambiguous).
        method = PrivateKeyJWT(issuer, alg=signing_alg)
        if signing_alg.startswith("ES"):
            secret = import_key(str(secret), "EC")
        elif signing_alg == "EdDSA":
            secret = import_key(str(secret), "OKP")
        else:
            secret = import_key(str(secret), "RSA")
    return ClientAuth(registration.client_id, secret, method)


def read_client_key(path: str, flag: str = "--client-key") -> tuple[str, str]:
    """The PEM private key in `path` and the algorithm it signs client assertions with (RS256 for RSA, ES256/
    ES384/ES512 for P-256/P-384/P-521, EdDSA for Ed25519). ValueError naming `flag` (never quoting the key)
    when the file is unreadable, too large, encrypted or not a private key of those kinds."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    from ..trace.bounded_read import read_capped

    raw = read_capped(path, MAX_KEY_FILE, flag)
    try:
        key = load_pem_private_key(raw, password=None)
    except TypeError:
        raise ValueError(f"{flag}: the key in {path} is encrypted; give an unencrypted PEM private key") from None
    except (ValueError, UnsupportedAlgorithm):
        raise ValueError(f"{flag}: {path} does not hold a PEM private key (-----BEGIN PRIVATE KEY-----)") from None
    if isinstance(key, rsa.RSAPrivateKey):
        if key.key_size < 2048:
            raise ValueError(f"{flag}: the RSA key in {path} has {key.key_size} bits; RS256 needs at least 2048")
        alg = "RS256"
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        curves = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
        if key.curve.name not in curves:
            raise ValueError(f"{flag}: the EC key in {path} is on {key.curve.name}; use P-256, P-384 or P-521")
        alg = curves[key.curve.name]
    elif isinstance(key, ed25519.Ed25519PrivateKey):
        alg = "EdDSA"
    else:
        raise ValueError(f"{flag}: the key in {path} is a {type(key).__name__}; use an RSA, EC or Ed25519 key")
    return raw.decode("ascii", errors="replace"), alg
