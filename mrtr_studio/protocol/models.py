"""Pydantic models of the MRTR-related wire types (camelCase on the wire, snake_case in Python).

They are used where a message must be understood field by field (the client's responders,
the GUI's forms, the trace's lint); `extra="allow"` keeps unknown fields so nothing a peer
sends is lost when a model is dumped back to the wire.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def wire(self) -> dict[str, Any]:
        """The camelCase dict as it goes on the wire, without unset optional fields."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Implementation(WireModel):
    name: str
    version: str
    title: str | None = None


class ElicitationCapability(WireModel):
    form: dict[str, Any] | None = None
    url: dict[str, Any] | None = None


class SamplingCapability(WireModel):
    context: dict[str, Any] | None = None
    tools: dict[str, Any] | None = None


class ClientCapabilities(WireModel):
    elicitation: ElicitationCapability | None = None
    sampling: SamplingCapability | None = None
    roots: dict[str, Any] | None = None
    experimental: dict[str, Any] | None = None
    extensions: dict[str, Any] | None = None


# --- input requests (what the server asks inside an InputRequiredResult) ---------------------


class ElicitFormParams(WireModel):
    message: str
    requested_schema: dict[str, Any]
    mode: Literal["form"] | None = None


class ElicitUrlParams(WireModel):
    message: str
    url: str
    mode: Literal["url"] = "url"
    elicitation_id: str | None = None


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str


class SamplingMessage(WireModel):
    role: Literal["user", "assistant"]
    content: Any


class ModelHint(WireModel):
    name: str | None = None


class ModelPreferences(WireModel):
    hints: list[ModelHint] | None = None
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None


class CreateMessageParams(WireModel):
    messages: list[SamplingMessage]
    max_tokens: int
    system_prompt: str | None = None
    model_preferences: ModelPreferences | None = None
    include_context: Literal["none", "thisServer", "allServers"] | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    metadata: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: dict[str, Any] | None = None


class InputRequest(WireModel):
    """One entry of `inputRequests`: a method and its params (no JSON-RPC id: it is not a request)."""

    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class InputRequiredResult(WireModel):
    result_type: Literal["input_required"] = "input_required"
    input_requests: dict[str, InputRequest] | None = None
    request_state: str | None = None


# --- input responses (what the client answers) ----------------------------------------------

ElicitAction = Literal["accept", "decline", "cancel"]


class ElicitResult(WireModel):
    action: ElicitAction
    content: dict[str, Any] | None = None


class CreateMessageResult(WireModel):
    role: Literal["user", "assistant"] = "assistant"
    content: Any
    model: str
    stop_reason: str | None = None


class Root(WireModel):
    uri: str
    name: str | None = None


class ListRootsResult(WireModel):
    roots: list[Root]


# --- complete results -----------------------------------------------------------------------


class CallToolResult(WireModel):
    result_type: str = "complete"
    content: list[dict[str, Any]]
    is_error: bool | None = None
    structured_content: Any = None


class PromptMessage(WireModel):
    role: Literal["user", "assistant"]
    content: dict[str, Any]


class GetPromptResult(WireModel):
    result_type: str = "complete"
    description: str | None = None
    messages: list[PromptMessage]


class ReadResourceResult(WireModel):
    result_type: str = "complete"
    contents: list[dict[str, Any]]
    ttl_ms: int = 0
    cache_scope: Literal["public", "private"] = "private"
