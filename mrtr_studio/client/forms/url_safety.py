"""Look at a URL-mode elicitation URL the way a careful person would, before anyone opens it.

The spec asks clients to show the full URL, highlight its domain and warn about ambiguous or
suspicious URLs (punycode). This module only inspects the text — it never resolves or fetches
anything (the spec forbids pre-fetching) — and returns the pieces a view needs: the URL split
around its host so the host can be emphasised, the host decoded for display, the warnings, and
whether the link may be handed to a browser at all: only http and https may. `file:`, `javascript:`,
`vbscript:`, `data:` or a custom scheme would run something local or hand the server's text to
another program, so such a link can only be copied, with the reason said. The scheme is judged
whatever the form (`javascript://example.com/%0aalert(1)` has an authority and still runs script), and
the text itself must start with `http://` or `https://` and hold no space, control character or
backslash: those are where our parser and the browser's disagree (`https://a.example\\@b.example`
is a.example to a browser, b.example to urlsplit).
"""

import contextlib
import ipaddress
import re
import socket
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

WarningCode = Literal["invalid", "not_https", "punycode", "non_ascii", "credentials", "ip_host"]
OPENABLE_SCHEMES = ("http", "https")
_WEB_PREFIX = re.compile(r"https?://", re.IGNORECASE)


@dataclass(frozen=True)
class UrlWarning:
    code: WarningCode
    message: str


@dataclass
class UrlReport:
    url: str
    scheme: str = ""
    host: str = ""
    host_unicode: str = ""
    before_host: str = ""
    after_host: str = ""
    warnings: list[UrlWarning] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        return [w.code for w in self.warnings]

    @property
    def risky(self) -> bool:
        return bool(self.warnings)

    @property
    def open_problem(self) -> str | None:
        """Why the link must not be opened in a browser (it may still be copied), or None when it may."""
        if self.scheme and self.scheme not in OPENABLE_SCHEMES:
            return (f"This link cannot be opened from here: its scheme is {self.scheme!r}, and only http "
                    "and https links are handed to a browser. Copy it if you trust it.")
        text = self.url.strip()
        if not _WEB_PREFIX.match(text):
            return ("This link cannot be opened from here: it does not start with http:// or https://. "
                    "Copy it if you trust it.")
        if any(c == "\\" or c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
            return ("This link cannot be opened from here: it contains a space, a control character or a "
                    "backslash, which browsers read differently. Copy it if you trust it.")
        invalid = [w.message for w in self.warnings if w.code == "invalid"]
        if invalid or not self.host:
            return "This link cannot be opened: " + (invalid[0] if invalid else "it has no host.")
        return None

    @property
    def can_open(self) -> bool:
        return self.open_problem is None


def _decode_idna(host: str) -> str:
    labels = []
    for label in host.split("."):
        if label.lower().startswith("xn--"):
            with contextlib.suppress(UnicodeError, ValueError):
                label = label.encode("ascii").decode("idna")
        labels.append(label)
    return ".".join(labels)


def _is_ip(host: str) -> bool:
    """IPv4/IPv6 literals, including the short and numeric forms browsers accept (127.1, 2130706433)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
        return True
    except ValueError:
        pass
    if not all(c in "0123456789abcdefxABCDEFX." for c in bare) or not bare[:1].isdigit():
        return False
    try:
        socket.inet_aton(bare)
        return True
    except OSError:
        return False


def _host_span(url: str, netloc: str) -> tuple[int, int]:
    """Where the host (as written, without credentials or port) sits in `url`."""
    netloc_start = url.find("//") + 2
    userinfo, at, hostport = netloc.rpartition("@")
    start = netloc_start + len(userinfo) + len(at)
    if hostport.startswith("["):
        length = hostport.find("]") + 1 or len(hostport)
    else:
        host, colon, port = hostport.rpartition(":")
        length = len(host) if colon and port.isdigit() else len(hostport)
    return start, start + length


def analyse_url(url: str) -> UrlReport:
    """Split `url` around its host and list every reason to be wary of it."""
    report = UrlReport(url=url)
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        _ = parts.port  # raises on a non-numeric port
    except ValueError as exc:
        report.warnings.append(UrlWarning("invalid", f"The URL cannot be parsed: {exc}"))
        return report
    report.scheme = parts.scheme.lower()
    if not parts.scheme or not parts.netloc or not host:
        missing = "host" if parts.scheme else "scheme or host"
        report.warnings.append(UrlWarning("invalid", f"The URL has no {missing}."))
        if report.scheme and report.scheme not in ("http", "https"):
            report.warnings.append(UrlWarning(
                "not_https", f"Not a web link: the scheme is {report.scheme!r}, not https."))
        return report
    report.host = host
    report.host_unicode = _decode_idna(host)
    start, end = _host_span(url.strip(), parts.netloc)
    report.before_host, report.host, report.after_host = url.strip()[:start], url.strip()[start:end], \
        url.strip()[end:]

    if report.scheme == "http":
        report.warnings.append(UrlWarning("not_https", "Not encrypted: the link uses http, not https."))
    elif report.scheme != "https":
        report.warnings.append(UrlWarning(
            "not_https", f"Not a secure web link: the scheme is {report.scheme!r}, not https."))
    if parts.username is not None or parts.password is not None:
        report.warnings.append(UrlWarning(
            "credentials", "The URL carries a user name or password before the host; the real host is "
            f"{report.host_unicode!r}."))
    if any(label.lower().startswith("xn--") for label in host.split(".")):
        report.warnings.append(UrlWarning(
            "punycode", f"The host is punycode; it displays as {report.host_unicode!r}, which may imitate "
            "another site."))
    if not host.isascii():
        report.warnings.append(UrlWarning(
            "non_ascii", "The host contains non-ASCII characters that may imitate another site."))
    if _is_ip(host):
        report.warnings.append(UrlWarning("ip_host", "The host is a bare IP address, not a domain name."))
    return report
