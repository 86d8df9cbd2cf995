"""`mrtr-studio wrap-config FILE [--undo [--force]]`: route every server of an MCP client's config
through the studio, in a way that cannot lose the config.

Understood shapes: `{"mcpServers": {...}}` (Claude Desktop, Cursor, Windsurf), `{"servers": {...}}`
(VS Code's mcp.json) and `{"mcp": {"servers": {...}}}` (VS Code settings), JSON or JSONC: the file is
edited in place (cli.wrap_config_plan, cli.jsonc), comments and trailing commas kept. The proxy
commands to start for HTTP entries are printed, on ports checked free.

Safety, step by step:
- a symlinked config is written through: the link stays, its target changes;
- the original bytes go to `FILE.mrtr-studio.bak`, created atomically and exclusively (a config
  already routed is refused until `--undo`), then read back and compared before the config is touched;
  `FILE.mrtr-studio.state` (0600) keeps the digests of the original and of what was written;
- the new config is checked to parse, then replaces the old one atomically (same mode);
- `--undo` verifies the backup against its digest, and refuses when the config changed since wrapping
  (the client or a person edited it) unless `--force`, which first keeps the edited file as
  `FILE.mrtr-studio.edited`; the restore is read back and compared before the backup is removed.
"""

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from ..trace.private_files import written_beside
from .jsonc import JsoncError, parse, splice
from .wrap_config_plan import WRAP_MARK, Ports, Rewrite, plan, server_tables

