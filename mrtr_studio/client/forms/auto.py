"""Answer a whole round's `inputRequests` without a person: the studio's "auto" responder.

Elicitations are accepted with `default_content`, sampling is answered by echo, roots/list with
the configured roots. Unknown methods are left out of the answer: per the MRTR spec the server
then simply asks again, which is exactly what a debugger wants to show.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .elicit import default_result
from .roots import list_roots_result
from .sampling import echo_reply

if TYPE_CHECKING:
    from mrtr_studio.protocol.models import Root

ELICIT, SAMPLE, ROOTS = "elicitation/create", "sampling/createMessage", "roots/list"


def auto_response(method: str, params: dict[str, Any],
                  roots: "Iterable[Root | dict[str, Any]]" = ()) -> dict[str, Any] | None:
    """The automatic answer to one input request, or None when the method has no automatic answer."""
    if method == ELICIT:
        return default_result(params)
    if method == SAMPLE:
        return echo_reply(params)
    if method == ROOTS:
        return list_roots_result(roots)
    return None


def auto_responses(input_requests: dict[str, Any],
                   roots: "Iterable[Root | dict[str, Any]]" = ()) -> dict[str, Any]:
    """`inputResponses` for every request of a round that can be answered automatically."""
    root_list = list(roots)
    answers: dict[str, Any] = {}
    for key, request in input_requests.items():
        if not isinstance(request, dict):
            continue
        answer = auto_response(str(request.get("method")), request.get("params") or {}, root_list)
        if answer is not None:
            answers[key] = answer
    return answers
