"""What a handler sees (`request`) and fills in (`response`), in the seed's request/response style.

A handler either completes (fills `response.result`) or asks (adds to `response.input_required`);
the engine turns that into the wire result, the capability check and the signed requestState.
"""

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import orjson

from ..protocol.versions import Era
from .results import Notify, scoped_notify


def _json_object(text: str, what: str) -> Any:
    """A handler's JSON text (orjson; the stdlib for what orjson refuses, big integers, and for its error words)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON: {exc}") from exc


T = TypeVar("T")


class InputRequiredBuilder:
    """Collects the input requests of one round, keyed as the client must answer them."""

    def __init__(self) -> None:
        self.requests: dict[str, dict[str, Any]] = {}
        self.request_state: str | None = None
        #: The result's `_meta` (a draft SEP's envelope, e.g. SEP-2643's denial).
        self.meta: dict[str, Any] = {}

    @property
    def is_empty(self) -> bool:
        return not self.requests and self.request_state is None

    def add_request(self, key: str, method: str, params_json: str | dict[str, Any]) -> None:
        params = _json_object(params_json, "params") if isinstance(params_json, str) else params_json
        if not isinstance(params, dict):
            raise ValueError("input request params must be a JSON object")
        self.requests[key] = {"method": method, "params": params}

    def add_elicitation(self, key: str, message: str, requested_schema_json: str | dict[str, Any]) -> None:
        schema = requested_schema_json
        if isinstance(schema, str):
            schema = _json_object(schema, "requested schema")
        self.add_request(key, "elicitation/create", {"mode": "form", "message": message, "requestedSchema": schema})

    def add_elicitation_url(self, key: str, message: str, url: str, elicitation_id: str | None = None) -> None:
        params: dict[str, Any] = {"mode": "url", "message": message, "url": url}
        if elicitation_id:
            params["elicitationId"] = elicitation_id
        self.add_request(key, "elicitation/create", params)

    def add_sampling(
        self,
        key: str,
        messages_json: str | list[Any],
        system_prompt: str | None = None,
        max_tokens: int = 256,
        **extra: Any,
    ) -> None:
        messages = _json_object(messages_json, "messages") if isinstance(messages_json, str) else messages_json
        params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
        if system_prompt:
            params["systemPrompt"] = system_prompt
        params.update(extra)
        self.add_request(key, "sampling/createMessage", params)

    def add_roots(self, key: str) -> None:
        self.add_request(key, "roots/list", {})


class ContentList(list[dict[str, Any]]):
    """`response.result.content`: the content blocks of a tool result."""

    def add_text(self, text: str) -> None:
        self.append({"type": "text", "text": text})

    def add_image(self, data_b64: str, mime_type: str) -> None:
        self.append({"type": "image", "data": data_b64, "mimeType": mime_type})

    def add_audio(self, data_b64: str, mime_type: str) -> None:
        self.append({"type": "audio", "data": data_b64, "mimeType": mime_type})

    def add_resource(self, uri: str, mime_type: str, text: str | None = None, blob_b64: str | None = None) -> None:
        """An embedded resource: its contents travel in the result (give `text` or `blob_b64`)."""
        self.append({"type": "resource", "resource": _resource_contents(uri, mime_type, text, blob_b64)})

    def add_resource_link(self, uri: str, name: str, **extra: Any) -> None:
        self.append({"type": "resource_link", "uri": uri, "name": name, **extra})


def _resource_contents(uri: str, mime_type: str, text: str | None, blob_b64: str | None) -> dict[str, Any]:
    if (text is None) == (blob_b64 is None):
        raise ValueError("an embedded resource has exactly one of text or blob")
    contents: dict[str, Any] = {"uri": uri, "mimeType": mime_type}
    contents.update({"text": text} if text is not None else {"blob": blob_b64})
    return contents


class PromptMessages(list[dict[str, Any]]):
    """`response.result.messages`: the messages of a prompt."""

    def add(self, role: str, text: str) -> None:
        self.append({"role": role, "content": {"type": "text", "text": text}})

    def add_user(self, text: str) -> None:
        self.add("user", text)

    def add_assistant(self, text: str) -> None:
        self.add("assistant", text)

    def add_image(self, role: str, data_b64: str, mime_type: str) -> None:
        self.append({"role": role, "content": {"type": "image", "data": data_b64, "mimeType": mime_type}})

    def add_resource(self, role: str, uri: str, mime_type: str, text: str | None = None,
                     blob_b64: str | None = None) -> None:
        self.append({"role": role, "content": {"type": "resource",
                                               "resource": _resource_contents(uri, mime_type, text, blob_b64)}})


class ResourceContents(list[dict[str, Any]]):
    """`response.result.contents`: the contents of a resource."""

    def add_text(self, uri: str, text: str, mime_type: str = "text/plain") -> None:
        self.append({"uri": uri, "mimeType": mime_type, "text": text})

    def add_blob(self, uri: str, blob_b64: str, mime_type: str) -> None:
        self.append({"uri": uri, "mimeType": mime_type, "blob": blob_b64})


class _MadeAtFirstRead(Generic[T]):
    """A slotted attribute (`_<name>`, None until then) made by `kind()` when first read; assignable."""

    def __init__(self, kind: Callable[[], T]) -> None:
        self.kind = kind
        self.slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:  # read on the class (documentation tools, introspection): the descriptor
            return self  # type: ignore[return-value]
        value: T | None = getattr(instance, self.slot)
        if value is None:
            value = self.kind()
            setattr(instance, self.slot, value)
        return value

    def __set__(self, instance: Any, value: T) -> None:
        setattr(instance, self.slot, value)


class ResultBuilder:
    """What a completing handler fills in. Its three lists (a tool's content, a prompt's messages, a
    resource's contents) are made when first read: a result uses one of them, and making the other two
    on every request was a measurable part of `serve`'s cost per call."""

    __slots__ = ("_content", "_contents", "_messages", "description", "is_error", "meta", "structured_content")

    def __init__(self, content: ContentList | None = None, messages: PromptMessages | None = None,
                 contents: ResourceContents | None = None, is_error: bool = False,
                 structured_content: Any = None, description: str | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        self._content = content
        self._messages = messages
        self._contents = contents
        self.is_error = is_error
        self.structured_content = structured_content
        self.description = description
        #: The result's `_meta` (a draft SEP's envelope, e.g. SEP-2643's denial).
        self.meta: dict[str, Any] = {} if meta is None else meta

    content = _MadeAtFirstRead(ContentList)
    messages = _MadeAtFirstRead(PromptMessages)
    contents = _MadeAtFirstRead(ResourceContents)


@dataclass
class TaskStart:
    """What `response.start_task` asked for: the body to run in the background and its settings."""

    body: Callable[[Any], Awaitable[None]]
    status_message: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class Response:
    """What a handler fills in: input requests (`input_required`) or a result (`result`), made at the
    first read, since a round uses one of the two; `asks_for_input` looks without making either."""

    __slots__ = ("_input_required", "_notify", "_notify_scope", "_result", "task")

    def __init__(self, input_required: InputRequiredBuilder | None = None, result: ResultBuilder | None = None,
                 notify: Notify | None = None, task: "TaskStart | None" = None,
                 notify_scope: "tuple[dict[str, Any], bool, str | None] | None" = None) -> None:
        self._input_required = input_required
        self._result = result
        self._notify = notify
        #: (params, modern, legacy level): `notify` then sends only what the request asked for
        #: (`results.scoped_notify`), wrapped when a handler first sends, since most never do.
        self._notify_scope = notify_scope
        self.task = task

    @property
    def notify(self) -> Notify | None:
        scope = self._notify_scope
        if scope is not None:
            self._notify_scope = None
            self._notify = scoped_notify(self._notify, *scope)
        return self._notify

    @notify.setter
    def notify(self, value: Notify | None) -> None:
        self._notify, self._notify_scope = value, None

    input_required = _MadeAtFirstRead(InputRequiredBuilder)
    result = _MadeAtFirstRead(ResultBuilder)

    @property
    def asks_for_input(self) -> bool:
        """The handler asked for input or left a state for the next round."""
        asked = self._input_required
        return asked is not None and not asked.is_empty

    def start_task(self, body: Callable[[Any], Awaitable[None]], status_message: str | None = None,
                   ttl_ms: int | None = None, poll_interval_ms: int | None = None) -> None:
        """Answer this tools/call with a task (SEP-2663) whose work is `await body(task)`.

        `task` is an `engine.tasks.TaskContext`: it asks for input (`task.input_required`, then
        `await task.wait_for_input()`), reports `await task.set_status(...)` and fills `task.result`.
        A client that did not declare the tasks extension gets the body run inline instead, and its
        result as an ordinary one (asking for input then is -32021).
        """
        self.task = TaskStart(body, status_message, ttl_ms, poll_interval_ms)

    async def send_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on the open request (SSE over HTTP); a no-op without a progress token."""
        if self.notify is None:
            return
        params: dict[str, Any] = {"progress": progress}
        if total is not None:
            params["total"] = total
        if message:
            params["message"] = message
        await self.notify("notifications/progress", params)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        if self.notify is None:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger:
            params["logger"] = logger
        await self.notify("notifications/message", params)


@dataclass(slots=True)  # one per request: slotted, it is made and read faster
class RequestParams:
    name: str
    arguments: dict[str, Any]
    request_state: str | None
    uri: str | None = None


@dataclass(slots=True)
class Request:
    method: str
    params: RequestParams
    era: Era
    client_capabilities: dict[str, Any]
    principal: str
    protocol_version: str
    round: int = 1
    input_responses: dict[str, dict[str, Any]] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    def has_input_response(self, key: str) -> bool:
        return key in self.input_responses

    def input_response(self, key: str) -> str:
        """The client's answer for `key` as raw JSON text, `""` when absent."""
        if key not in self.input_responses:
            return ""
        return json.dumps(self.input_responses[key], ensure_ascii=False)

    def input_response_value(self, key: str) -> dict[str, Any] | None:
        return self.input_responses.get(key)
