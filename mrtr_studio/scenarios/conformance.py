"""The fixtures the official conformance suite calls by name (SEP-2322 MRTR and SEP-2575 stateless).

The suite's other server scenarios (content kinds, prompts, resources, logging, progress,
legacy elicitation and sampling) call the reference fixtures of `reference.py`, registered here too.

The suite fixes the tool and prompt names, some input keys (`user_name`) and what each round must
return; everything else is written like any demo handler, so the studio can show these too.
Registered on the demo server by `register_conformance_fixtures`, so `mrtr-studio serve` passes
the suite with no extra flag.
"""

import json
from typing import Any

from ..engine import McpServer, Request, Response, Session
from ..engine.registry import registering_fixtures
from .reference import register_reference_fixtures

PREFIX = "test_input_required_result_"


def _object_schema(name: str, kind: str = "string") -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind}}, "required": [name]}


def _text(role: str, text: str) -> list[dict[str, Any]]:
    return [{"role": role, "content": {"type": "text", "text": text}}]


def _content(request: Request, key: str) -> dict[str, Any]:
    """The accepted elicitation content for `key` ({} when declined or absent)."""
    answer = request.input_response_value(key) or {}
    content = answer.get("content")
    return content if answer.get("action") == "accept" and isinstance(content, dict) else {}


def elicitation(session: Session, request: Request, response: Response) -> None:
    """Completes from `user_name` alone (no requestState needed); asks again while it is missing."""
    if not request.has_input_response("user_name"):
        response.input_required.add_elicitation("user_name", "What is your name?", _object_schema("name"))
        return
    name = _content(request, "user_name").get("name") or "stranger"
    response.result.content.add_text(f"Hello, {name}!")


