"""A cluster of real `mrtr-studio serve` processes behind a round-robin client transport.

MRTR's promise is that any instance can serve any round, as long as every instance can verify the
state: one shared secret makes a flow hop between nodes and complete; random per-instance secrets
make the second round fail on a node that did not mint the state. The transport records which node
answered each message, so the diagram and log can show the hops.
"""

import asyncio
import contextlib
import itertools
import os
import re
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from .. import defaults
from ..trace import TraceMessage, TraceStore
from ..transport.base import ClientTransport, ServerRequestHandler, Tap, TransportError, WireEvent
from . import processes

if TYPE_CHECKING:
    from ..client.session import RunResult

_LISTENING = re.compile(r"listening on (http://\S+)")
TransportFactory = Callable[[str], ClientTransport]


@dataclass
class Node:
    index: int
    url: str
    process: asyncio.subprocess.Process


@dataclass
class Cluster:
    nodes: list[Node] = field(default_factory=list)
    secret: str | None = None
    #: The nodes' `serve --store`: "memory" (each node its own) or the Redis URL they share.
    store: str = "memory"

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    async def stop(self, timeout: float = 10.0) -> None:
        processes.untrack(self)
        for node in self.nodes:
            if node.process.returncode is None:
                node.process.terminate()
        for node in self.nodes:
            try:
                await asyncio.wait_for(node.process.wait(), timeout)
            except TimeoutError:
                node.process.kill()
                await node.process.wait()

    def terminate(self) -> None:
        """SIGTERM every node still running, without waiting (the app is quitting): the asyncio child
        watcher reaps them."""
        processes.untrack(self)
        for node in self.nodes:
            if node.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    node.process.terminate()

    async def __aenter__(self) -> "Cluster":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def split_password(store: str) -> tuple[str, str | None]:
    """A store URL without its password, and the password (None when it has none)."""
    parts = urlsplit(store)
    if parts.password is None:
        return store, None
    host = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}@" if parts.username else ""
    return parts._replace(netloc=user + host).geturl(), unquote(parts.password)


async def start_cluster(size: int = 3, shared_secret: bool = True, host: str = "127.0.0.1",
                        startup_timeout: float = 30.0, store: str = "memory",
                        balancer_port: int | None = None) -> Cluster:
    """Start `size` engine processes on free loopback ports; shared or random per-instance secrets.

    `store` is each node's `serve --store` (memory, or one Redis URL for all); `balancer_port` is a
    load balancer's loopback port whose Host header the nodes must accept.
    """

    if size < 1:
        raise ValueError("a cluster needs at least one node")
    secret = secrets.token_urlsafe(24) if shared_secret else None
    env = {k: v for k, v in os.environ.items() if k != "MRTR_STUDIO_SECRET"}
    #: Each node watches the pipe on its stdin (never written): it closes when this process dies,
    #: however it dies, and the node stops instead of outliving the studio.
    env[defaults.EXIT_WITH_STDIN_ENV] = "1"
    # A store password travels to the nodes in their environment (private to this user), never on their
    # command line (any local user can list it) nor in the cluster's label.
    store, password = split_password(store)
    if password is not None:
        env[defaults.STORE_PASSWORD_ENV] = password
    cluster = Cluster(secret=secret, store=store)
    try:
        for index in range(size):
            args = [sys.executable, "-m", "mrtr_studio", "serve", "--host", host, "--port", "0",
                    "--explain-rejections"]
            if secret:
                args.append(f"--secret={secret}")  # a token may start with "-"
            args.append(f"--store={store}")
            if balancer_port is not None:
                args += ["--allow-host", f"{host}:{balancer_port}"]
            process = await asyncio.create_subprocess_exec(
                *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=env)
            url = await asyncio.wait_for(_listening_url(process), startup_timeout)
            cluster.nodes.append(Node(index, url, process))
    except BaseException:
        await cluster.stop()
        raise
    processes.track(cluster)
    return cluster


async def run_round_robin(cluster: Cluster, store: TraceStore, tool: str, arguments: dict[str, Any],
                          label: str) -> "RunResult":
    """One flow across the cluster, each round on the next node, recorded in `store` (the Cluster view's run)."""
    from ..client.auto_answers import auto_respond
    from ..client.session import ClientSession
    from ..client.settings import ClientSettings

    mode = "one shared secret" if cluster.secret else "random per-node secrets"
    session = ClientSession(RoundRobinTransport(cluster.urls), ClientSettings(era="modern"), auto_respond,
                            store, server_label=f"cluster of {len(cluster.nodes)} ({mode}): {cluster.urls[0]}")
    try:
        return await session.call_tool(tool, dict(arguments), label=label)
    finally:
        await session.close()


async def _listening_url(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    while True:
        line = await process.stdout.readline()
        if not line:
            err = b""
            if process.stderr is not None:
                with contextlib.suppress(Exception):
                    err = await asyncio.wait_for(process.stderr.read(), 2)
            raise TransportError(f"node exited before listening: {err.decode(errors='replace').strip()}")
        found = _LISTENING.search(line.decode(errors="replace"))
        if found:
            return found.group(1)


def node_lane(entry: TraceMessage) -> str | None:
    """The diagram lane of a message: the node that carried it ("Node 1"), None when not recorded."""
    node = entry.transport.get("node")
    return f"Node {node}" if isinstance(node, int) else None


def cluster_lanes(size: int) -> tuple[str, ...]:
    """The lanes of a cluster's diagram before any message: the person, the client, every node."""
    return ("User", "Client", *(f"Node {index}" for index in range(size)))


class RoundRobinTransport:
    """Sends each request to the next node in turn; every recorded message names its node."""

    def __init__(self, urls: list[str], factory: TransportFactory | None = None) -> None:
        if not urls:
            raise ValueError("no nodes")
        make = factory or _http_transport
        self.tap = Tap()
        self.urls = list(urls)
        self.nodes = [make(url) for url in self.urls]
        self._turn = itertools.cycle(range(len(self.nodes)))
        for index, transport in enumerate(self.nodes):
            transport.tap.listen(self._forward(index))

    def _forward(self, index: int) -> Callable[[WireEvent], None]:
        def forward(event: WireEvent) -> None:
            self.tap.emit(event.direction, event.message, **event.meta, node=index, node_url=self.urls[index])

        return forward

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        return await self.nodes[next(self._turn)].send(message)

    def on_server_request(self, handler: ServerRequestHandler) -> None:
        for transport in self.nodes:
            transport.on_server_request(handler)

    async def close(self) -> None:
        for transport in self.nodes:
            await transport.close()


def _http_transport(url: str) -> ClientTransport:
    from ..transport.http_client import HttpClientTransport

    return HttpClientTransport(url)
