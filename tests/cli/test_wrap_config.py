"""`wrap-config` routes every shape's servers through the studio, and `--undo` gives back the original bytes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mrtr_studio.cli.wrap_config import BACKUP_SUFFIX, WRAP_MARK

CLAUDE = b'{\n    "mcpServers": {"files": {"command": "npx", "args": ["-y", "server-files", "/tmp"],\n' \
         b'      "env": {"A": "1"}},\n   "remote": {"url": "https://example.com/mcp"}}\n}'
VSCODE = b'{"servers": {"py": {"type": "stdio", "command": "python", "args": ["server.py"]},\n' \
         b' "web": {"type": "http", "url": "http://127.0.0.1:9000/mcp"}}, "inputs": []}'
SETTINGS = b'{"editor.fontSize": 13, "mcp": {"servers": {"s": {"command": "node", "args": ["s.js"]}}}}'


def wrap_config(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "wrap-config", *argv], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("original", "table"), [(CLAUDE, ("mcpServers",)), (VSCODE, ("servers",)),
                                                 (SETTINGS, ("mcp", "servers"))])
def test_apply_then_undo_restores_the_original_bytes(tmp_path: Path, original: bytes, table: tuple[str, ...]) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(original)
    done = wrap_config(str(path), "--python", "/opt/py/bin/python")
    assert done.returncode == 0, done.stderr
    servers = json.loads(path.read_bytes())
    for key in table:
        servers = servers[key]
    stdio = [entry for entry in servers.values() if "command" in entry]
    assert stdio and all(e["command"] == "/opt/py/bin/python" and e["args"][:4] == WRAP_MARK for e in stdio)
    before = json.loads(original)
    for key in table:
        before = before[key]
    for name, entry in servers.items():
        if "command" in entry:
            assert entry["args"][4:] == [before[name]["command"], *before[name]["args"]]
        else:
            assert entry["url"].startswith("http://127.0.0.1:")
            assert f"--upstream {before[name]['url']}" in done.stdout
    assert (tmp_path / ("config.json" + BACKUP_SUFFIX)).read_bytes() == original
    again = wrap_config(str(path))
    assert again.returncode == 1 and "--undo first" in again.stderr
    assert wrap_config(str(path), "--undo").returncode == 0
    assert path.read_bytes() == original
    assert not (tmp_path / ("config.json" + BACKUP_SUFFIX)).exists()


def test_unreadable_configs_are_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = b'{// comment\n "mcp": {"servers": {"s": {"command": "x",, }}}}'
    path.write_bytes(original)
    done = wrap_config(str(path))
    assert done.returncode == 1 and "is not JSON or JSONC: expected a key at line 2" in done.stderr
    assert path.read_bytes() == original and not list(tmp_path.glob("*.bak"))
    assert wrap_config(str(path), "--undo").returncode == 1


def test_the_command_lines_state_ttl_default_is_the_engines() -> None:
    from mrtr_studio.cli.flags.state import DEFAULT_STATE_TTL
    from mrtr_studio.engine.options import DEFAULT_STATE_TTL as ENGINE_DEFAULT

    assert DEFAULT_STATE_TTL == ENGINE_DEFAULT


def test_building_the_parser_loads_neither_the_engine_nor_the_proxy() -> None:
    code = ("import sys; from mrtr_studio.cli.parser import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(('mrtr_studio.engine', 'mrtr_studio.proxy', "
            "'httpx', 'jsonschema'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
