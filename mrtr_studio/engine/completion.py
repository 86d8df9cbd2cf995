"""`completion/complete` (both eras): suggestions for a prompt argument or a resource-template variable.

A server author registers a completer per (prompt, argument) or (template, variable):
`@server.completion(prompt="code_review", argument="language")` over a function
`(value, context_arguments) -> iterable of str`, or `choices(...)` for a fixed list filtered by
prefix. The engine validates the request, bounds the answer to the spec's 100 values (with
`total` and `hasMore` telling the client there were more) and answers an empty list for an
argument that exists but has no completer, so clients can always ask.
"""

import inspect
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, McpError
from .registry import Registry

#: The spec's cap on `completion.values`.
MAX_VALUES = 100
#: How many suggestions the engine counts for `total` before it stops reading a completer.
MAX_COUNTED = 10_000

Completer = Callable[[str, dict[str, str]], Any]


@dataclass(frozen=True)
class CompletionKey:
    """What a completer answers for: `ref/prompt` + prompt name, or `ref/resource` + template URI."""

    ref_type: str
    ref: str
    argument: str


def choices(*options: str) -> Completer:
    """A completer over fixed options: those starting with the typed value (case-insensitive), in order."""
    def complete(value: str, context: dict[str, str]) -> list[str]:
        typed = value.casefold()
        return [option for option in options if option.casefold().startswith(typed)]
    return complete


async def complete(registry: Registry, completers: dict[CompletionKey, Completer], params: dict[str, Any],
                   modern: bool) -> dict[str, Any]:
    """Serve `completion/complete`: -32602 for a malformed request, an unknown prompt, template or argument."""
    key, value, context = _parse(registry, params)
    completer = completers.get(key)
    values: list[str] = []
    total = 0
    if completer is not None:
        try:
            found = completer(value, context)
            if inspect.isawaitable(found):
                found = await found
            for suggestion in itertools.islice(_strings(found), MAX_COUNTED):
                if len(values) < MAX_VALUES:
                    values.append(suggestion)
                total += 1
        except McpError:
            raise
        except Exception as exc:  # a completer bug is an internal error, never a crash or a leak
            raise McpError(INTERNAL_ERROR, "Internal error: the completer failed") from exc
    completion = {"values": values, "total": total, "hasMore": total > len(values)}
    return {"resultType": "complete", "completion": completion} if modern else {"completion": completion}


def _strings(found: Any) -> Iterable[str]:
    if not isinstance(found, Iterable) or isinstance(found, str | bytes | dict):
        raise TypeError("a completer returns an iterable of strings")
    for item in found:
        if not isinstance(item, str):
            raise TypeError("a completer returns an iterable of strings")
        yield item


def _parse(registry: Registry, params: dict[str, Any]) -> tuple[CompletionKey, str, dict[str, str]]:
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise McpError(INVALID_PARAMS, "Invalid params: completion/complete needs ref and argument objects")
    name, value = argument.get("name"), argument.get("value")
    if not isinstance(name, str) or not isinstance(value, str):
        raise McpError(INVALID_PARAMS, "Invalid params: argument.name and argument.value must be strings")
    found_context = params.get("context")
    context_obj: Any = {} if found_context is None else found_context
    if not isinstance(context_obj, dict):
        raise McpError(INVALID_PARAMS, "Invalid params: context must be an object")
    context = context_obj.get("arguments") or {}
    if not isinstance(context, dict) or not all(isinstance(v, str) for v in context.values()):
        raise McpError(INVALID_PARAMS, "Invalid params: context.arguments must map names to strings")
    ref_type = ref.get("type")
    if ref_type == "ref/prompt":
        target = ref.get("name")
        prompt = registry.prompts.get(target) if isinstance(target, str) else None
        if prompt is None:
            raise McpError(INVALID_PARAMS, f"Invalid params: unknown prompt {target!r}")
        known = {str(a.get("name")) for a in prompt.arguments if isinstance(a, dict)}
    elif ref_type == "ref/resource":
        target = ref.get("uri")
        template = registry.resources.get(target) if isinstance(target, str) else None
        if template is None or not template.is_template:
            raise McpError(INVALID_PARAMS, f"Invalid params: unknown resource template {target!r}")
        known = set(template.variables)
    else:
        raise McpError(INVALID_PARAMS, "Invalid params: ref.type must be 'ref/prompt' or 'ref/resource'")
    if name not in known:
        raise McpError(INVALID_PARAMS, f"Invalid params: {target!r} has no argument {name!r}")
    return CompletionKey(str(ref_type), str(target), name), value, context
