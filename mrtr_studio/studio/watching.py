"""The studio watching software it does not own: recording proxies it starts and stops, and the live
feed that wrapped stdio sessions stream into. Every proxy and every wrapped session is its own
source in the operations list (its server label), stitched and linted like the embedded engine's.
"""

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..proxy.intercept import Held
from ..proxy.local_feed import FeedServer
from ..proxy.stitch import Stitcher
from ..trace import TraceStore
from ..transport.base import Tap

if TYPE_CHECKING:  # uvicorn and httpx load with the first proxy, not at launch
    from ..proxy.hosting import RunningProxy

PROXY_LABEL = "proxied client"


class Watching:
    def __init__(self, store: TraceStore, say: Callable[[str], None] = lambda text: None,
                 feed_home: Path | None = None) -> None:
        self.store = store
        self.say = say
        self.proxies: dict[str, RunningProxy] = {}
        self.feed: FeedServer | None = None
        self.feed_home = feed_home
        self.wrapped_sessions: list[str] = []
        #: Breakpoints on every proxy (mitmproxy's intercept); `on_held` hears each change of what is held.
        self.intercepting = False
        self.on_held: Callable[[], None] = lambda: None

    async def start_proxy(self, upstream: str, port: int = 0) -> str:
        """A proxy on 127.0.0.1 in front of `upstream`; returns the URL to point the client at."""
        from ..proxy.hosting import RunningProxy

        tap = Tap()
        proxy = RunningProxy(upstream, tap)
        url = await proxy.start(port)
        tap.listen(Stitcher(self.store, f"proxy {url} -> {upstream}", PROXY_LABEL))
        proxy.app.intercept.on_change = lambda: self.on_held()
        proxy.app.intercept.set_enabled(self.intercepting)
        self.proxies[url] = proxy
        self.say(f"Proxying {url} to {upstream}: point your client at {url}")
        return url

    def set_intercept(self, on: bool) -> None:
        """Hold every message at every proxy (on), or forward whatever is held and stop holding (off)."""
        self.intercepting = on
        for proxy in self.proxies.values():
            proxy.app.intercept.set_enabled(on)

    def held(self) -> list[tuple[str, Held]]:
        """(proxy URL, held message) still waiting for a decision, oldest first."""
        return [(url, held) for url, proxy in self.proxies.items() for held in proxy.app.intercept.held
                if not held.future.done()]

    def release(self, url: str, held: Held, message: object = None, drop: bool = False) -> None:
        proxy = self.proxies.get(url)
        if proxy is None:
            return
        if drop:
            proxy.app.intercept.drop(held)
        else:
            proxy.app.intercept.forward(held, message)

    async def stop_proxy(self, url: str) -> None:
        proxy = self.proxies.pop(url, None)
        if proxy is not None:
            proxy.app.intercept.set_enabled(False)  # nothing stays held by a proxy that is gone
            await proxy.stop()
            self.say(f"Stopped the proxy at {url}")

    async def start_feed(self) -> Path:
        """Listen for `mrtr-studio wrap` sessions; each arrives as its own source."""
        if self.feed is None:
            self.feed = FeedServer(self.store, self.feed_home, on_session=self._session_arrived)
            path = await self.feed.start()
            self.say(f"Listening for wrapped stdio sessions at {path}")
        return self.feed.socket_path

    def _session_arrived(self, label: str) -> None:
        self.wrapped_sessions.append(label)
        self.say(f"A wrapped stdio session arrived: {label}")

    async def stop_feed(self) -> None:
        feed, self.feed = self.feed, None
        if feed is not None:
            await feed.stop()

    async def close(self) -> None:
        for url in list(self.proxies):
            await self.stop_proxy(url)
        await self.stop_feed()
