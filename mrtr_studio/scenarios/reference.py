"""The reference fixtures: what the official conformance suite's non-MRTR server scenarios call by name.

Tools, prompts and resources named and shaped as the suite's scenario texts specify
(`test_simple_text`, `test://static-text`, `test_prompt_with_arguments`, ...), so a client author can
test against `mrtr-studio serve` the way they would against the suite's own reference server.
They are written like any handler: the ones that ask the user or the model are dual-era (MRTR
`input_required` on 2026-07-28, a classic server-initiated request on a 2025-11-25 session), and
the logging and progress ones go through the engine's notification rules like every handler.
"""

import asyncio
import json
from typing import Any

from ..engine import Era, McpServer, Request, Response, Session
from ..engine.completion import choices
from ..engine.registry import registering_fixtures
from ..protocol.errors import INVALID_PARAMS, McpError

#: A 1x1 red PNG and a minimal WAV file, both base64.
PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV_BASE64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

#: How long the logging and progress tools pause between notifications (clients must see them spread out).
STEP_SECONDS = 0.05

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}

#: SEP-1613/SEP-2106: the 2020-12 vocabulary a server must pass through tools/list untouched.
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"username": {"type": "string", "description": "User's response"},
                   "email": {"type": "string", "description": "User's email address"}},
    "required": ["username", "email"],
}

#: SEP-1034: a default for every primitive type.
DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"],
                   "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


def _titled(prefix: str) -> list[dict[str, str]]:
    names = ("First", "Second", "Third")
    return [{"const": f"value{i}", "title": f"{names[i - 1]} {prefix}"} for i in (1, 2, 3)]


#: SEP-1330: the five enum shapes (untitled, titled, legacy enumNames, untitled and titled multi-select).
ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option",
                           "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Select one option with titles",
                         "oneOf": _titled("Option")},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                       "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1,
                        "maxItems": 3, "items": {"anyOf": _titled("Choice")}},
    },
    "required": [],
}


# --- content of every kind ----------------------------------------------------------------------

