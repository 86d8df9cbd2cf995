"""The one redaction profile: which header values and query parameters never reach a trace, a journal,
an export or a log, and what they are replaced with.

Every place that records HTTP headers or URLs (the client and server transports, the recording proxy,
the authorization flow's exchanges) masks through this module, so a value hidden in one view is hidden
in all of them. Masked:

- `Authorization` and `Proxy-Authorization` of any scheme, keeping the scheme (`Bearer ***`,
  `DPoP ***`, `Basic ***`): which scheme was used is what a debugger needs, the credential is not;
- `Cookie` and `Set-Cookie`, keeping each cookie's name and the Set-Cookie attributes;
- `X-Api-Key`, and any header or query parameter whose name looks like a credential (token, secret,
  key, password, session, auth, cookie, credential), plus the OAuth fields (`code`, `client_secret`, ...);
- a URL's userinfo password.

Protocol identifiers that only look like credentials by name stay visible (`Mcp-Session-Id` places a
message in its session; `WWW-Authenticate` is a challenge, not a credential). Extra names can be added;
the `none` profile (nothing masked) exists only for whoever asks for it explicitly.
"""

import re
from collections.abc import Iterable, Mapping
from urllib.parse import SplitResult, parse_qsl, quote, urlsplit

MASK = "***"
PROFILES = ("default", "none")
#: OAuth fields whose values are secrets wherever they appear (JSON bodies, forms, query strings).
SECRET_FIELDS = frozenset({"access_token", "refresh_token", "id_token", "client_secret", "code", "code_verifier",
                           "client_assertion", "assertion", "registration_access_token", "subject_token",
                           "actor_token"})
#: Headers masked whatever the pattern says.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})
#: Names that match the pattern but carry protocol identifiers or challenges, not credentials.
VISIBLE = frozenset({"mcp-session-id", "www-authenticate", "proxy-authenticate", "mcp-protocol-version"})
_PATTERN = re.compile(r"token|secret|key|passw|pwd|session|auth|cookie|credential", re.IGNORECASE)
_SCHEMED = frozenset({"authorization", "proxy-authorization"})


class Redaction:
    """A redaction profile: `default` masks the names above plus `extra_names`; `none` masks nothing."""

    def __init__(self, extra_names: Iterable[str] = (), profile: str = "default") -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown redaction profile {profile!r} (choose from {', '.join(PROFILES)})")
        self.profile = profile
        self.extra = frozenset(name.strip().lower() for name in extra_names if name.strip())

    @property
    def enabled(self) -> bool:
        return self.profile != "none"

    def is_secret(self, name: str) -> bool:
        """Whether a header or parameter of this name has its value masked."""
        lowered = name.strip().lower()
        if not self.enabled:
            return False
        if lowered in self.extra or lowered in SECRET_HEADERS or lowered in SECRET_FIELDS:
            return True
        return lowered not in VISIBLE and _PATTERN.search(lowered) is not None

    def header(self, name: str, value: str) -> str:
        """One header's value as a record may keep it."""
        if not self.is_secret(name):
            return value
        lowered = name.strip().lower()
        if lowered in _SCHEMED:
            scheme = value.strip().split(" ", 1)[0] if " " in value.strip() else ""
            return f"{scheme} {MASK}" if scheme else MASK
        if lowered == "cookie":
            return "; ".join(_cookie(part) for part in value.split(";") if part.strip())
        if lowered == "set-cookie":
            first, _, attributes = value.partition(";")
            return _cookie(first) + (";" + attributes if attributes else "")
        return MASK

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {name: self.header(name, value) for name, value in headers.items()}

    def query(self, query: str) -> str:
        """A query string (or form body) with each credential-named parameter's value masked; the rest,
        order and encoding kept."""
        if not self.enabled or not query:
            return query
        out = []
        for part in query.split("&"):
            name, eq, _ = part.partition("=")
            decoded = parse_qsl(name + "=", keep_blank_values=True)
            key = decoded[0][0] if decoded else name
            out.append(f"{name}={MASK}" if eq and self.is_secret(key) else part)
        return "&".join(out)

    def url(self, url: str) -> str:
        """A URL with its userinfo password and credential-named query parameters masked."""
        if not self.enabled:
            return url
        try:
            parts = urlsplit(url)
        except ValueError:
            return url
        netloc = parts.netloc
        if parts.password is not None:
            netloc = f"{quote(parts.username or '', safe='')}:{MASK}@{netloc.rpartition('@')[2]}"
        return SplitResult(parts.scheme, netloc, parts.path, self.query(parts.query), parts.fragment).geturl()


def _cookie(pair: str) -> str:
    name, eq, _ = pair.strip().partition("=")
    return f"{name}={MASK}" if eq else MASK


#: The profile every recorder uses unless told otherwise.
DEFAULT = Redaction()