def sampling(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("capital_question"):
        response.input_required.add_sampling(
            "capital_question", _text("user", "What is the capital of France?"), max_tokens=100)
        return
    reply = request.input_response_value("capital_question") or {}
    said = reply.get("content", {}).get("text", "") if isinstance(reply.get("content"), dict) else ""
    response.result.content.add_text(f"The model said: {said}")


def list_roots(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("client_roots"):
        response.input_required.add_roots("client_roots")
        return
    roots = (request.input_response_value("client_roots") or {}).get("roots") or []
    response.result.content.add_text(f"The client has {len(roots)} root(s)")


def request_state(session: Session, request: Request, response: Response) -> None:
    """Needs both the answer and its own state back: the state is what proves round one happened."""
    if not request.has_input_response("confirm") or request.params.request_state != "awaiting-confirm":
        response.input_required.add_elicitation("confirm", "Continue?", _object_schema("ok", "boolean"))
        response.input_required.request_state = "awaiting-confirm"
        return
    response.result.content.add_text(f"state-ok (confirmed: {_content(request, 'confirm').get('ok')})")


_MULTI_KEYS = ("user_name", "greeting", "client_roots")


def multiple_inputs(session: Session, request: Request, response: Response) -> None:
    if not all(request.has_input_response(key) for key in _MULTI_KEYS):
        ask = response.input_required
        ask.add_elicitation("user_name", "What is your name?", _object_schema("name"))
        ask.add_sampling("greeting", _text("user", "Write a one-line greeting."), max_tokens=50)
        ask.add_roots("client_roots")
        ask.request_state = "multiple-inputs"
        return
    name = _content(request, "user_name").get("name", "stranger")
    roots = (request.input_response_value("client_roots") or {}).get("roots") or []
    response.result.content.add_text(f"Got a name ({name}), a greeting and {len(roots)} root(s)")


def multi_round(session: Session, request: Request, response: Response) -> None:
    """Three rounds; round three carries only the step-2 answer, so the state keeps step 1's."""
    state = json.loads(request.params.request_state) if request.params.request_state else {"step": 1}
    if state["step"] == 1 and request.has_input_response("step1"):
        state = {"step": 2, "name": _content(request, "step1").get("name", "")}
    elif state["step"] == 2 and request.has_input_response("step2"):
        color = _content(request, "step2").get("color", "")
        response.result.content.add_text(f"{state['name']} likes {color}")
        return
    if state["step"] == 1:
        response.input_required.add_elicitation("step1", "What is your name?", _object_schema("name"))
    else:
        response.input_required.add_elicitation(
            "step2", "What is your favourite colour?", _object_schema("color"))
    response.input_required.request_state = json.dumps(state)


def tampered_state(session: Session, request: Request, response: Response) -> None:
    """The engine signs the state; any edit to it fails verification before this code runs."""
    if not request.has_input_response("confirm") or request.params.request_state is None:
        response.input_required.add_elicitation("confirm", "Continue?", _object_schema("ok", "boolean"))
        response.input_required.request_state = "untampered"
        return
    response.result.content.add_text("state verified")


def capabilities(session: Session, request: Request, response: Response) -> None:
    """Asks only through what this request's `_meta` declares."""
    caps = request.client_capabilities
    answered = [key for key in ("question", "confirm", "roots") if request.has_input_response(key)]
    if answered:
        response.result.content.add_text("answered: " + ", ".join(answered))
        return
    if "sampling" in caps:
        response.input_required.add_sampling("question", _text("user", "Say something."), max_tokens=50)
    if "elicitation" in caps:
        response.input_required.add_elicitation("confirm", "Continue?", _object_schema("ok", "boolean"))
    if "roots" in caps:
        response.input_required.add_roots("roots")
    if response.input_required.is_empty:
        response.result.content.add_text("the client declared no capability to ask through")


def prompt(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("user_context"):
        response.input_required.add_elicitation(
            "user_context", "What context should the prompt use?", _object_schema("context"))
        return
    context = _content(request, "user_context").get("context", "")
    response.result.description = "A prompt built from the client's answer"
    response.result.messages.add_user(f"Use this context: {context}")


def missing_capability(session: Session, request: Request, response: Response) -> None:
    """Always needs sampling: a client that did not declare it gets -32021 from the engine."""
    if not request.has_input_response("completion"):
        response.input_required.add_sampling("completion", _text("user", "Complete this."), max_tokens=20)
        return
    response.result.content.add_text("sampled")


def streaming_elicitation(session: Session, request: Request, response: Response) -> None:
    """Asks through input_required, never with a request on the response stream (SEP-2575)."""
    if not request.has_input_response("confirm"):
        response.input_required.add_elicitation("confirm", "Continue?", _object_schema("ok", "boolean"))
        return
    response.result.content.add_text("confirmed")


async def logging_tool(session: Session, request: Request, response: Response) -> None:
    """Logs at several levels; the engine drops them all unless `_meta` asked for a logLevel."""
    await response.log("info", "logging_tool started", logger="conformance")
    await response.log("warning", "this is a warning", logger="conformance")
    response.result.content.add_text("logged")


EMPTY = {"type": "object", "properties": {}}


def register_conformance_fixtures(server: McpServer) -> None:
    """The suite's fixtures, each entry flagged `fixture` (the studio's explorer lists them apart)."""
    with registering_fixtures(server.registry):
        _register_fixtures(server)


def _register_fixtures(server: McpServer) -> None:
    tools = [
        ("elicitation", elicitation, "MRTR: one elicitation (key user_name)."),
        ("sampling", sampling, "MRTR: one sampling request."),
        ("list_roots", list_roots, "MRTR: one roots/list request."),
        ("request_state", request_state, "MRTR: needs its requestState back."),
        ("multiple_inputs", multiple_inputs, "MRTR: elicitation, sampling and roots at once."),
        ("multi_round", multi_round, "MRTR: three rounds, state carries earlier answers."),
        ("tampered_state", tampered_state, "MRTR: signed state; tampering is rejected."),
        ("capabilities", capabilities, "MRTR: asks only through declared capabilities."),
    ]
    for suffix, handler, description in tools:
        # The suite answers `user_name` without a requestState (extra-keys and validation checks).
        stateless = suffix == "elicitation"
        server.tool(PREFIX + suffix, description, EMPTY, eras=("modern",),
                    inputs_need_state=False if stateless else None)(handler)
    server.prompt(PREFIX + "prompt", "MRTR on prompts/get: asks for context first.")(prompt)
    server.tool("test_missing_capability", "Needs sampling; rejects clients without it (-32021).", EMPTY,
                eras=("modern",))(missing_capability)
    server.tool("test_streaming_elicitation", "Elicits through input_required, never on the stream.", EMPTY,
                eras=("modern",))(streaming_elicitation)
    server.tool("test_logging_tool", "Logs only when the request asked for a logLevel.", EMPTY)(logging_tool)
    register_reference_fixtures(server)
