"""The demo server: the handlers `serve` and the studio's embedded engine expose (the README's demo server).

Each handler is written the way a server author would write it, so the studio can show its
source beside the wire when a lesson runs.
"""

import json
from typing import Any

from ..engine import Era, McpServer, Request, Response, ServerOptions, Session
from ..protocol import capabilities
from .conformance import register_conformance_fixtures
from .demo_skills import register_demo_skills
from .draft_tools import register_draft_tools
from .reference import register_reference_resources
from .task_fixtures import register_task_tools

CONFIRM_SCHEMA = '{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}'


class DemoServer(McpServer):
    """Maps the transport's authenticated user (bearer token / studio identity) to the principal."""

    def get_request_principal(self, session: Session) -> str:
        return session.user


def accepted(request: Request, key: str) -> dict[str, Any] | None:
    """The accepted elicitation content for `key`, or None when declined, cancelled or absent."""
    answer = request.input_response_value(key)
    if not answer or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, dict) else {}


def delete_file(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("confirm"):
        response.input_required.add_elicitation(
            "confirm", f"Delete the file {request.params.arguments.get('path', '')}?".replace(" ?", "?"),
            CONFIRM_SCHEMA)
        response.input_required.request_state = "step=1"
        return
    answer = request.input_response_value("confirm")  # the decoded answer: no JSON text round trip per call
    assert answer is not None  # has_input_response said so
    response.result.content.add_text("File deleted" if answer["action"] == "accept" else "Operation cancelled")


async def count_roots(session: Session, request: Request, response: Response) -> None:
    if request.era is Era.LEGACY:
        listed = await session.server.request_roots_list(session.id)
        roots = listed.get("roots", [])
    else:
        if not request.has_input_response("roots"):
            response.input_required.add_roots("roots")
            return
        roots = (request.input_response_value("roots") or {}).get("roots", [])
    names = ", ".join(str(r.get("uri")) for r in roots if isinstance(r, dict))
    response.result.content.add_text(f"{len(roots)} root(s)" + (f": {names}" if names else ""))


_WIZARD_STEPS = [
    ("environment", "Which environment do you want to deploy to?",
     {"type": "object", "properties": {"environment": {
         "type": "string", "title": "Environment", "enum": ["staging", "production"], "default": "staging"}},
      "required": ["environment"]}),
    ("version", "Which version should be deployed?",
     {"type": "object", "properties": {"version": {
         "type": "string", "title": "Version", "minLength": 1, "default": "1.0.0"}}, "required": ["version"]}),
    ("confirm", "Deploy now?",
     {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Confirm", "default": True}},
      "required": ["confirm"]}),
]


def deploy_wizard(session: Session, request: Request, response: Response) -> None:
    """Three rounds; the state carries the answers so far, so no server memory is needed."""
    state = json.loads(request.params.request_state) if request.params.request_state else {"step": 0}
    step = state["step"]
    key = _WIZARD_STEPS[step][0]
    if step > 0 or request.has_input_response(key):
        content = accepted(request, key)
        if request.has_input_response(key) and content is None:
            response.result.content.add_text("Deployment cancelled")
            return
        if content is not None:
            state[key] = content.get(key)
            step += 1
    if step >= len(_WIZARD_STEPS):
        if state.get("confirm"):
            response.result.content.add_text(f"Deployed {state['version']} to {state['environment']}")
        else:
            response.result.content.add_text("Deployment cancelled")
        return
    key, message, schema = _WIZARD_STEPS[step]
    state["step"] = step
    response.input_required.add_elicitation(key, message, schema)
    response.input_required.request_state = json.dumps(state)


def summarize(session: Session, request: Request, response: Response) -> None:
    text = str(request.params.arguments.get("text", ""))
    if not request.has_input_response("summary"):
        response.input_required.add_sampling(
            "summary", [{"role": "user", "content": {"type": "text", "text": f"Summarize:\n{text}"}}],
            system_prompt="You write one-sentence summaries.", max_tokens=200)
        return
    reply = request.input_response_value("summary") or {}
    content = reply.get("content")
    said = content.get("text", "") if isinstance(content, dict) else ""
    response.result.content.add_text(f"Summary: {said}")


def connect_account(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("consent"):
        service = request.params.arguments.get("service", "github")
        response.input_required.add_elicitation_url(
            "consent", f"Connect your {service} account in the browser, then press Done.",
            f"https://auth.example.com/connect?service={service}", elicitation_id="connect-1")
        return
    answer = request.input_response_value("consent") or {}
    response.result.content.add_text(
        "Account connected" if answer.get("action") == "accept" else f"Not connected ({answer.get('action')})")


def raw_request(session: Session, request: Request, response: Response) -> None:
    """Asks with any method/params the caller passes: a way to poke clients with odd input requests."""
    if not request.has_input_response("raw"):
        method = str(request.params.arguments.get("method", "elicitation/create"))
        params = request.params.arguments.get("params") or {
            "mode": "form", "message": "Anything to say?",
            "requestedSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
        response.input_required.add_request("raw", method, json.dumps(params))
        return
    response.result.content.add_text("Client answered: " + request.input_response("raw"))


def code_review(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("focus"):
        response.input_required.add_elicitation("focus", "What should the review focus on?", {
            "type": "object", "properties": {"focus": {
                "type": "string", "title": "Focus", "enum": ["security", "performance", "style"]}},
            "required": ["focus"]})
        return
    focus = (accepted(request, "focus") or {}).get("focus", "general quality")
    code = request.params.arguments.get("code", "")
    response.result.description = f"Code review focused on {focus}"
    response.result.messages.add_user(f"Please review this code with a focus on {focus}:\n\n{code}")


def secrets_resource(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("reveal"):
        response.input_required.add_elicitation(
            "reveal", "config://secrets holds credentials. Reveal them?", CONFIRM_SCHEMA)
        return
    content = accepted(request, "reveal")
    text = "API_KEY=demo-123\nDB_PASSWORD=hunter2" if content and content.get("confirm") else "(withheld)"
    response.result.contents.add_text("config://secrets", text, "text/plain")


def notes_resource(session: Session, request: Request, response: Response) -> None:
    """A resource template: the URI's `{topic}` arrives as an argument; it asks how much to show."""
    topic = request.params.arguments.get("topic", "")
    if not request.has_input_response("detail"):
        response.input_required.add_elicitation("detail", f"How much of the notes on {topic} should be shown?", {
            "type": "object", "properties": {"detail": {
                "type": "string", "title": "Detail", "oneOf": [
                    {"const": "summary", "title": "Just a summary"}, {"const": "full", "title": "Everything"}],
                "default": "summary"}}, "required": ["detail"]})
        return
    detail = (accepted(request, "detail") or {}).get("detail", "summary")
    text = f"Notes on {topic}: MRTR retries carry the state." + (
        " Full version: inputResponses are keyed like the requests." if detail == "full" else "")
    response.result.contents.add_text(str(request.params.uri), text, "text/plain")


def plan_trip(session: Session, request: Request, response: Response) -> None:
    """Three input requests in one round: the client answers them together in a single retry."""
    keys = ("traveller", "idea", "folders")
    if not all(request.has_input_response(k) for k in keys):
        response.input_required.add_elicitation("traveller", "Who is travelling?", {
            "type": "object", "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 1, "default": "Ada"},
                "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30, "default": 3}},
            "required": ["name", "nights"]})
        destination = request.params.arguments.get("destination", "Lisbon")
        response.input_required.add_sampling(
            "idea", [{"role": "user", "content": {"type": "text", "text": f"One thing to do in {destination}?"}}],
            max_tokens=60)
        response.input_required.add_roots("folders")
        return
    traveller = accepted(request, "traveller") or {}
    idea = (request.input_response_value("idea") or {}).get("content", {})
    folders = (request.input_response_value("folders") or {}).get("roots", [])
    response.result.content.add_text(
        f"{traveller.get('name', 'Someone')} stays {traveller.get('nights', '?')} night(s); "
        f"idea: {idea.get('text', '') if isinstance(idea, dict) else ''}; itinerary saved to "
        f"{folders[0]['uri'] if folders else 'nowhere (no roots)'}")


def safe_delete(session: Session, request: Request, response: Response) -> None:
    """Adapts instead of failing: without elicitation it refuses politely rather than causing -32021."""
    path = request.params.arguments.get("path", "")
    if request.era is Era.MODERN and not capabilities.declares(request.client_capabilities, {"elicitation": {}}):
        response.result.is_error = True
        response.result.content.add_text(f"Not deleting {path}: this client cannot ask you to confirm")
        return
    if not request.has_input_response("confirm"):
        response.input_required.add_elicitation("confirm", f"Delete the file {path}?", CONFIRM_SCHEMA)
        return
    content = accepted(request, "confirm")
    response.result.content.add_text("File deleted" if content and content.get("confirm") else "Operation cancelled")


def run_query(session: Session, request: Request, response: Response) -> None:
    """Its `region` is mirrored into the `Mcp-Param-Region` header (x-mcp-header), so proxies can route on it."""
    region, query = request.params.arguments.get("region"), request.params.arguments.get("query", "")
    if not request.has_input_response("confirm"):
        response.input_required.add_elicitation("confirm", f"Run this query in {region}?\n{query}", CONFIRM_SCHEMA)
        return
    content = accepted(request, "confirm")
    response.result.content.add_text(f"Ran the query in {region}" if content and content.get("confirm")
                                     else "Query not run")


def build_demo_server(options: ServerOptions | None = None, name: str = "mrtr-studio-demo") -> DemoServer:
    server = DemoServer(name=name, options=options)
    # Plain resources first: a client that reads "the first listed resource" (the conformance suite's
    # caching check does) gets a complete, cacheable read rather than config://secrets' question.
    register_reference_resources(server)
    path_schema = {"type": "object", "properties": {"path": {"type": "string", "description": "File to delete"}},
                   "required": ["path"]}
    server.tool("delete_file", "Delete a file after the user confirms (modern only).", path_schema,
                eras=("modern",), single_use=True)(delete_file)
    server.tool("count_roots", "Count the client's roots (dual-era).")(count_roots)
    server.tool("deploy_wizard", "A three-step deployment wizard carrying its state in requestState.",
                eras=("modern",))(deploy_wizard)
    server.tool("summarize", "Summarize text with the client's LLM (sampling).",
                {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                eras=("modern",))(summarize)
    server.tool("connect_account", "Connect an account through a URL-mode elicitation.",
                {"type": "object", "properties": {"service": {"type": "string", "default": "github"}}},
                eras=("modern",))(connect_account)
    server.tool("raw_request", "Ask the client with any input-request method and params.",
                {"type": "object", "properties": {"method": {"type": "string"}, "params": {"type": "object"}}},
                eras=("modern",))(raw_request)
    server.tool("plan_trip", "Asks three things in one round: a form, a sampling request and the roots.",
                {"type": "object", "properties": {"destination": {"type": "string", "default": "Lisbon"}}},
                eras=("modern",))(plan_trip)
    server.tool("safe_delete", "Like delete_file, but adapts when the client cannot elicit.", path_schema,
                eras=("modern",))(safe_delete)
    server.tool("run_query", "Run a query in a region; the region travels in the Mcp-Param-Region header.",
                {"type": "object", "properties": {
                    "region": {"type": "string", "description": "Where to run it", "x-mcp-header": "Region",
                               "default": "us-west1"},
                    "query": {"type": "string", "default": "SELECT 1"}},
                 "required": ["region", "query"]}, eras=("modern",))(run_query)
    server.prompt("code_review", "A code review prompt that asks what to focus on.",
                  [{"name": "code", "description": "The code to review", "required": True}])(code_review)
    server.resource("config://secrets", "secrets", "Credentials, revealed after confirmation.",
                    "text/plain")(secrets_resource)
    server.resource("notes://{topic}", "notes", "Notes on a topic (a template); asks how much to show.",
                    "text/plain")(notes_resource)
    register_task_tools(server)
    register_conformance_fixtures(server)
    register_demo_skills(server)
    register_draft_tools(server)  # only those whose draft SEP the options switch on
    return server
