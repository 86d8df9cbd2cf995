"""`subscriptions/listen` (2026-07-28, SEP-2575): long-lived streams for list changes and resource updates.

A client opens a stream naming the notifications it wants (`toolsListChanged`, `promptsListChanged`,
`resourcesListChanged`, `resourceSubscriptions`, and the tasks extension's `taskIds`, which
task_notifications.py serves); the server acknowledges the subset it honours
(`notifications/subscriptions/acknowledged`, always the stream's first message) and from then on
sends only those, each tagged with the stream's id in `_meta["io.modelcontextprotocol/subscriptionId"]`.
The stream is the open request itself: the transport streams what the engine sends on the way and
cancels the request when the client goes away. The engine ends it gracefully (with the result)
after `MAX_LISTEN_SECONDS`, and holds at most `MAX_STREAMS` at once, at most
`MAX_STREAMS_PER_PRINCIPAL` of them for one principal: one client (or one stolen token) cannot take
every slot and lock the others out of notifications.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, McpError
from .handler_api import Notify

if TYPE_CHECKING:
    from .tasks.notifications import TaskFeed

META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
TASK_NOTIFICATION = "notifications/tasks"
#: A stream ends by itself after this long (the client may listen again).
MAX_LISTEN_SECONDS = 3600.0
#: Open streams the server keeps at once; one more is refused.
MAX_STREAMS = 64
#: Open streams one principal may hold (the anonymous principal "" is one principal too).
MAX_STREAMS_PER_PRINCIPAL = 16
#: URIs one stream may watch.
MAX_RESOURCE_SUBSCRIPTIONS = 256
#: Notifications waiting for a slow stream; beyond it new ones are dropped (the ones queued already say
#: "re-read", which is all a list_changed or resources/updated ever says).
MAX_QUEUED = 256

#: The filter's flags and the notification each one lets through.
LIST_CHANGED = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}


@dataclass
class Stream:
    subscription_id: str | int
    notify: Notify
    methods: frozenset[str]
    uris: frozenset[str]
    principal: str = ""
    queue: "asyncio.Queue[tuple[str, dict[str, Any]]]" = field(
        default_factory=lambda: asyncio.Queue(MAX_QUEUED))


class ListenStreams:
    """The open `subscriptions/listen` streams of one server and what each asked for."""

    def __init__(self, max_seconds: float = MAX_LISTEN_SECONDS, max_streams: int = MAX_STREAMS,
                 max_per_principal: int = MAX_STREAMS_PER_PRINCIPAL) -> None:
        self.max_seconds = max_seconds
        self.max_streams = max_streams
        self.max_per_principal = max_per_principal
        self.streams: list[Stream] = []

    async def listen(self, request_id: str | int, params: dict[str, Any], notify: Notify | None,
                     offered: Callable[[str], bool], has_resource: Callable[[str], bool],
                     tasks: "TaskFeed | None" = None, principal: str = "") -> dict[str, Any]:
        """Serve one stream until it times out (graceful result) or the transport cancels it.

        `offered(flag)` says whether this server can send a list-changed kind; `has_resource(uri)`
        whether a URI names one of its resources; `tasks` which of the tasks asked for (`taskIds`) it
        reports on. Anything else the client asked for is left out of the acknowledgement, as the spec says.
        """
        if notify is None:
            raise McpError(INTERNAL_ERROR, "this transport cannot hold a subscriptions/listen stream open")
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise McpError(INVALID_PARAMS, "Invalid params: notifications must be an object")
        if len(self.streams) >= self.max_streams:
            raise McpError(INTERNAL_ERROR, f"too many open subscriptions/listen streams (at most {self.max_streams})")
        if sum(s.principal == principal for s in self.streams) >= self.max_per_principal:
            raise McpError(INTERNAL_ERROR, "too many open subscriptions/listen streams for this principal "
                                           f"(at most {self.max_per_principal}); close one first")
        accepted, methods, uris = _accept(wanted, offered, has_resource)
        task_ids: list[str] = []
        if wanted.get("taskIds") is not None and tasks is not None:
            task_ids = await tasks.accept(wanted["taskIds"])
            if task_ids:
                accepted["taskIds"] = task_ids
        stream = Stream(request_id, notify, frozenset(methods), frozenset(uris), principal)
        await notify("notifications/subscriptions/acknowledged",
                     {"_meta": {META_SUBSCRIPTION_ID: request_id}, "notifications": accepted})
        self.streams.append(stream)
        watchers = [asyncio.create_task(self._forward(stream, tasks, task_id)) for task_id in task_ids] \
            if tasks is not None else []
        try:
            await asyncio.wait_for(self._pump(stream), self.max_seconds)
        except TimeoutError:
            pass
        finally:
            self.streams.remove(stream)
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
        return {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: request_id}}

    @staticmethod
    async def _forward(stream: Stream, tasks: "TaskFeed", task_id: str) -> None:
        """One watched task's DetailedTask at each change, onto the stream (waiting for room: a task's last
        status is never dropped, and one watcher holds at most one notification)."""
        async for task in tasks.watch(task_id):
            await stream.queue.put((TASK_NOTIFICATION, {**task, "_meta": {META_SUBSCRIPTION_ID:
                                                                            stream.subscription_id}}))

    async def _pump(self, stream: Stream) -> None:
        while True:
            method, params = await stream.queue.get()
            await stream.notify(method, params)

    def publish(self, method: str, params: dict[str, Any] | None = None, uri: str | None = None) -> int:
        """Queue a notification for every stream that asked for it; returns how many streams get it."""
        reached = 0
        for stream in self.streams:
            if method not in stream.methods or (uri is not None and uri not in stream.uris):
                continue
            body = {**(params or {}), "_meta": {META_SUBSCRIPTION_ID: stream.subscription_id}}
            try:
                stream.queue.put_nowait((method, body))
            except asyncio.QueueFull:
                continue
            reached += 1
        return reached


def _accept(wanted: dict[str, Any], offered: Callable[[str], bool], has_resource: Callable[[str], bool]
            ) -> tuple[dict[str, Any], set[str], set[str]]:
    accepted: dict[str, Any] = {}
    methods: set[str] = set()
    for flag, method in LIST_CHANGED.items():
        value = wanted.get(flag)
        if value is not None and not isinstance(value, bool):
            raise McpError(INVALID_PARAMS, f"Invalid params: notifications.{flag} must be a boolean")
        if value and offered(flag):
            accepted[flag] = True
            methods.add(method)
    requested = wanted.get("resourceSubscriptions")
    uris: set[str] = set()
    if requested is not None:
        if not isinstance(requested, list) or not all(isinstance(u, str) for u in requested):
            raise McpError(INVALID_PARAMS, "Invalid params: notifications.resourceSubscriptions must be strings")
        if len(requested) > MAX_RESOURCE_SUBSCRIPTIONS:
            raise McpError(INVALID_PARAMS, f"Invalid params: at most {MAX_RESOURCE_SUBSCRIPTIONS} resource URIs")
        uris = {uri for uri in requested if has_resource(uri)}
        if uris:
            accepted["resourceSubscriptions"] = [uri for uri in dict.fromkeys(requested) if uri in uris]
            methods.add("notifications/resources/updated")
    return accepted, methods, uris
