"""Pydantic models of the wire types the client reads field by field (camelCase on the wire,
snake_case in Python): the answers its responders and forms build (ElicitResult, roots) and the
input_required result. Everything else stays a dict validated against the official JSON Schema
(`protocol/schema.py`), so there is one description of each message, not two that drift.

`extra="allow"` keeps unknown fields so nothing a peer sends is lost when a model is dumped back.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def wire(self) -> dict[str, Any]:
        """The camelCase dict as it goes on the wire, without unset optional fields."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class InputRequest(WireModel):
    """One entry of `inputRequests`: a method and its params (no JSON-RPC id: it is not a request)."""

    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class InputRequiredResult(WireModel):
    result_type: Literal["input_required"] = "input_required"
    input_requests: dict[str, InputRequest] | None = None
    request_state: str | None = None


ElicitAction = Literal["accept", "decline", "cancel"]


class ElicitResult(WireModel):
    action: ElicitAction
    content: dict[str, Any] | None = None


class Root(WireModel):
    uri: str
    name: str | None = None


class ListRootsResult(WireModel):
    roots: list[Root]
