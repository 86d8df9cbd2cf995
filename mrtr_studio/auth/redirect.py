"""The browser step: how the authorization response comes back to the client.

`HeadlessRedirect` follows the authorization endpoint's redirects itself (mock servers, CI): it never
shows a page, so it only works where the server authorizes without a person. `LoopbackRedirect`
listens on 127.0.0.1 (RFC 8252 §7.3), hands the URL to `show` (print it, or open the browser), and
waits for the one request the browser makes to the redirect URI.
"""

import asyncio
import socket
from collections.abc import Callable
from urllib.parse import urljoin

from .exchanges import AuthError, AuthHttp, Exchange

MAX_HOPS = 5
MAX_REQUEST = 16 * 1024

PAGE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
        b"<!doctype html><title>MRTR Studio</title><p>Authorization finished; you can close this tab.</p>")


class HeadlessRedirect:
    def __init__(self, redirect_uri: str = "http://127.0.0.1:8976/callback") -> None:
        self.redirect_uri = redirect_uri

    async def aclose(self) -> None:
        return None

    async def authorize(self, url: str, http: AuthHttp) -> str:
        for _ in range(MAX_HOPS):
            reply = await http.request("authorization redirect", "GET", url, headers={"Accept": "text/html"})
            location = reply.headers.get("location")
            if reply.status not in (301, 302, 303, 307, 308) or not location:
                raise AuthError(f"the authorization endpoint answered HTTP {reply.status} without a redirect; "
                                "this server needs a person (run without --oauth-headless)")
            url = urljoin(url, location)
            if url.startswith(self.redirect_uri):
                return url
        raise AuthError(f"no redirect to {self.redirect_uri} after {MAX_HOPS} hops")


class LoopbackRedirect:
    """A one-shot listener on 127.0.0.1; the port is chosen when it is made, so it can be registered."""

    def __init__(self, show: Callable[[str], object], timeout: float = 300.0, path: str = "/callback") -> None:
        self.show = show
        self.timeout = timeout
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(4)
        self._socket.setblocking(False)
        self.redirect_uri = f"http://127.0.0.1:{self._socket.getsockname()[1]}{path}"
        self._server: asyncio.Server | None = None
        self._arrived: asyncio.Future[str] | None = None

    async def authorize(self, url: str, http: AuthHttp) -> str:
        self._arrived = asyncio.get_running_loop().create_future()
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, sock=self._socket, limit=MAX_REQUEST)
        http.record(Exchange("authorization redirect", "BROWSER", http.book.mask(url)), final=True)
        self.show(url)
        try:
            async with asyncio.timeout(self.timeout):
                return await self._arrived
        except TimeoutError:
            why = f"no authorization response on {self.redirect_uri} within {self.timeout:g} s"
            http.record(Exchange("authorization response", "REDIRECT", self.redirect_uri, error=why), final=True)
            raise AuthError(why) from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readuntil(b"\r\n"), 10)
            parts = line[:MAX_REQUEST].decode("latin-1").split(" ")
            if len(parts) >= 2 and parts[0] == "GET" and self._arrived is not None and not self._arrived.done():
                self._arrived.set_result(urljoin(self.redirect_uri, parts[1]))
            writer.write(PAGE)
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        else:
            self._socket.close()
