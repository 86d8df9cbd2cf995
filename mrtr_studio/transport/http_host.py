"""Hosting the HTTP app with uvicorn: the `serve` command, the GUI's in-process server, tests.

We bind the socket ourselves (port 0 gives a free port, a busy port gives a clear error instead of
uvicorn's `sys.exit`) and own the signal handling (so SIGINT/SIGTERM end `serve` with status 0).
Each accepted connection gets the protocol of `http_connections` (TCP_NODELAY, a header deadline,
a bounded number of connections); the body's deadline is the ASGI app's (`body_timeout`).
"""

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from ..auth.loopback_app import ThreadServer
from ..engine import McpServer
from .base import Tap
from .http_connections import connection_budget, protocol_class
from .http_server import HttpServerConfig, McpHttpApp


def create_app(server: McpServer, config: HttpServerConfig | None = None, tap: Tap | None = None) -> McpHttpApp:
    """The ASGI application uvicorn runs: the lean endpoint itself, with no framework around it. It routes
    by itself (`/mcp` and `/mcp/`, the Protected Resource Metadata paths under `--auth jwt`, a JSON 404
    for the rest); a Starlette router and its middleware cost about a tenth of a request's CPU."""
    return McpHttpApp(server, config, tap)


def close_app(app: Any) -> None:
    if isinstance(app, McpHttpApp):
        app.close()


class _Server(uvicorn.Server):
    """Uvicorn without its own signal handlers: the host decides what a signal means."""

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port); raises OSError with the reason."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(512)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def http_url(host: str, port: int, path: str = "/mcp") -> str:
    """`http://HOST:PORT/PATH`, an IPv6 host in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def url_of(sock: socket.socket, path: str = "/mcp") -> str:
    """The URL of a bound socket's address."""
    host, port = sock.getsockname()[:2]
    return http_url(host, port, path)


def make_server(app: Any, nodelay: bool = True, limits: HttpServerConfig | None = None,
                protocol: type[Any] | None = None) -> uvicorn.Server:
    """uvicorn for `app`, with the connection limits of `limits` (header and keep-alive timeouts,
    connections at once); `protocol`: a subclass of `protocol_class`'s (the forward proxy's)."""
    limits = limits or HttpServerConfig()
    connections = connection_budget(limits.max_connections)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none",
                            server_header=False, proxy_headers=False,
                            http=protocol or protocol_class(nodelay, limits.header_timeout, connections,
                                                            limits.max_header_bytes, limits.max_header_fields),
                            h11_max_incomplete_event_size=limits.max_header_bytes,
                            timeout_graceful_shutdown=2,
                            timeout_keep_alive=limits.keep_alive_timeout,  # type: ignore[arg-type]  # call_later takes float
                            limit_concurrency=connections + 1)
    return _Server(config)


async def wait_started(server: uvicorn.Server, task: "asyncio.Task[None]", timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the HTTP server stopped before it started")
        if loop.time() > deadline:
            raise TimeoutError("the HTTP server did not start in time")
        await asyncio.sleep(0.005)


async def stop(server: uvicorn.Server, task: "asyncio.Task[None]", timeout: float = 10.0) -> None:
    server.should_exit = True
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        server.force_exit = True
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


@contextlib.asynccontextmanager
async def serve_in_background(server: McpServer, host: str = "127.0.0.1", port: int = 0,
                              config: HttpServerConfig | None = None, tap: Tap | None = None,
                              nodelay: bool = True) -> AsyncIterator[str]:
    """Serve on the running loop; yields the endpoint URL and stops the server on exit."""
    serving = Serving(server, config, tap, host, nodelay)
    url = await serving.start(port)
    try:
        yield url
    finally:
        await serving.stop()


class Hosted:
    """An ASGI app on the running loop with explicit start and stop, for owners that outlive a `with`
    (the studio's embedded server and proxies, check-client). Subclasses say what app to serve
    (`_server`) and what to release after it stopped (`_released`); binding, waiting until uvicorn
    listens and stopping it are the same for all."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.url = ""
        self._sock: socket.socket | None = None
        self._uv: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None

    def _server(self) -> tuple[uvicorn.Server, str]:
        """A fresh uvicorn server for this start, and the app's path (for the URL)."""
        raise NotImplementedError

    async def _released(self) -> None:
        """After the server stopped: close what the app holds."""

    async def start(self, port: int = 0) -> str:
        self._sock = bind(self.host, port)
        self._uv, path = self._server()
        self._task = asyncio.create_task(self._uv.serve(sockets=[self._sock]))
        try:
            await wait_started(self._uv, self._task)
        except BaseException:
            await self.stop()
            raise
        self.url = url_of(self._sock, path)
        return self.url

    async def stop(self) -> None:
        if self._uv is not None and self._task is not None:
            await stop(self._uv, self._task)
        if self._sock is not None:
            self._sock.close()
        self._uv = self._task = self._sock = None
        await self._released()


class Serving(Hosted):
    """An MCP server over HTTP on the running loop."""

    def __init__(self, server: McpServer, config: HttpServerConfig | None = None, tap: Tap | None = None,
                 host: str = "127.0.0.1", nodelay: bool = True) -> None:
        super().__init__(host)
        self.server, self.config, self.tap, self.nodelay = server, config, tap, nodelay
        self._app: Any = None

    def _server(self) -> tuple[uvicorn.Server, str]:
        app = self._app = create_app(self.server, self.config, self.tap)
        return make_server(app, self.nodelay, self.config), app_path(self.config)

    async def _released(self) -> None:
        close_app(self._app)
        self._app = None


def app_path(config: HttpServerConfig | None) -> str:
    return (config or HttpServerConfig()).path


class ServerThread(ThreadServer):
    """The HTTP server on its own thread and event loop (the GUI's in-process server, sync tests).

    The engine then lives on that thread: talk to it over HTTP only.
    """

    def __init__(self, server: McpServer, host: str = "127.0.0.1", port: int = 0,
                 config: HttpServerConfig | None = None, tap: Tap | None = None) -> None:
        self.server = server
        self.host, self.port = host, port
        self.config, self.tap = config, tap
        self.url = ""
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._uv: uvicorn.Server | None = None
        self._thread = threading.Thread(target=self._run, name="mrtr-http-server", daemon=True)

    def start(self, timeout: float = 10.0) -> str:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the HTTP server thread did not start in time")
        if self._error is not None:
            raise self._error
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is not None and self._uv is not None:
            uv = self._uv
            self._loop.call_soon_threadsafe(setattr, uv, "should_exit", True)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start(); the thread must not die silently
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        sock = bind(self.host, self.port)
        app = create_app(self.server, self.config, self.tap)
        self._uv = make_server(app, limits=self.config)
        task = asyncio.create_task(self._uv.serve(sockets=[sock]))
        try:
            await wait_started(self._uv, task)
            self.url = url_of(sock, app_path(self.config))
            self._ready.set()
            await task
        finally:
            sock.close()
            close_app(app)
