"""Enterprise-managed authorization (SEP-990): the organisation's identity provider vouches for the user.

The person signed in to the enterprise IdP (OpenID Connect) and holds its ID token. Instead of sending
them to the MCP server's authorization server, the client exchanges that ID token at the IdP for an
Identity Assertion JWT Authorization Grant (ID-JAG; RFC 8693 token exchange), addressed to the
authorization server (`audience`) for this MCP server (`resource`), then presents the ID-JAG to the
authorization server with the JWT-bearer grant (RFC 7523) and its own client credentials.
"""

from dataclasses import dataclass

from authlib.oauth2.rfc6749.parameters import prepare_token_request

from .challenge import reason
from .exchanges import AuthError, AuthHttp

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
#: The phase of the exchange at the IdP (the diagram draws it on the IdP's lane).
PHASE = "token exchange at the IdP"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@dataclass(frozen=True)
class EnterpriseLogin:
    """What the enterprise sign-in gave the client: the IdP's token endpoint, the client's id there and
    the user's ID token."""

    token_endpoint: str
    client_id: str
    id_token: str


async def identity_assertion(http: AuthHttp, login: EnterpriseLogin, issuer: str, resource: str,
                             scope: list[str]) -> str:
    """The ID-JAG for `issuer` and `resource`, from the IdP; AuthError with the IdP's reason otherwise."""
    http.book.add(login.id_token)
    body = prepare_token_request(TOKEN_EXCHANGE, requested_token_type=ID_JAG, subject_token=login.id_token,
                                 subject_token_type=ID_TOKEN, audience=issuer, resource=resource,
                                 client_id=login.client_id, scope=scope or None)
    reply = await http.request(PHASE, "POST", login.token_endpoint, dict(FORM), body)
    answer = reply.json()
    grant = answer.get("access_token") if isinstance(answer, dict) else None
    issued = answer.get("issued_token_type") if isinstance(answer, dict) else None
    if reply.status != 200 or not isinstance(grant, str):
        why = reason(answer)
        raise AuthError(f"the IdP refused the token exchange: HTTP {reply.status}" + (f" {why}" if why else ""))
    http.book.add(grant)
    if not reply.exchange.check("the IdP issued an ID-JAG", issued == ID_JAG, f"issued_token_type {issued!r}"):
        raise AuthError(f"the IdP issued {issued!r}, not an ID-JAG ({ID_JAG})")
    return grant
