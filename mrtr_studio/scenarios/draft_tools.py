"""The demo tools of the draft SEPs, registered only when `ServerOptions.drafts` switches the draft on.

`list_folder` (draft SEP-2643): access to a folder needs an approval recorded by the server; the first
call is denied with the SEP's InputRequiredResult (a URL elicitation, the denial envelope with its
`authorizationContextId`, a requestState); the retry after approval lists the folder and says whether
the client echoed the handle (a missing echo is never a reason to refuse, as the SEP requires).

`run_sql` (draft SEP-3221): the query comes from the model in `arguments`; the project and instance are
the host's, in `secureArguments`, checked against the tool's `secureInputSchema` by the engine. It asks
for a confirmation first, so its retry must carry the same secureArguments again (the state binds them).
"""

import json

from ..engine import McpServer, Request, Response, Session
from ..engine.drafts import deny_with_url, envelope, new_context_id, secure_arguments
from ..protocol.drafts import AUTHORIZATION_META, CONTEXT_ID_META, SEP_2643, SEP_3221

CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Run it", "default": True}},
           "required": ["confirm"]}
SECURE_SQL = {"type": "object", "properties": {
    "project_id": {"type": "string", "minLength": 1, "description": "The project housing the database"},
    "instance": {"type": "string", "minLength": 1, "description": "The database instance"}},
    "required": ["project_id", "instance"], "additionalProperties": False}


def list_folder(session: Session, request: Request, response: Response) -> None:
    folder = str(request.params.arguments.get("folderId", "fld_12345"))
    state = json.loads(request.params.request_state) if request.params.request_state else None
    if state is None or not request.has_input_response("folder_approval"):
        context = new_context_id()
        deny_with_url(session, request, response, "folder_approval",
                      f"https://mcp.example.com/approve-folder-access?folder={folder}",
                      f"Open this page to approve access to folder {folder}.", context)
        if not response.input_required.is_empty:
            response.input_required.request_state = json.dumps({"folder": folder, "ctx": context})
        return
    answer = request.input_response_value("folder_approval") or {}
    if answer.get("action") != "accept":
        response.result.is_error = True
        response.result.content.add_text(f"Access to {folder} was not approved.")
        response.result.meta[AUTHORIZATION_META] = envelope("unavailable", state["ctx"])
        return
    meta = (request.raw.get("params") or {}).get("_meta") or {}
    echoed = meta.get(CONTEXT_ID_META) if isinstance(meta, dict) else None
    said = "echoed" if echoed == state["ctx"] else "not echoed (processed anyway)" if echoed is None \
        else "a different one (processed anyway)"
    response.result.content.add_text(f"Folder {state['folder']}: 3 files. authorizationContextId: {said}.")


def run_sql(session: Session, request: Request, response: Response) -> None:
    secure = secure_arguments(request)  # verified against secureInputSchema before this runs
    query = str(request.params.arguments.get("query", ""))
    where = f"{secure['instance']} in {secure['project_id']}"
    if not request.has_input_response("confirm"):
        response.input_required.add_elicitation("confirm", f"Run this query on {where}?\n{query}", CONFIRM)
        return
    answer = request.input_response_value("confirm") or {}
    confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm")
    response.result.content.add_text(f"Ran on {where}: {query}" if confirmed else "Query not run")


def register_draft_tools(server: McpServer) -> None:
    drafts = server.options.drafts
    if SEP_2643 in drafts:
        server.tool("list_folder", "List a folder; access needs an approval (draft SEP-2643 denial).",
                    {"type": "object", "properties": {"folderId": {"type": "string", "default": "fld_12345"}}},
                    eras=("modern",))(list_folder)
    if SEP_3221 in drafts:
        server.tool("run_sql", "Run SQL; the project and instance are the host's (draft SEP-3221 secure parameters).",
                    {"type": "object", "properties": {"query": {"type": "string", "default": "SELECT 1"}},
                     "required": ["query"]},
                    eras=("modern",), single_use=True, secure_input_schema=SECURE_SQL)(run_sql)
