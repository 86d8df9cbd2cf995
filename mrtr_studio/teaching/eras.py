"""The same operation as a modern and as a legacy client, recorded side by side in one store."""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..client.driver import Respond
from ..client.session import ClientSession, RunResult
from ..client.settings import ClientSettings
from ..trace import TraceStore
from ..transport.base import ClientTransport


@dataclass
class SideBySide:
    modern: RunResult
    legacy: RunResult


async def run_side_by_side(method: str, target: str, arguments: dict[str, Any] | None,
                           connect: Callable[[], ClientTransport], respond: Respond, store: TraceStore,
                           settings: ClientSettings | None = None, server_label: str = "embedded") -> SideBySide:
    """Each era gets its own connection: a legacy handshake must never colour the modern run."""
    base = settings or ClientSettings()
    results: dict[str, RunResult] = {}
    for era in ("modern", "legacy"):
        session = ClientSession(connect(), dataclasses.replace(base, era=era), respond, store, server_label)
        try:
            results[era] = await session.run(method, target, arguments, label=f"{era} client")
        finally:
            await session.close()
    return SideBySide(results["modern"], results["legacy"])
