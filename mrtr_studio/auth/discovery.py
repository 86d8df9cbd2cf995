"""Where the metadata lives: Protected Resource Metadata (RFC 9728) and authorization server metadata
(RFC 8414 / OpenID Connect Discovery), in the order the MCP authorization spec fixes, and the
resource checks (RFC 9728 §3.3, RFC 8707).
"""

from urllib.parse import urlsplit, urlunsplit

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def prm_urls(server_url: str, from_header: str | None) -> list[str]:
    """The header's resource_metadata URL when given; else path-based, then root well-known URIs."""
    if from_header:
        return [from_header]
    parts = urlsplit(server_url)
    path = parts.path.rstrip("/")
    urls = [f"{origin(server_url)}{PRM_WELL_KNOWN}{path}"] if path else []
    return [*urls, f"{origin(server_url)}{PRM_WELL_KNOWN}"]


def as_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 path insertion, OpenID path insertion, OpenID path appending (no-path issuers: two)."""
    path = urlsplit(issuer).path.rstrip("/")
    base = origin(issuer)
    if path:
        return [f"{base}/.well-known/oauth-authorization-server{path}",
                f"{base}/.well-known/openid-configuration{path}",
                f"{base}{path}/.well-known/openid-configuration"]
    return [f"{base}/.well-known/oauth-authorization-server", f"{base}/.well-known/openid-configuration"]


def canonical_resource(server_url: str) -> str:
    """The MCP server's canonical URI (RFC 8707 §2): lower-case scheme and host, no fragment or query."""
    parts = urlsplit(server_url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether a PRM `resource` names this server: same origin, and its path is the server's or a parent."""
    mine, theirs = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (mine.scheme, mine.netloc) != (theirs.scheme, theirs.netloc):
        return False
    parent = theirs.path.rstrip("/")
    return mine.path.rstrip("/") == parent or mine.path.startswith(parent + "/")


def scope_list(value: object) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def union(*scopes: list[str]) -> list[str]:
    seen: list[str] = []
    for group in scopes:
        seen += [s for s in group if s not in seen]
    return seen


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


def is_http_url(value: object) -> bool:
    """An absolute http(s) URL with a host: what an issuer or an endpoint in metadata must be."""
    if not isinstance(value, str) or len(value) > 2048:
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)
