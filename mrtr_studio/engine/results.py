"""The wire shape of what a handler produced, and the notifications it may send on the way."""

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..protocol.versions import META_LOG_LEVEL
from .logging_level import DEFAULT_LEVEL, LOG_LEVELS, passes

if TYPE_CHECKING:  # handler_api imports this module: its Response is only named here
    from .handler_api import Response

__all__ = ["LOG_LEVELS", "Notify", "complete_result", "scoped_notify"]
#: How a handler's notifications leave: `await notify(method, params)`.
Notify = Callable[[str, dict[str, Any]], Awaitable[None]]


def scoped_notify(notify: Notify | None, params: dict[str, Any], modern: bool,
                  legacy_level: str | None = None) -> Notify | None:
    """Notifications the request asked for: progress needs its token; logs need `_meta` logLevel (modern)
    or reach the session's `logging/setLevel` threshold (legacy, `legacy_level`; everything when unset).
    What the request asked is read when a notification is sent: most requests send none."""
    if notify is None:
        return None

    async def send(method: str, body: dict[str, Any]) -> None:
        found = params.get("_meta")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        if method == "notifications/progress":
            token = meta.get("progressToken")
            if token is None:
                return
            body = {"progressToken": token, **body}
        if method == "notifications/message":
            threshold = str(meta.get(META_LOG_LEVEL)) if modern else (legacy_level or DEFAULT_LEVEL)
            if not passes(body.get("level"), threshold):
                return
        await notify(method, body)

    return send


def complete_result(method: str, response: "Response", modern: bool) -> dict[str, Any]:
    built = response.result
    result: dict[str, Any] = {"resultType": "complete"} if modern else {}
    if method == "tools/call":
        result["content"] = list(built.content)
        if built.is_error:
            result["isError"] = True
        if built.structured_content is not None:
            result["structuredContent"] = built.structured_content
    elif method == "prompts/get":
        if built.description:
            result["description"] = built.description
        result["messages"] = list(built.messages)
    else:
        result["contents"] = list(built.contents)
        if modern:
            result.update({"ttlMs": 0, "cacheScope": "private"})
    if built.meta:
        result["_meta"] = dict(built.meta)
    return result
