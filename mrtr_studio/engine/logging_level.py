"""`logging/setLevel` (2025-11-25 and earlier): the session's threshold for `notifications/message`.

A legacy client sets the minimum level once per session; every log a handler sends afterwards on
that session is dropped when it is less severe. 2026-07-28 removed the method (each request names
its level in `_meta["io.modelcontextprotocol/logLevel"]` instead), so a modern request for it is
answered -32601 by the dispatcher before it gets here.
"""

from typing import Any

from ..protocol.errors import INVALID_PARAMS, McpError
from .server_session import Session

#: RFC 5424 severities, least severe first (the order the spec lists them in).
LOG_LEVELS: dict[str, int] = {name: rank for rank, name in enumerate(
    ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"))}

#: What a legacy session gets before it calls `logging/setLevel`: the spec lets the server choose; all of it.
DEFAULT_LEVEL = "debug"


def set_level(params: dict[str, Any], session: Session) -> dict[str, Any]:
    """Serve `logging/setLevel`: validate the level, remember it on the session, answer `{}`."""
    level = params.get("level")
    if not isinstance(level, str) or level not in LOG_LEVELS:
        raise McpError(INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(LOG_LEVELS)}",
                       {"level": level if isinstance(level, str) else None})
    session.log_level = level
    return {}


def passes(level: Any, threshold: str) -> bool:
    """Whether a log at `level` is at least as severe as `threshold` (unknown levels never pass)."""
    return isinstance(level, str) and level in LOG_LEVELS and threshold in LOG_LEVELS \
        and LOG_LEVELS[level] >= LOG_LEVELS[threshold]
