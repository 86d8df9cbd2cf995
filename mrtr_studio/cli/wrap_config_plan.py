"""What `wrap-config` changes in a client's config, as edits of the original text (cli.jsonc), so
comments, trailing commas and formatting survive and nothing but the routed values changes.

A stdio entry's `command` becomes the interpreter and its `args` `-m mrtr_studio wrap -- COMMAND
ARGS...`; an HTTP entry's `url` (Streamable HTTP, or the legacy HTTP+SSE `"type": "sse"`, which the
proxy records too: GET /sse and the POSTs its endpoint names) becomes a local proxy's on a port
checked free now. Left alone, with its reason, unless asked: an https entry that carries credentials
(headers, user:password in the URL, a token in the query): routed, its secrets would cross a local
plain-HTTP hop.
"""

import json
import socket
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from ..trace.redaction import Redaction
from .jsonc import Node

WRAP_MARK = ["-m", "mrtr_studio", "wrap", "--"]


@dataclass
class Rewrite:
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    wrapped: list[str] = field(default_factory=list)
    proxied: list[tuple[str, str, str]] = field(default_factory=list)  # (name, local url, upstream)
    skipped: list[str] = field(default_factory=list)


class Ports:
    """Local ports for the proxies, each checked free by binding it on 127.0.0.1: from `first` upwards,
    or (no `first`) whatever free port the system gives."""

    def __init__(self, first: int | None = None) -> None:
        self.next_try = first
        self.taken: set[int] = set()

    def pick(self) -> int:
        for _ in range(2000):
            candidate = 0 if self.next_try is None else self.next_try
            if self.next_try is not None:
                self.next_try += 1
                if self.next_try > 65535:
                    break
            port = _bindable(candidate)
            if port and port not in self.taken:
                self.taken.add(port)
                return port
        raise ValueError("no free local port for a proxy" + (f" from --first-port {self.next_try}"
                                                               if self.next_try is not None else ""))


def _bindable(port: int) -> int:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return 0
        return int(sock.getsockname()[1])


def server_tables(root: Node) -> list[Node]:
    """Every `name -> entry` table the known shapes hold: mcpServers, servers, mcp.servers."""
    if not isinstance(root.value, dict):
        return []
    tables = [root.get("mcpServers"), root.get("servers")]
    nested = root.get("mcp")
    if nested is not None and isinstance(nested.value, dict):
        tables.append(nested.get("servers"))
    return [t for t in tables if t is not None and isinstance(t.value, dict)]


def credentials_of(entry: dict[str, object], url: str) -> list[str]:
    """What in an HTTP entry is a credential: its headers, a user:password, a secret-named query key."""
    found = []
    headers = entry.get("headers")
    if isinstance(headers, dict) and headers:
        found.append("headers " + ", ".join(sorted(str(k) for k in headers))[:80])
    parts = urlsplit(url)
    if parts.username or parts.password:
        found.append("user:password in the URL")
    names = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
    masked = Redaction()
    secret = [n for n in names if masked.query(f"{n}=x") != f"{n}=x"]
    if secret:
        found.append("query " + ", ".join(secret))
    return found


def plan(root: Node, python: str, ports: Ports, include_credentialed: bool = False) -> Rewrite:
    done = Rewrite()
    for table in server_tables(root):
        for name, node in table.members.items():
            entry = node.value
            if not isinstance(entry, dict):
                done.skipped.append(f"{name}: not an object")
            elif isinstance(entry.get("command"), str):
                _stdio(done, name, node, python)
            elif isinstance(entry.get("url"), str) and urlsplit(entry["url"]).scheme in ("http", "https"):
                _http(done, name, node, ports, include_credentialed)
            else:
                done.skipped.append(f"{name}: neither a command nor an http(s) url")
    return done


def _stdio(done: Rewrite, name: str, node: Node, python: str) -> None:
    entry = node.value
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        done.skipped.append(f"{name}: args is not a list of strings")
        return
    if args[:len(WRAP_MARK)] == WRAP_MARK:
        done.skipped.append(f"{name}: already wrapped")
        return
    command = node.get("command")
    assert command is not None
    routed = json.dumps([*WRAP_MARK, entry["command"], *args], ensure_ascii=False)
    done.edits.append((command.start, command.end, json.dumps(python, ensure_ascii=False)))
    args_node = node.get("args")
    if args_node is not None:
        done.edits.append((args_node.start, args_node.end, routed))
    else:
        done.edits.append((command.end, command.end, f', "args": {routed}'))
    done.wrapped.append(name)


def _http(done: Rewrite, name: str, node: Node, ports: Ports, include_credentialed: bool) -> None:
    entry = node.value
    upstream = entry["url"]
    secrets = credentials_of(entry, upstream)
    if secrets and urlsplit(upstream).scheme == "https" and not include_credentialed:
        done.skipped.append(f"{name}: an https entry with credentials ({'; '.join(secrets)}); "
                            "--include-credentialed routes it through a local proxy")
        return
    local = f"http://127.0.0.1:{ports.pick()}{urlsplit(upstream).path or '/'}"
    url = node.get("url")
    assert url is not None
    done.edits.append((url.start, url.end, json.dumps(local)))
    done.proxied.append((name, local, upstream))
