"""Real infrastructure for the cluster: a Redis for the shared store and an HAProxy in front of the nodes.

Both are the Debian programs (`redis-server`, `haproxy`), started on free loopback ports with their
files in a temporary folder, each under `tether` so it dies with the process that started it, however
that process ends. Where a program is missing, `missing_programs` names the package to install and
everything else still works.
"""

import asyncio
import contextlib
import os
import secrets
import shutil
import socket
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

#: program -> the Debian package that provides it.
PACKAGES = {"redis-server": "redis-server", "haproxy": "haproxy"}


class ServiceError(RuntimeError):
    """A program could not be started, or did not become ready in time."""


def missing_programs(names: Sequence[str] = tuple(PACKAGES)) -> dict[str, str]:
    """Programs not on PATH -> the package that provides each."""
    return {name: PACKAGES[name] for name in names if shutil.which(name) is None}


def install_hint(missing: dict[str, str]) -> str:
    return f"sudo apt-get install {' '.join(sorted(set(missing.values())))}" if missing else ""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class Service:
    """One tethered program: its address, its process (the tether) and its temporary folder."""

    name: str
    host: str
    port: int
    process: asyncio.subprocess.Process
    folder: tempfile.TemporaryDirectory[str] = field(repr=False)

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    async def stop(self, timeout: float = 10.0) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        with contextlib.suppress(OSError):  # the tether has usually removed it already
            self.folder.cleanup()

    def terminate(self) -> None:
        """SIGTERM without waiting (the studio is quitting); the tether stops the program."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()


async def _tethered(name: str, args: list[str], folder: tempfile.TemporaryDirectory[str], host: str, port: int,
                    ready_timeout: float) -> Service:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mrtr_studio.teaching.tether", "--remove", folder.name, *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, cwd=folder.name)
    service = Service(name, host, port, process, folder)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ready_timeout
    while loop.time() < deadline:
        if process.returncode is not None:
            break
        with contextlib.suppress(OSError):
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 1.0)
            writer.close()
            return service
        await asyncio.sleep(0.05)
    await service.stop()
    raise ServiceError(f"{name} did not start listening on {host}:{port} "
                       f"({'it exited' if process.returncode is not None else 'timed out'})")


@dataclass
class RedisService(Service):
    #: What every client must present (requirepass): random per start unless given (a restart that
    #: keeps its clients). Never printed: `shown_url` is the URL without it.
    password: str = field(default="", repr=False)

    @property
    def url(self) -> str:
        """The URL clients connect with, the password in it (hand it to a store, never to a label)."""
        return f"redis://:{quote(self.password, safe='')}@{self.host}:{self.port}/0"

    @property
    def shown_url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"


async def start_redis(port: int | None = None, host: str = "127.0.0.1", ready_timeout: float = 15.0,
                      password: str | None = None) -> RedisService:
    """A throw-away redis-server: loopback only, a random password, nothing saved, its folder removed
    when it stops. The password is in its config file (0600 in the 0700 temporary folder), not on its
    command line, where any local user could read it."""
    if shutil.which("redis-server") is None:
        raise ServiceError("redis-server is not installed (Debian package: redis-server)")
    folder = tempfile.TemporaryDirectory(prefix="mrtr-redis-")
    port = port or free_port(host)
    password = password or secrets.token_urlsafe(24)
    config = Path(folder.name) / "redis.conf"
    fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(f'requirepass "{password}"\n')  # token_urlsafe: no quote or backslash to escape
    args = ["redis-server", str(config), "--bind", host, "--port", str(port), "--dir", folder.name, "--save", "",
            "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no", "--maxmemory", "64mb",
            "--maxmemory-policy", "noeviction", "--logfile", str(Path(folder.name) / "redis.log")]
    service = await _tethered("redis-server", args, folder, host, port, ready_timeout)
    return RedisService(service.name, host, port, service.process, folder, password)


def haproxy_config(backends: Sequence[str], host: str, port: int) -> str:
    """Round-robin in HTTP mode (each request balanced on its own), loopback only; names the node in a header."""
    lines = ["global", "    maxconn 512", "defaults", "    mode http", "    timeout connect 2s",
             "    timeout client 60s", "    timeout server 60s", "frontend mcp", f"    bind {host}:{port}",
             "    default_backend nodes", "backend nodes", "    balance roundrobin",
             "    http-response set-header X-Served-By %[srv_name]"]
    for index, url in enumerate(backends):
        parts = urlsplit(url)
        lines.append(f"    server node{index} {parts.hostname}:{parts.port}")
    return "\n".join(lines) + "\n"


@dataclass
class BalancerService(Service):
    path: str = "/mcp"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


async def start_haproxy(backends: Sequence[str], port: int | None = None, host: str = "127.0.0.1",
                        ready_timeout: float = 15.0) -> BalancerService:
    """HAProxy round-robin over `backends` (node URLs ending in /mcp); its generated config in a temp folder."""
    if shutil.which("haproxy") is None:
        raise ServiceError("haproxy is not installed (Debian package: haproxy)")
    if not backends:
        raise ValueError("HAProxy needs at least one node")
    folder = tempfile.TemporaryDirectory(prefix="mrtr-haproxy-")
    port = port or free_port(host)
    config = Path(folder.name) / "haproxy.cfg"
    config.write_text(haproxy_config(backends, host, port))
    service = await _tethered("haproxy", ["haproxy", "-db", "-f", str(config)], folder, host, port, ready_timeout)
    path = urlsplit(backends[0]).path or "/mcp"
    return BalancerService(service.name, host, port, service.process, folder, path)
