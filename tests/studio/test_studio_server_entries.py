"""mcpServers files: stdio and Streamable HTTP entries, VS Code's `servers`, problems kept per entry."""

import json
from pathlib import Path

import pytest

from mrtr_studio.studio.server_entries import (
    EMBEDDED,
    ServerEntry,
    http_entry,
    load_mcp_servers,
    parse_mcp_servers,
    stdio_entry,
)

CLAUDE = {"mcpServers": {
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
              "env": {"DEBUG": "1"}},
    "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"X-Key": "k"}},
    "old": {"type": "sse", "url": "https://example.com/sse"},
    "off": {"command": "srv", "disabled": True},
}}


def test_claude_desktop_file(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(CLAUDE))
    files, remote, old, off = load_mcp_servers(path)
    assert (files.kind, files.command, files.args, files.env) == (
        "stdio", "npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], {"DEBUG": "1"})
    assert files.problem is None and files.label.startswith("files: npx -y")
    assert (remote.kind, remote.url, remote.headers, remote.problem) == (
        "http", "https://example.com/mcp", {"X-Key": "k"}, None)
    assert old.problem is not None and "SSE" in old.problem
    assert off.problem == "disabled in the file"


def test_vscode_servers_key_and_round_trip() -> None:
    (entry,) = parse_mcp_servers({"servers": {"s": {"url": "http://localhost:8765/mcp"}}})
    assert entry.kind == "http"
    assert ServerEntry.from_json(json.loads(json.dumps(entry.to_json()))) == entry
    assert ServerEntry.from_json(EMBEDDED.to_json()) == EMBEDDED


@pytest.mark.parametrize("bad", [[], {"other": {}}, {"mcpServers": []}, {"mcpServers": {"x": {}}},
                                 {"mcpServers": {"x": {"command": ""}}}, {"mcpServers": {"x": {"command": "a",
                                                                                             "args": "b"}}}])
def test_bad_documents_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_mcp_servers(bad)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{nope")
    with pytest.raises(ValueError, match="not JSON"):
        load_mcp_servers(path)


def test_typed_entries() -> None:
    entry = stdio_entry("python -m server --name 'my server'")
    assert (entry.command, entry.args) == ("python", ["-m", "server", "--name", "my server"])
    assert entry.command_line == "python -m server --name 'my server'"
    with pytest.raises(ValueError):
        stdio_entry("  ")
    with pytest.raises(ValueError):
        http_entry("ftp://x")
