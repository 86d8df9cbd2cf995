"""`wrap-config` cannot lose a config: it writes through symlinks, verifies its backup, refuses an
undo over later edits (unless --force, which keeps them), edits JSONC in place with its comments,
leaves credentialed https entries alone, routes legacy SSE ones like the rest, and picks local ports that are free."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from mrtr_studio.cli.jsonc import parse
from mrtr_studio.cli.wrap_config import BACKUP_SUFFIX, EDITED_SUFFIX, STATE_SUFFIX, WRAP_MARK

VSCODE_JSONC = """{
  // my servers
  "servers": {
    "py": {
      "type": "stdio",
      "command": "python", /* the interpreter */
      "args": ["server.py",],
    },
    "bare": {"command": "node"},
  },
  "inputs": [],
}
"""


def wrap_config(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "wrap-config", *argv], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_jsonc_is_edited_in_place_with_its_comments_and_commas_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(VSCODE_JSONC)
    done = wrap_config(str(path), "--python", "/opt/py")
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    for kept in ("// my servers", "/* the interpreter */", '"type": "stdio",', '"inputs": [],\n}'):
        assert kept in text
    servers = parse(text).value["servers"]
    assert servers["py"] == {"type": "stdio", "command": "/opt/py", "args": [*WRAP_MARK, "python", "server.py"]}
    assert servers["bare"] == {"command": "/opt/py", "args": [*WRAP_MARK, "node"]}  # args added
    assert wrap_config(str(path), "--undo").returncode == 0
    assert path.read_text() == VSCODE_JSONC


def test_a_symlinked_config_is_written_through_and_the_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    original = b'{"mcpServers": {"s": {"command": "npx", "args": ["srv"]}}}'
    real.write_bytes(original)
    real.chmod(0o640)
    link = tmp_path / "claude_desktop_config.json"
    link.symlink_to(real)
    done = wrap_config(str(link), "--python", "/opt/py")
    assert done.returncode == 0, done.stderr
    assert "symlink" in done.stdout and link.is_symlink() and link.resolve() == real.resolve()
    assert json.loads(real.read_bytes())["mcpServers"]["s"]["command"] == "/opt/py"
    assert oct(real.stat().st_mode & 0o777) == oct(0o640)
    backup = tmp_path / ("claude_desktop_config.json" + BACKUP_SUFFIX)
    assert backup.read_bytes() == original and oct(backup.stat().st_mode & 0o777) == oct(0o600)
    assert wrap_config(str(link), "--undo").returncode == 0
    assert link.is_symlink() and real.read_bytes() == original and not backup.exists()


def test_undo_refuses_a_config_edited_since_and_force_keeps_the_edit(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    original = b'{"mcpServers": {"s": {"command": "npx"}}}'
    path.write_bytes(original)
    assert wrap_config(str(path)).returncode == 0
    edited = path.read_bytes().replace(b'"mcpServers": {', b'"mcpServers": {"new": {"command": "x"}, ')
    path.write_bytes(edited)
    refused = wrap_config(str(path), "--undo")
    assert refused.returncode == 1 and "changed since wrap-config" in refused.stderr and "--force" in refused.stderr
    assert path.read_bytes() == edited and (tmp_path / ("c.json" + BACKUP_SUFFIX)).exists()
    forced = wrap_config(str(path), "--undo", "--force")
    assert forced.returncode == 0, forced.stderr
    assert path.read_bytes() == original
    assert (tmp_path / ("c.json" + EDITED_SUFFIX)).read_bytes() == edited
    assert not (tmp_path / ("c.json" + STATE_SUFFIX)).exists()


def test_a_damaged_backup_is_never_restored(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b'{"mcpServers": {"s": {"command": "npx"}}}')
    assert wrap_config(str(path)).returncode == 0
    routed = path.read_bytes()
    (tmp_path / ("c.json" + BACKUP_SUFFIX)).write_bytes(b'{"mcpServers": {}}')  # truncated by something
    done = wrap_config(str(path), "--undo", "--force")
    assert done.returncode == 1 and "does not match the digest" in done.stderr
    assert path.read_bytes() == routed


def test_credentialed_https_entries_are_left_alone_unless_asked_and_sse_is_routed(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    config = {"mcpServers": {
        "bearer": {"url": "https://api.example/mcp", "headers": {"Authorization": "Bearer sk-1"}},
        "keyed": {"url": "https://api.example/mcp?api_key=sk-2"},
        "plain": {"url": "https://open.example/mcp"},
        "old": {"type": "sse", "url": "http://127.0.0.1:9000/sse"}}}
    path.write_text(json.dumps(config))
    done = wrap_config(str(path))
    assert done.returncode == 0, done.stderr
    routed = json.loads(path.read_text())["mcpServers"]
    assert routed["bearer"] == config["mcpServers"]["bearer"] and routed["keyed"] == config["mcpServers"]["keyed"]
    assert routed["plain"]["url"].startswith("http://127.0.0.1:")
    assert routed["old"]["type"] == "sse" and routed["old"]["url"].endswith("/sse")  # the proxy records SSE too
    assert routed["old"]["url"].startswith("http://127.0.0.1:")
    assert "--upstream http://127.0.0.1:9000/sse" in done.stdout
    assert "bearer: an https entry with credentials (headers Authorization)" in done.stdout
    assert "keyed: an https entry with credentials (query api_key)" in done.stdout
    assert "sk-1" not in done.stdout + done.stderr and "sk-2" not in done.stdout + done.stderr
    assert wrap_config(str(path), "--undo").returncode == 0
    asked = wrap_config(str(path), "--include-credentialed")
    assert asked.returncode == 0, asked.stderr
    assert json.loads(path.read_text())["mcpServers"]["bearer"]["url"].startswith("http://127.0.0.1:")


def test_the_local_ports_are_checked_free(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        path = tmp_path / "c.json"
        path.write_text(json.dumps({"servers": {"a": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
                                                "b": {"type": "http", "url": "http://127.0.0.1:9/other"}}}))
        done = wrap_config(str(path), "--first-port", str(taken))
    assert done.returncode == 0, done.stderr
    urls = [e["url"] for e in json.loads(path.read_text())["servers"].values()]
    ports = [int(u.split(":")[2].split("/")[0]) for u in urls]
    assert taken not in ports and len(set(ports)) == 2 and all(p > taken for p in ports)
    assert f"--listen 127.0.0.1:{ports[0]} --upstream http://127.0.0.1:9/mcp" in done.stdout


def test_bad_flags_are_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"mcpServers": {"s": {"command": "npx"}}}')
    assert wrap_config(str(path), "--first-port", "70000").returncode == 2
    forced = wrap_config(str(path), "--force")
    assert forced.returncode == 2 and "--force goes with --undo" in forced.stderr
    assert not os.path.exists(str(path) + BACKUP_SUFFIX)
