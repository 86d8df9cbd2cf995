"""The deprecation lint: a note wherever a trace uses a feature 2026-07-28 deprecates.

SEP-2577 deprecates roots, sampling and logging in 2026-07-28, and the same revision deprecates Dynamic
Client Registration (PR #2858, in favour of Client ID Metadata Documents). Nothing breaks on the wire
during the deprecation window, so these are notes (severity "info"), not errors: they say what is
deprecated, where the spec says so, and what replaces it, so a server or client author can plan the
move. The SEP asks developer tooling to warn when deprecated features are negotiated; the studio
points at the message that uses one. `check --fail-on deprecated` turns them into a failure for CI.
"""

from dataclasses import dataclass
from typing import Any

from .model import Finding, TraceMessage, auth_exchange, result_of

DEPRECATED_FEATURE = "deprecated-feature"
SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"


@dataclass(frozen=True)
class Deprecation:
    feature: str
    by: str
    spec: str
    replacement: str

    def note(self, where: str) -> Finding:
        return Finding(DEPRECATED_FEATURE, "info",
                       f"{where}: {self.feature} is deprecated in 2026-07-28 ({self.by}); {self.replacement}. "
                       f"See {self.spec}")


ROOTS = Deprecation("Roots", "SEP-2577", f"{SPEC}/client/roots",
                    "pass directories or files via tool parameters, resource URIs or server configuration")
SAMPLING = Deprecation("Sampling", "SEP-2577", f"{SPEC}/client/sampling",
                       "integrate directly with an LLM provider's API")
LOGGING = Deprecation("Logging", "SEP-2577", f"{SPEC}/server/utilities/logging",
                      "log to stderr (stdio) and use OpenTelemetry for observability")
DCR = Deprecation("Dynamic Client Registration", "PR #2858",
                  f"{SPEC}/basic/authorization/client-registration#dynamic-client-registration",
                  "use Client ID Metadata Documents")

#: Method -> the deprecated feature it belongs to (requests, server requests, input requests, notifications).
BY_METHOD = {"roots/list": ROOTS, "notifications/roots/list_changed": ROOTS, "sampling/createMessage": SAMPLING,
             "logging/setLevel": LOGGING, "notifications/message": LOGGING}


def _input_requests(message: Any) -> dict[str, Any]:
    """The inputRequests a response carries (an input_required result, or a task waiting for input)."""
    result = result_of(message)
    asked = result.get("inputRequests")
    if not isinstance(asked, dict):
        task = result.get("task")
        asked = task.get("inputRequests") if isinstance(task, dict) else None
    return asked if isinstance(asked, dict) else {}


def deprecation_findings(entry: TraceMessage) -> list[Finding]:
    """A note per deprecated feature `entry` uses (none for anything else)."""
    if entry.kind == "auth":
        phase = str(auth_exchange(entry).get("phase", ""))
        return [DCR.note(f"the {phase} exchange")] if "registration" in phase else []
    found: list[Finding] = []
    message = entry.message
    method = message.get("method") if isinstance(message, dict) else None
    if isinstance(method, str) and method in BY_METHOD:
        kind = {"request": "the request", "server_request": "the server's request"}.get(entry.kind, "the message")
        found.append(BY_METHOD[method].note(f"{kind} {method}"))
    if entry.direction == "server->client":
        for key, request in sorted(_input_requests(message).items()):
            asked = request.get("method") if isinstance(request, dict) else None
            if isinstance(asked, str) and asked in BY_METHOD:
                found.append(BY_METHOD[asked].note(f"inputRequests[{key!r}] ({asked})"))
    return found