MAX_CONFIG_BYTES = 8 * 1024 * 1024
BACKUP_SUFFIX = ".mrtr-studio.bak"
STATE_SUFFIX = ".mrtr-studio.state"
EDITED_SUFFIX = ".mrtr-studio.edited"
__all__ = ["BACKUP_SUFFIX", "WRAP_MARK", "apply", "run_wrap_config", "undo"]


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def state_of(path: Path) -> Path:
    return path.with_name(path.name + STATE_SUFFIX)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _target(path: Path) -> Path:
    """The file to change: `path`, or what its symlink(s) point to (the links stay)."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise ValueError(f"cannot open {path}: {exc}") from None
    if not target.is_file():
        raise ValueError(f"{path} is not a regular file")
    return target


def _read(path: Path) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes; not a client config")
    return data


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace(path: Path, data: bytes) -> None:
    """`path` (a regular file) replaced atomically by `data`, keeping its mode; read back and compared."""
    with written_beside(path, lambda tmp: os.replace(tmp, path), path.stat().st_mode & 0o7777) as handle:
        handle.write(data)
    _fsync_dir(path.parent)
    if _read(path) != data:
        raise ValueError(f"{path} does not read back as written")


def _create(path: Path, data: bytes) -> None:
    """A new file (0600) holding `data`, created atomically: it appears whole or not at all, and never
    over an existing one (FileExistsError); read back and compared."""

    def link(tmp: str) -> None:
        try:
            os.link(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)

    with written_beside(path, link) as handle:
        handle.write(data)
    _fsync_dir(path.parent)
    if _read(path) != data:
        path.unlink(missing_ok=True)
        raise ValueError(f"{path} did not read back as written; nothing was changed")


def _text(data: bytes, path: Path) -> tuple[str, str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not UTF-8 ({exc})") from None
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return bom, text[len(bom):]


def apply(path: Path, python: str, first_port: int | None = None, include_credentialed: bool = False) -> Rewrite:
    """Rewrite `path` in place, keeping its original bytes; ValueError says why it cannot (nothing changed)."""
    target = _target(path)
    backup = backup_of(path)
    if backup.exists() or backup.is_symlink():
        raise ValueError(f"{backup} exists: the config is already routed; run with --undo first")
    original = _read(target)
    bom, text = _text(original, path)
    try:
        root = parse(text)
    except JsoncError as exc:
        raise ValueError(f"{path} is not JSON or JSONC: {exc}") from None
    if not server_tables(root):
        raise ValueError(f"{path} has no mcpServers, servers or mcp.servers table")
    done = plan(root, python, Ports(first_port), include_credentialed)
    if not done.wrapped and not done.proxied:
        raise ValueError(f"nothing to route in {path}: " + ("; ".join(done.skipped) or "no servers"))
    routed = (bom + splice(text, done.edits)).encode("utf-8")
    try:
        parse(routed.decode("utf-8")[len(bom):])
    except JsoncError as exc:  # a bug here, never the person's config: refuse before touching anything
        raise ValueError(f"the rewritten config would not parse ({exc}); nothing was changed") from None
    try:
        _create(backup, original)
    except FileExistsError:
        raise ValueError(f"{backup} exists: the config is already routed; run with --undo first") from None
    state = {"original_sha256": _digest(original), "routed_sha256": _digest(routed), "target": str(target)}
    try:
        _create(state_of(path), json.dumps(state, indent=2).encode() + b"\n")
        _replace(target, routed)
    except BaseException:
        if _read(target) == original:  # not changed: leave no half-done routing behind
            backup.unlink(missing_ok=True)
            state_of(path).unlink(missing_ok=True)
        raise
    return done


def undo(path: Path, force: bool = False) -> str | None:
    """Put the original bytes back; returns where an edited config was kept (with --force), if one was."""
    backup, state_path = backup_of(path), state_of(path)
    if not backup.exists():
        raise ValueError(f"no backup {backup}: nothing to undo")
    target = _target(path)
    saved = _read(backup)
    state = _state(state_path)
    if state is not None and _digest(saved) != state.get("original_sha256"):
        raise ValueError(f"{backup} does not match the digest saved when wrapping; nothing was restored "
                         f"(compare it with {path} yourself)")
    current = _read(target)
    kept = None
    if state is not None and _digest(current) != state.get("routed_sha256") and current != saved:
        if not force:
            raise ValueError(f"{path} changed since wrap-config routed it (edited by you or the client); "
                             f"nothing was restored. --force restores the original, keeping the edited file "
                             f"as {path.name}{EDITED_SUFFIX}")
        kept = str(_keep_edited(path, current))
    _replace(target, saved)
    backup.unlink()
    state_path.unlink(missing_ok=True)
    return kept


def _state(path: Path) -> dict[str, str] | None:
    if not path.exists():
        return None  # a backup from before the state file existed: restored as it is
    try:
        state = json.loads(_read(path))
    except (ValueError, UnicodeDecodeError):
        raise ValueError(f"{path} is damaged; nothing was restored (the original is in the .bak file)") from None
    return state if isinstance(state, dict) else None


def _keep_edited(path: Path, data: bytes) -> Path:
    for number in range(1000):
        keep = path.with_name(path.name + EDITED_SUFFIX + (f".{number}" if number else ""))
        try:
            _create(keep, data)
            return keep
        except FileExistsError:
            continue
    raise ValueError(f"cannot keep the edited {path}: too many {EDITED_SUFFIX} files")


def run_wrap_config(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if args.first_port is not None and not 1 <= args.first_port <= 65535:
        print("mrtr-studio wrap-config: --first-port must be a port number (1-65535)", file=sys.stderr)
        return 2
    try:
        if args.undo:
            kept = undo(path, force=args.force)
            if kept:
                print(f"kept the edited config as {kept}")
            print(f"restored {path} from its backup")
            return 0
        if args.force:
            print("mrtr-studio wrap-config: --force goes with --undo", file=sys.stderr)
            return 2
        done = apply(path, args.python or sys.executable, args.first_port, args.include_credentialed)
    except (OSError, ValueError) as exc:
        print(f"mrtr-studio wrap-config: {exc}", file=sys.stderr)
        return 1
    if path.is_symlink():
        print(f"{path} is a symlink: its target {path.resolve()} was changed, the link kept")
    for name in done.wrapped:
        print(f"wrapped {name}: its traffic goes through `mrtr-studio wrap`")
    for name, local, upstream in done.proxied:
        print(f"proxied {name}: start  mrtr-studio proxy --listen {urlsplit(local).netloc} --upstream {upstream}")
    for reason in done.skipped:
        print(f"left alone {reason}")
    print(f"backup: {backup_of(path)} (mrtr-studio wrap-config {path} --undo restores it)")
    return 0
