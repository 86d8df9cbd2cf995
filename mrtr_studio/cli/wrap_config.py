"""`mrtr-studio wrap-config FILE [--undo]`: route every server of an MCP client's config through the studio.

Understood shapes: `{"mcpServers": {...}}` (Claude Desktop, Cursor, Windsurf), `{"servers": {...}}`
(VS Code's mcp.json) and `{"mcp": {"servers": {...}}}` (VS Code settings). A stdio entry's command
becomes `PYTHON -m mrtr_studio wrap -- COMMAND ARGS...` (the interpreter's absolute path: desktop apps
start servers with a bare PATH); an HTTP entry's URL becomes a local proxy's, and the `proxy` commands
to start are printed. The original bytes are kept in `FILE.mrtr-studio.bak` (created exclusively: a
config already routed is refused until `--undo`), and `--undo` puts exactly those bytes back.
"""

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

MAX_CONFIG_BYTES = 8 * 1024 * 1024
BACKUP_SUFFIX = ".mrtr-studio.bak"
WRAP_MARK = ["-m", "mrtr_studio", "wrap", "--"]


@dataclass
class Rewrite:
    config: Any
    wrapped: list[str] = field(default_factory=list)
    proxied: list[tuple[str, str, str]] = field(default_factory=list)  # (name, local url, upstream)
    skipped: list[str] = field(default_factory=list)


def server_tables(config: Any) -> list[dict[str, Any]]:
    """Every `name -> entry` table the known shapes hold."""
    if not isinstance(config, dict):
        return []
    tables = [config.get("mcpServers"), config.get("servers")]
    nested = config.get("mcp")
    if isinstance(nested, dict):
        tables.append(nested.get("servers"))
    return [t for t in tables if isinstance(t, dict)]


def rewrite(config: Any, python: str, first_port: int = 8770) -> Rewrite:
    done = Rewrite(config)
    port = first_port
    for table in server_tables(config):
        for name, entry in table.items():
            if not isinstance(entry, dict):
                done.skipped.append(f"{name}: not an object")
                continue
            if isinstance(entry.get("command"), str):
                args = entry.get("args", [])
                if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                    done.skipped.append(f"{name}: args is not a list of strings")
                    continue
                if args[:len(WRAP_MARK)] == WRAP_MARK:
                    done.skipped.append(f"{name}: already wrapped")
                    continue
                entry["args"] = [*WRAP_MARK, entry["command"], *args]
                entry["command"] = python
                done.wrapped.append(name)
            elif isinstance(entry.get("url"), str) and urlsplit(entry["url"]).scheme in ("http", "https"):
                upstream = entry["url"]
                local = f"http://127.0.0.1:{port}{urlsplit(upstream).path or '/'}"
                entry["url"] = local
                done.proxied.append((name, local, upstream))
                port += 1
            else:
                done.skipped.append(f"{name}: neither a command nor an http(s) url")
    return done


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def apply(path: Path, python: str, first_port: int = 8770) -> Rewrite:
    """Rewrite `path` in place, keeping its original bytes; ValueError says why it cannot."""
    if backup_of(path).exists():
        raise ValueError(f"{backup_of(path)} exists: the config is already routed; run with --undo first")
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ValueError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes; not a client config")
    original = path.read_bytes()
    try:
        config = json.loads(original.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path} is not plain JSON ({exc}); configs with comments are not rewritten") from None
    if not server_tables(config):
        raise ValueError(f"{path} has no mcpServers, servers or mcp.servers table")
    done = rewrite(config, python, first_port)
    if not done.wrapped and not done.proxied:
        raise ValueError(f"nothing to route in {path}: " + ("; ".join(done.skipped) or "no servers"))
    backup = backup_of(path)
    try:
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ValueError(f"{backup} exists: the config is already routed; run with --undo first") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(original)
        handle.flush()
        os.fsync(handle.fileno())
    _atomic_write(path, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode())
    return done


def undo(path: Path) -> None:
    backup = backup_of(path)
    if not backup.exists():
        raise ValueError(f"no backup {backup}: nothing to undo")
    _atomic_write(path, backup.read_bytes())
    backup.unlink()


def run_wrap_config(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        if args.undo:
            undo(path)
            print(f"restored {path} from its backup")
            return 0
        done = apply(path, args.python or sys.executable, args.first_port)
    except (OSError, ValueError) as exc:
        print(f"mrtr-studio wrap-config: {exc}", file=sys.stderr)
        return 1
    for name in done.wrapped:
        print(f"wrapped {name}: its traffic goes through `mrtr-studio wrap`")
    for name, local, upstream in done.proxied:
        print(f"proxied {name}: start  mrtr-studio proxy --listen {urlsplit(local).netloc} --upstream {upstream}")
    for reason in done.skipped:
        print(f"left alone {reason}")
    print(f"backup: {backup_of(path)} (mrtr-studio wrap-config {path} --undo restores it)")
    return 0
