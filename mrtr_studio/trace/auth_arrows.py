"""How one HTTP exchange of the authorization flow is drawn: the lane it reaches, its label, the line
under it (the spec checks judged on it) and whether it failed.

Qt-free, like the rest of the layout: the diagram, the HTML export and the Mermaid export all draw an
`auth` message from these. An exchange read from a trace file may have any shape; nothing here fails.
"""

from typing import Any

#: The lane of the authorization server, drawn only when an operation's flow needed one.
AUTH_LANE = "Auth server"
#: The enterprise identity provider's lane (enterprise-managed authorization).
IDP_LANE = "IdP"


def auth_party(exchange: dict[str, Any]) -> str:
    """Whom the client talked to in one auth exchange: the lane its arrow reaches."""
    phase, method = exchange.get("phase"), exchange.get("method")
    if phase in ("challenge", "protected resource metadata"):
        return "Server"
    if method in ("BROWSER", "REDIRECT"):
        return "User"  # the person's browser: the authorization page, and its redirect back to the client
    if isinstance(phase, str) and phase.startswith("token exchange"):
        return IDP_LANE  # enterprise-managed authorization: the ID-JAG comes from the organisation's IdP
    return AUTH_LANE


def _checks(exchange: dict[str, Any]) -> list[Any]:
    checks = exchange.get("checks")
    return checks if isinstance(checks, list) else []


def auth_failed(exchange: dict[str, Any]) -> bool:
    """A refused or broken exchange, or a spec check that failed on it (the expected 401 is not a failure)."""
    status = exchange.get("status")
    checks = _checks(exchange)
    failed_check = any(isinstance(c, dict) and c.get("passed") is False for c in checks)
    refused = isinstance(status, int) and status >= 400 and exchange.get("phase") != "challenge" \
        and not exchange.get("handled")
    return bool(exchange.get("error")) or refused or failed_check


def auth_label(exchange: dict[str, Any]) -> str:
    phase, method, status = exchange.get("phase", "?"), exchange.get("method", "?"), exchange.get("status")
    if phase == "challenge":
        refused = exchange.get("request_body")
        what = refused.get("method") if isinstance(refused, dict) else None
        return f"HTTP {status} · {what or 'request'} needs authorization"
    if method == "BROWSER":
        return "auth: authorization page opened in the browser"
    if method == "REDIRECT":
        return "auth: authorization response (redirect back)"
    if method == "FALLBACK":
        return "auth: no metadata, default endpoints assumed"
    outcome = f"→ {status}" if status is not None else f"→ ✖ {str(exchange.get('error') or 'no response')[:60]}"
    failed = " ✖" if auth_failed(exchange) else ""
    return f"auth{failed}: {phase} · {method} {outcome}"


def auth_summary(exchange: dict[str, Any]) -> str:
    """The checks judged on an exchange, or where it went (a challenge: what WWW-Authenticate said)."""
    checks = _checks(exchange)
    judged = [f"{'✔' if c.get('passed') else '✖'} {c.get('name')}" for c in checks if isinstance(c, dict)]
    if judged:
        return " · ".join(judged)
    if exchange.get("handled"):
        return str(exchange["handled"])[:200]
    if exchange.get("phase") == "challenge":
        headers = exchange.get("response_headers")
        challenge = headers.get("www-authenticate") if isinstance(headers, dict) else None
        return f"WWW-Authenticate: {challenge}"[:200] if challenge else "no WWW-Authenticate"
    if exchange.get("error"):
        return str(exchange["error"])[:200]
    return str(exchange.get("url") or "")[:200]