def simple_text(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_text("This is a simple text response for testing.")


def image_content(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_image(PNG_BASE64, "image/png")


def audio_content(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_audio(WAV_BASE64, "audio/wav")


def embedded_resource(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_resource("test://embedded-resource", "text/plain",
                                         text="This is an embedded resource content.")


def multiple_content_types(session: Session, request: Request, response: Response) -> None:
    content = response.result.content
    content.add_text("Multiple content types test:")
    content.add_image(PNG_BASE64, "image/png")
    content.add_resource("test://mixed-content-resource", "application/json",
                         text=json.dumps({"test": "data", "value": 123}, separators=(",", ":")))


def error_handling(session: Session, request: Request, response: Response) -> None:
    """A tool-level failure: a complete result with isError, not a JSON-RPC error."""
    response.result.is_error = True
    response.result.content.add_text("This tool intentionally returns an error for testing")


def json_schema_tool(session: Session, request: Request, response: Response) -> None:
    arguments = json.dumps(request.params.arguments, separators=(",", ":"), ensure_ascii=False)
    response.result.content.add_text(f"JSON Schema 2020-12 tool called with: {arguments}")


# --- notifications on the way -------------------------------------------------------------------

async def tool_with_logging(session: Session, request: Request, response: Response) -> None:
    """Three info logs, spread out; the engine drops them below the session's (or request's) level."""
    for i, text in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if i:
            await asyncio.sleep(STEP_SECONDS)
        await response.log("info", text, logger="reference")
    response.result.content.add_text("Tool with logging executed successfully")


async def tool_with_progress(session: Session, request: Request, response: Response) -> None:
    """0, 50, 100 of 100; the engine sends them only when the request carried a progressToken."""
    for i, done in enumerate((0, 50, 100)):
        if i:
            await asyncio.sleep(STEP_SECONDS)
        await response.send_progress(done, 100, f"Completed step {done} of 100")
    response.result.content.add_text("Tool with progress executed successfully")


# --- lists that change (subscriptions/listen streams hear of it) -----------------------------------

def dynamic_tool(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_text("This tool comes and goes with test_trigger_tool_change.")


def dynamic_prompt(session: Session, request: Request, response: Response) -> None:
    response.result.messages.add_user("This prompt comes and goes with test_trigger_prompt_change.")


def trigger_tool_change(session: Session, request: Request, response: Response) -> None:
    """Adds `test_dynamic_tool`, or removes it when present, and tells the listen streams."""
    server: McpServer = session.server
    if server.registry.tools.pop("test_dynamic_tool", None) is None:
        server.tool("test_dynamic_tool", "Added by test_trigger_tool_change", EMPTY)(dynamic_tool)
    streams = server.notify_list_changed("tools")
    response.result.content.add_text(f"Tool list changed; {streams} listen stream(s) told")


def trigger_prompt_change(session: Session, request: Request, response: Response) -> None:
    """Adds `test_dynamic_prompt`, or removes it when present, and tells the listen streams."""
    server: McpServer = session.server
    if server.registry.prompts.pop("test_dynamic_prompt", None) is None:
        server.prompt("test_dynamic_prompt", "Added by test_trigger_prompt_change")(dynamic_prompt)
    streams = server.notify_list_changed("prompts")
    response.result.content.add_text(f"Prompt list changed; {streams} listen stream(s) told")


# --- asking the client, in either era -----------------------------------------------------------

def _lacks(session: Session, request: Request, capability: str, response: Response) -> bool:
    """Legacy: a client that did not declare the capability gets a tool error (modern: the engine's -32021)."""
    if request.era is Era.LEGACY and capability not in request.client_capabilities:
        response.result.is_error = True
        response.result.content.add_text(f"The client did not declare the {capability} capability")
        return True
    return False


async def _elicit(session: Session, request: Request, response: Response, key: str, message: str,
                  schema: dict[str, Any]) -> dict[str, Any] | None:
    """The client's ElicitResult, or None after asking for it (modern: this round ends with input_required)."""
    if _lacks(session, request, "elicitation", response):
        return None
    if request.era is Era.LEGACY:
        return await session.server.request_elicitation(session.id, message, schema)
    if not request.has_input_response(key):
        response.input_required.add_elicitation(key, message, schema)
        return None
    return request.input_response_value(key) or {}


def _elicited(result: dict[str, Any]) -> str:
    content = result.get("content") or {}
    return f"action={result.get('action')}, content={json.dumps(content, separators=(',', ':'))}"


async def sampling(session: Session, request: Request, response: Response) -> None:
    prompt = request.params.arguments.get("prompt")
    if not isinstance(prompt, str):
        raise McpError(INVALID_PARAMS, "Invalid params: prompt (a string) is required")
    messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    if _lacks(session, request, "sampling", response):
        return
    if request.era is Era.LEGACY:
        result = await session.server.request_sampling(session.id, messages, max_tokens=100)
    elif not request.has_input_response("sample"):
        response.input_required.add_sampling("sample", messages, max_tokens=100)
        return
    else:
        result = request.input_response_value("sample") or {}
    content = result.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    response.result.content.add_text(f"LLM response: {text if isinstance(text, str) else 'No response'}")


async def elicitation(session: Session, request: Request, response: Response) -> None:
    message = request.params.arguments.get("message")
    if not isinstance(message, str):
        raise McpError(INVALID_PARAMS, "Invalid params: message (a string) is required")
    result = await _elicit(session, request, response, "user", message, USER_SCHEMA)
    if result is not None:
        response.result.content.add_text(f"User response: {_elicited(result)}")


async def elicitation_defaults(session: Session, request: Request, response: Response) -> None:
    result = await _elicit(session, request, response, "form",
                           "Please review and update the form fields with defaults", DEFAULTS_SCHEMA)
    if result is not None:
        response.result.content.add_text(f"Elicitation completed: {_elicited(result)}")


async def elicitation_enums(session: Session, request: Request, response: Response) -> None:
    result = await _elicit(session, request, response, "choices",
                           "Please select options from the enum fields", ENUMS_SCHEMA)
    if result is not None:
        response.result.content.add_text(f"Elicitation completed: {_elicited(result)}")


# --- prompts ------------------------------------------------------------------------------------

def _required(request: Request, *names: str) -> list[str]:
    values = [request.params.arguments.get(name) for name in names]
    missing = [name for name, value in zip(names, values, strict=True) if not isinstance(value, str)]
    if missing:
        raise McpError(INVALID_PARAMS, f"Invalid params: missing required argument(s) {', '.join(missing)}")
    return [str(value) for value in values]


def simple_prompt(session: Session, request: Request, response: Response) -> None:
    response.result.messages.add_user("This is a simple prompt for testing.")


def prompt_with_arguments(session: Session, request: Request, response: Response) -> None:
    arg1, arg2 = _required(request, "arg1", "arg2")
    response.result.messages.add_user(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")


def prompt_with_embedded_resource(session: Session, request: Request, response: Response) -> None:
    (uri,) = _required(request, "resourceUri")
    response.result.messages.add_resource("user", uri, "text/plain", text="Embedded resource content for testing.")
    response.result.messages.add_user("Please process the embedded resource above.")


def prompt_with_image(session: Session, request: Request, response: Response) -> None:
    response.result.messages.add_image("user", PNG_BASE64, "image/png")
    response.result.messages.add_user("Please analyze the image above.")


# --- resources ----------------------------------------------------------------------------------

def static_text(session: Session, request: Request, response: Response) -> None:
    response.result.contents.add_text("test://static-text", "This is the content of the static text resource.")


def static_binary(session: Session, request: Request, response: Response) -> None:
    response.result.contents.add_blob("test://static-binary", PNG_BASE64, "image/png")


def template_data(session: Session, request: Request, response: Response) -> None:
    uri = request.params.uri or ""
    item = request.params.arguments.get("id", "")
    body = {"id": item, "templateTest": True, "data": f"Data for ID: {item}"}
    response.result.contents.add_text(uri, json.dumps(body, separators=(",", ":")), "application/json")


WATCHED = "test://watched-resource"


class WatchedResource:
    """`test://watched-resource` and the tool that changes it, so subscribers have something to hear of."""

    def __init__(self) -> None:
        self.revision = 0

    def read(self, session: Session, request: Request, response: Response) -> None:
        text = "Watched resource content" + (f" (revision {self.revision})" if self.revision else "")
        response.result.contents.add_text(WATCHED, text)

    async def update(self, session: Session, request: Request, response: Response) -> None:
        self.revision += 1
        told = await session.server.notify_resource_updated(WATCHED)
        response.result.content.add_text(f"{WATCHED} is now at revision {self.revision}; {told} subscriber(s) told")


def register_reference_resources(server: McpServer) -> None:
    """The suite's `test://` resources, flagged `fixture`."""
    with registering_fixtures(server.registry):
        _register_resources(server)


def _register_resources(server: McpServer) -> None:
    """The suite's plain resources and template (registered before the demo's, see `build_demo_server`)."""
    server.resource("test://static-text", "static-text", "A static text resource for testing", "text/plain",
                    title="Static Text Resource")(static_text)
    server.resource("test://static-binary", "static-binary", "A static binary resource (image) for testing",
                    "image/png", title="Static Binary Resource")(static_binary)
    server.resource("test://template/{id}/data", "template", "A resource template with parameter substitution",
                    "application/json", title="Resource Template")(template_data)
    server.completion(template="test://template/{id}/data", argument="id")(choices("123", "456", "789"))


def register_reference_fixtures(server: McpServer) -> None:
    """The suite's tools, prompts and watched resource, with completions for every prompt argument."""
    tools = [
        ("test_simple_text", simple_text, "Tests simple text content response", EMPTY),
        ("test_image_content", image_content, "Tests image content response", EMPTY),
        ("test_audio_content", audio_content, "Tests audio content response", EMPTY),
        ("test_embedded_resource", embedded_resource, "Tests embedded resource content response", EMPTY),
        ("test_multiple_content_types", multiple_content_types,
         "Tests response with multiple content types (text, image, resource)", EMPTY),
        ("test_tool_with_logging", tool_with_logging, "Tests tool that emits log messages during execution", EMPTY),
        ("test_tool_with_progress", tool_with_progress, "Tests tool that reports progress notifications", EMPTY),
        ("test_error_handling", error_handling, "Tests error response handling", EMPTY),
        ("test_sampling", sampling, "Tests sampling (LLM completion request), in either era",
         {"type": "object", "required": ["prompt"],
          "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}}}),
        ("test_elicitation", elicitation, "Tests elicitation (user input request), in either era",
         {"type": "object", "properties": {"message": {"type": "string",
                                                       "description": "The message to show the user"}},
          "required": ["message"]}),
        ("test_elicitation_sep1034_defaults", elicitation_defaults,
         "Tests elicitation with default values per SEP-1034", EMPTY),
        ("test_elicitation_sep1330_enums", elicitation_enums,
         "Tests elicitation with enum schema improvements per SEP-1330", EMPTY),
        ("test_trigger_tool_change", trigger_tool_change, "Adds or removes test_dynamic_tool (tools/list_changed)",
         EMPTY),
        ("test_trigger_prompt_change", trigger_prompt_change,
         "Adds or removes test_dynamic_prompt (prompts/list_changed)", EMPTY),
        ("json_schema_2020_12_tool", json_schema_tool,
         "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)", JSON_SCHEMA_2020_12),
    ]
    for name, handler, description, schema in tools:
        server.tool(name, description, schema)(handler)
    watched = WatchedResource()
    server.resource(WATCHED, "watched-resource", "A resource to subscribe to (test_update_watched_resource)",
                    "text/plain", title="Watched Resource")(watched.read)
    server.tool("test_update_watched_resource", f"Changes {WATCHED} and tells its subscribers", EMPTY)(watched.update)
    server.prompt("test_simple_prompt", "A simple prompt without arguments",
                  title="Simple Test Prompt")(simple_prompt)
    server.prompt("test_prompt_with_arguments", "A prompt with required arguments",
                  [{"name": "arg1", "description": "First test argument", "required": True},
                   {"name": "arg2", "description": "Second test argument", "required": True}],
                  title="Prompt With Arguments")(prompt_with_arguments)
    server.prompt("test_prompt_with_embedded_resource", "A prompt that includes an embedded resource",
                  [{"name": "resourceUri", "description": "URI of the resource to embed", "required": True}],
                  title="Prompt With Embedded Resource")(prompt_with_embedded_resource)
    server.prompt("test_prompt_with_image", "A prompt that includes image content",
                  title="Prompt With Image")(prompt_with_image)
    server.completion(prompt="test_prompt_with_arguments", argument="arg1")(
        choices("paris", "park", "party", "test", "testing"))
    server.completion(prompt="test_prompt_with_arguments", argument="arg2")(choices("hello", "world"))
    server.completion(prompt="test_prompt_with_embedded_resource", argument="resourceUri")(
        choices("test://static-text", "test://static-binary", "test://watched-resource"))
