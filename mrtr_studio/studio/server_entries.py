"""Where the studio connects: the embedded engine, a Streamable HTTP URL or a stdio command.

Also reads the `mcpServers` JSON files MCP users already keep (Claude Desktop, Cursor; VS Code's
`servers` key too): `{"mcpServers": {NAME: {"command", "args", "env"} | {"url", "type", "headers"}}}`.
Pure: no I/O besides reading the file, no Qt.
"""

import json
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

EntryKind = Literal["embedded", "http", "stdio"]
_HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}


@dataclass
class ServerEntry:
    kind: EntryKind
    name: str = ""
    url: str = ""
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    #: Why this entry cannot be used as it is (shown in the explorer instead of failing on connect).
    problem: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "embedded":
            return "embedded demo engine"
        where = self.url if self.kind == "http" else self.command_line
        return f"{self.name}: {where}" if self.name else where

    @property
    def command_line(self) -> str:
        return shlex.join([self.command, *self.args]) if self.command else ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ServerEntry":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        entry = cls(**known)
        if entry.kind not in ("embedded", "http", "stdio"):
            raise ValueError(f"unknown connection kind {entry.kind!r}")
        return entry


EMBEDDED = ServerEntry("embedded", name="embedded")


def http_entry(url: str, name: str = "", headers: dict[str, str] | None = None) -> ServerEntry:
    url = url.strip()
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url!r}")
    return ServerEntry("http", name=name, url=url, headers=dict(headers or {}))


def stdio_entry(command_line: str, name: str = "", env: dict[str, str] | None = None) -> ServerEntry:
    """`"python -m server --flag"` -> a stdio entry (split like a POSIX shell would)."""
    parts = shlex.split(command_line)
    if not parts:
        raise ValueError("the stdio command is empty")
    return ServerEntry("stdio", name=name, command=parts[0], args=parts[1:], env=dict(env or {}))


def target_entry(text: str) -> ServerEntry | None:
    """The server a target in the command line's forms names (cli/targets.py): `http(s)://…`,
    `stdio:COMMAND ARGS` or `memory:` (the window's own engine); None for text in none of them.
    ValueError for a stdio: command that is empty or has an unclosed quote. Compare servers, Replay
    against… and collections all read their targets here."""
    text = text.strip()
    if text == "memory:":
        return EMBEDDED
    if text.startswith(("http://", "https://")):
        return http_entry(text)
    if text.startswith("stdio:"):
        command = text[len("stdio:"):]
        if not shlex.split(command):
            raise ValueError("stdio: needs a command, e.g. stdio:python server.py")
        return stdio_entry(command)
    return None


def _strings(value: Any, what: str, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        raise ValueError(f"{name}: {what} must be a list of strings")
    return [str(v) for v in value]


def _mapping(value: Any, what: str, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{name}: {what} must be an object")
    return {str(k): str(v) for k, v in value.items()}


def parse_entry(name: str, spec: Any) -> ServerEntry:
    """One `mcpServers` member; unsupported but well-formed ones carry `problem` instead of raising."""
    if not isinstance(spec, dict):
        raise ValueError(f"{name}: an entry must be an object")
    kind = str(spec.get("type") or spec.get("transport") or "").lower()
    if "command" in spec:
        if not isinstance(spec["command"], str) or not spec["command"].strip():
            raise ValueError(f"{name}: command must be a non-empty string")
        entry = ServerEntry("stdio", name=name, command=spec["command"], args=_strings(spec.get("args"), "args", name),
                            env=_mapping(spec.get("env"), "env", name),
                            cwd=spec.get("cwd") if isinstance(spec.get("cwd"), str) else None)
    elif "url" in spec or "serverUrl" in spec:
        url = spec.get("url") or spec.get("serverUrl")
        if not isinstance(url, str) or not url.strip():
            raise ValueError(f"{name}: url must be a non-empty string")
        entry = ServerEntry("http", name=name, url=url.strip(), headers=_mapping(spec.get("headers"), "headers", name))
        if kind == "sse":
            entry.problem = "the old HTTP+SSE transport is not supported; use Streamable HTTP"
        elif kind and kind not in _HTTP_TYPES:
            entry.problem = f"unknown transport type {kind!r}"
        elif not entry.url.startswith(("http://", "https://")):
            entry.problem = f"not an http(s) URL: {entry.url!r}"
    else:
        raise ValueError(f"{name}: an entry needs either `command` (stdio) or `url` (Streamable HTTP)")
    if spec.get("disabled") is True:
        entry.problem = entry.problem or "disabled in the file"
    return entry


def parse_mcp_servers(data: Any) -> list[ServerEntry]:
    """The entries of an `mcpServers` document (or VS Code's `servers`), in file order."""
    if not isinstance(data, dict):
        raise ValueError("an mcpServers file holds a JSON object")
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None:
        raise ValueError('no "mcpServers" (or "servers") object in the file')
    if not isinstance(servers, dict):
        raise ValueError('"mcpServers" must be an object of name -> entry')
    return [parse_entry(str(name), spec) for name, spec in servers.items()]


def load_mcp_servers(path: str | Path) -> list[ServerEntry]:
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    return parse_mcp_servers(data)
