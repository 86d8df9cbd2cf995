"""The scenario library: guided lessons over the demo server, each step explained with its spec section.

A lesson is one or more runs (an operation with a client setup and, optionally, something done to
the retry). Every message a run puts on the wire is matched to an explanation by its round and kind
("r1.request", "r2.complete", "r1.server_request", ...), so the lesson speaks at every step.
"""

from dataclasses import dataclass, field
from typing import Any

from ..client.call_plan import ClientCall
from ..client.settings import ALL_CAPABILITIES
from ..protocol.spec_links import MRTR, SPEC


@dataclass(frozen=True)
class Step:
    text: str
    spec: str


@dataclass(frozen=True)
class LessonRun(ClientCall):
    identity: str = ""
    #: Done to the first retry: "expire" (the clock passes the state's lifetime), "identity:NAME", or "replay"
    #: (send the requestState the previous run completed with instead of this run's own).
    before_retry: str | None = None
    #: Runs naming a node run on that engine of the lesson's small cluster (one secret for all); none: a fresh
    #: engine. `shared_store`: the node's replay guard is the store the lesson's other sharing nodes use.
    node: str | None = None
    shared_store: bool = False
    #: "complete" or the JSON-RPC error code the run must end with.
    expect: str | int = "complete"
    #: Real bearer JWTs: each identity gets a token from an in-process issuer and the principal is what the
    #: server's JWT check makes of it (`iss#sub`), as `serve --auth jwt` does.
    tokens: bool = False
    #: Explanation per message, keyed "r<round>.<kind>".
    steps: dict[str, Step] = field(default_factory=dict)
    #: Draft SEPs the run switches on, on its own engine and its client ("sep-2643", "sep-3221").
    drafts: frozenset[str] = frozenset()
    #: Draft SEP-3221: the host's secure parameters per tool (sent as `secureArguments`).
    secure_arguments: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    intro: str
    runs: tuple[LessonRun, ...]


def deprecated(features: str) -> str:
    """Said in every lesson that uses roots or sampling (SEP-2577), with why they are still taught."""
    return (f" {features} deprecated in 2026-07-28 (SEP-2577): new servers should not adopt them, but they keep "
            "working through the deprecation window and legacy servers still use them, so clients must still "
            "handle them; that is why this lesson stays.")


def _s(text: str, anchor: str = "basic-workflow", page: str = MRTR) -> Step:
    return Step(text, f"{page}#{anchor}")


_FIRST = _s("The client calls the tool as usual: no session, no handshake. The request's `_meta` carries the "
            "protocol version, the client's info and its capabilities.", "basic-workflow")
_RETRY = _s("The client retries the SAME request with a NEW JSON-RPC id, the answers in `inputResponses` keyed "
            "like the requests, and the `requestState` echoed byte for byte.", "client-requirements-basic-workflow")
_DONE = _s("The server verified the state, found every answer it needed and completed: `resultType: complete`.",
           "basic-workflow")

LESSONS: tuple[Lesson, ...] = (
    Lesson("confirm-delete", "Confirm before delete",
           "The smallest MRTR flow: the server needs a yes before it acts, so it answers the call with a question.",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("Instead of a result, the server answers `input_required` with one "
                                       "elicitation form (key `confirm`) and a signed `requestState`. This "
                                       "request is now over: the server keeps nothing.", "inputrequiredresult"),
               "r2.request": _RETRY, "r2.complete": _DONE}),)),
    Lesson("wizard", "A three-step wizard carrying state",
           "Each round asks one question; the answers so far travel inside the signed requestState, so any "
           "server instance can continue.",
           (LessonRun("tools/call", "deploy_wizard", steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("Round 1 asks for the environment; the state records step 0.",
                                       "server-requirements-basic-workflow"),
               "r2.request": _RETRY,
               "r2.input_required": _s("A new state, carrying the chosen environment: the server stores the "
                                       "earlier answers in the state rather than in memory.",
                                       "server-requirements-basic-workflow"),
               "r3.request": _s("The third request sends only the newest answer; the state carries the rest.",
                                "client-requirements-basic-workflow"),
               "r3.input_required": _s("Last question: confirm. The round number in the state is 3.",
                                       "server-requirements-basic-workflow"),
               "r4.request": _RETRY, "r4.complete": _DONE}),)),
    Lesson("sampling", "Sampling: the server borrows the client's model",
           "A `sampling/createMessage` input request asks the client's LLM; the client (and its user) stay in "
           "control of what is sent." + deprecated("Sampling is") + " Its replacement: the server calls an LLM "
           "provider's API itself.",
           (LessonRun("tools/call", "summarize", {"text": "MRTR replaces server-initiated requests."}, steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("The input request is a CreateMessageRequest: messages, a system prompt "
                                       "and maxTokens. The client must have declared `sampling`.",
                                       "creating-messages", SPEC + "client/sampling"),
               "r2.request": _s("The answer is a CreateMessageResult (role, content, model, stopReason) under the "
                                "key the server chose.", "inputresponses"),
               "r2.complete": _DONE}),)),
    Lesson("roots", "Roots: which folders may the server see?",
           "A `roots/list` input request asks for the client's roots, declared with the `roots` capability."
           + deprecated("Roots are") + " Its replacement: directories passed as tool parameters or resource URIs.",
           (LessonRun("tools/call", "count_roots", steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("`roots/list` as an input request: no params, just the method.",
                                       "listing-roots", SPEC + "client/roots"),
               "r2.request": _s("The ListRootsResult goes back in `inputResponses.roots`.", "inputresponses"),
               "r2.complete": _DONE}),)),
    Lesson("url-consent", "URL-mode consent",
           "Some things must not pass through the client (passwords, OAuth): the server sends a URL for the user "
           "to open, and the answer only says whether they completed it.",
           (LessonRun("tools/call", "connect_account", {"service": "github"}, steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("An elicitation with `mode: url`: the client shows the URL, with its host, "
                                       "and asks for consent before opening it. It needs `elicitation.url`.",
                                       "url-mode-elicitation-requests", SPEC + "client/elicitation"),
               "r2.request": _s("`action: accept` with no content: what happened in the browser stays there.",
                                "url-mode-elicitation-requests", SPEC + "client/elicitation"),
               "r2.complete": _DONE}),)),
    Lesson("several-inputs", "Several inputs in one round",
           "One input_required can ask for many things at once; the client answers them all in one retry."
           + deprecated("Two of its three asks, sampling and roots, are"),
           (LessonRun("tools/call", "plan_trip", {"destination": "Lisbon"}, steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("Three input requests, three methods: a form, a sampling request and "
                                       "`roots/list`. Keys are the server's and unique within the request.",
                                       "inputrequests"),
               "r2.request": _s("All three answers travel together in one `inputResponses` object.",
                                "inputresponses"),
               "r2.complete": _DONE}),)),
    Lesson("missing-capability", "A missing capability, and how a handler adapts",
           "Servers MUST NOT ask for what the client did not declare. The engine answers -32021 naming what is "
           "missing; a better handler reads the capabilities and adapts.",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"},
                      capabilities=ALL_CAPABILITIES - {"elicitation"}, expect=-32021, steps={
               "r1.request": _s("This client declares no `elicitation` in its `_meta` capabilities.",
                                "server-requirements-basic-workflow"),
               "r1.error": _s("-32021 MissingRequiredClientCapability, with `data.requiredCapabilities` = "
                              "`{elicitation: {}}`: the server would have needed to ask, and may not.",
                              "error-handling")}),
            LessonRun("tools/call", "safe_delete", {"path": "/tmp/report.txt"},
                      capabilities=ALL_CAPABILITIES - {"elicitation"}, steps={
               "r1.request": _s("Same client, a handler that checks `request.client_capabilities` first.",
                                "server-requirements-basic-workflow"),
               "r1.complete": _s("It completes with `isError: true` and a clear sentence instead of an error "
                                 "the user cannot act on.", "error-handling")}))),
    Lesson("legacy-client", "A legacy client: -32603, then classic server requests",
           "A 2025-11-25 client has no input_required. A modern-only handler fails with -32603; a dual-era "
           "handler uses the classic server-initiated request inside the open call." + deprecated("Roots, "
           "which the second run asks for, are"),
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, era="legacy", expect=-32603,
                      steps={
               "r1.request": _s("After `initialize`, the legacy client calls the tool without `_meta`.",
                                "backward-compatibility-with-initialization-based-versions",
                                SPEC + "basic/versioning"),
               "r1.error": _s("-32603 `input_required needs protocol 2026-07-28`: the handler asked for input, "
                              "but this client cannot receive an InputRequiredResult.", "supported-requests")}),
            LessonRun("tools/call", "count_roots", era="legacy", steps={
               "r1.request": _s("The same legacy client calls the dual-era `count_roots`.",
                                "backward-compatibility-with-initialization-based-versions",
                                SPEC + "basic/versioning"),
               "r1.server_request": _s("While the call is open, the server sends a classic `roots/list` request "
                                       "to the client (on the SSE stream over HTTP).",
                                       "backward-compatibility-with-initialization-based-versions",
                                       SPEC + "basic/versioning"),
               "r1.client_response": _s("The client answers it; the handler's `await` returns the roots.",
                                        "listing-roots", SPEC + "client/roots"),
               "r1.complete": _s("The call completes in one round: no retry, but a server that must keep the "
                                 "call open and remember the session.", "multi-round-trip-requests")}))),
    Lesson("expired-state", "An expired state",
           "The state carries an expiry. Answer too late, and the retry is rejected.",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, before_retry="expire",
                      expect=-32602, steps={
               "r1.request": _FIRST,
               "r1.input_required": _s("The state's `exp` is `iat` + the TTL (600 s by default).",
                                       "server-requirements-basic-workflow"),
               "r2.request": _s("The studio moves the engine's clock past `exp` before this retry.",
                                "server-requirements-basic-workflow"),
               "r2.error": _s("-32602 Invalid requestState, reason `expired`: a short TTL bounds the replay "
                              "window.", "security-considerations")}),)),
    Lesson("another-user", "Another user's state",
           "The state is bound to the principal. Alice's state presented by Bob is rejected.",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, identity="alice",
                      before_retry="identity:bob", expect=-32602, steps={
               "r1.request": _s("Alice calls the tool; the server binds the state to her principal.",
                                "server-requirements-basic-workflow"),
               "r1.input_required": _s("`p` in the state payload is `alice`.", "server-requirements-basic-workflow"),
               "r2.request": _s("Bob retries with Alice's state and answer.", "security-considerations"),
               "r2.error": _s("-32602 Invalid requestState, reason `principal`: state is never valid for "
                              "another user.", "security-considerations")}),)),
    Lesson("another-user-tokens", "Another user's state, with real tokens",
           "Alice and Bob hold bearer JWTs from the same issuer. The server verifies each token (signature via the "
           "issuer's keys, exp, aud, iss) and binds the state to `iss#sub`: Bob's valid token does not make "
           "Alice's state his.",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, identity="alice", tokens=True,
                      before_retry="identity:bob", expect=-32602, steps={
               "r1.request": _s("Alice calls the tool with her access token; the server verified it and took the "
                                "principal from its `iss` and `sub`.", "security-considerations"),
               "r1.input_required": _s("`p` in the state payload is the issuer followed by `#alice`: a state binds "
                                       "to a subject at an issuer, not to a token, so a refreshed token still "
                                       "fits.", "server-requirements-basic-workflow"),
               "r2.request": _s("Bob retries with Alice's state, carrying his own valid token.",
                                "security-considerations"),
               "r2.error": _s("-32602 Invalid requestState, reason `principal`: the token is valid, but it is "
                              "Bob's.", "security-considerations")}),)),
    Lesson("prompt-and-resource", "A prompt and a resource that ask",
           "`prompts/get` and `resources/read` may answer input_required too; nothing else may.",
           (LessonRun("prompts/get", "code_review", {"code": "def add(a, b):\n    return a + b\n"}, steps={
               "r1.request": _s("`prompts/get` is one of the three methods allowed to answer input_required.",
                                "supported-requests"),
               "r1.input_required": _s("The prompt asks what the review should focus on.", "supported-requests"),
               "r2.request": _RETRY,
               "r2.complete": _s("A GetPromptResult with the focus woven into the message.", "supported-requests")}),
            LessonRun("resources/read", "config://secrets", steps={
               "r1.request": _s("`resources/read` of a sensitive resource.", "supported-requests"),
               "r1.input_required": _s("The server asks before revealing; the state is bound to the URI.",
                                       "supported-requests"),
               "r2.request": _RETRY,
               "r2.complete": _s("The contents, with `ttlMs` and `cacheScope: private` (they are per-user).",
                                 "supported-requests")}))),
)

SEED_LOAD_BALANCER = "set the same secret on every node when the server runs behind a load balancer"
SPEC_SINGLE_USE = ("servers for which a given requestState must be consumed at most once MUST enforce that "
                   "invariant server-side")

LESSONS += (
    Lesson("scaling-out", "Scaling out",
           f"MRTR keeps no session, so any node can serve any round: \"{SEED_LOAD_BALANCER}\". But a signed "
           f"state can be replayed, and the spec says \"{SPEC_SINGLE_USE}\". `delete_file` is single-use; "
           "watch what per-node memory does with a replay, and what a shared store does. (The Cluster tab "
           "runs it with real `serve` processes, a real Redis and a real HAProxy.)",
           (LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, node="node 1", shared_store=True,
                      steps={
               "r1.request": _s("Node 1 of three engines sharing one secret (and, for nodes 1 and 3, one replay "
                                "store) gets the call.", "server-requirements-basic-workflow"),
               "r1.input_required": _s("The state is signed with the cluster's secret: every node can verify it, "
                                       "which is the load-balancer advice.", "server-requirements-basic-workflow"),
               "r2.request": _RETRY,
               "r2.complete": _s("Completed: the file is deleted, and node 1 records the state's nonce as consumed "
                                 "until the state expires.", "security-considerations")}),
            LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, node="node 2",
                      before_retry="replay", steps={
               "r1.request": _s("An attacker (or a retrying proxy) sends the same call to node 2, which keeps its "
                                "consumed nonces in its own memory.", "security-considerations"),
               "r1.input_required": _s("Node 2 asks as usual.", "server-requirements-basic-workflow"),
               "r2.request": _s("The retry carries the state that already completed on node 1, with its answer.",
                                "security-considerations"),
               "r2.complete": _s("Accepted: \"File deleted\" a second time. The state verifies (same secret) and "
                                 "node 2 never saw its nonce: per-node memory does not keep a single-use state "
                                 "single-use in a cluster.", "security-considerations")}),
            LessonRun("tools/call", "delete_file", {"path": "/tmp/report.txt"}, node="node 3", shared_store=True,
                      before_retry="replay", expect=-32602, steps={
               "r1.request": _s("The same replay to node 3, which shares node 1's store (`serve --store "
                                "redis://HOST:PORT/DB` on every node).", "security-considerations"),
               "r1.input_required": _s("Node 3 asks as usual.", "server-requirements-basic-workflow"),
               "r2.request": _s("The consumed state again.", "security-considerations"),
               "r2.error": _s("-32602 Invalid requestState, reason `replayed`: the shared store already holds the "
                              "nonce (Redis: one atomic `SET NX EX`), so every node refuses it. If the store "
                              "cannot be reached the node answers -32603 `store_unavailable`: never a silent "
                              "accept.", "security-considerations")})),
    ),
)

TASKS = "https://modelcontextprotocol.io/extensions/tasks/overview"
_WITH_TASKS = ALL_CAPABILITIES | {"tasks"}
LESSONS += (
    Lesson("long-job", "A long job that asks mid-way",
           "Some work outlives a request. With the tasks extension the server answers the call with a task "
           "handle at once; the client polls it, answers when it asks, and reads the result when it is done. "
           "A client that did not declare the extension gets -32021 naming it instead.",
           (LessonRun("tools/call", "long_report", {"sections": 2, "seconds_per_section": 0.05},
                      capabilities=_WITH_TASKS, steps={
               "r1.request": _s("The client declares the tasks extension in its per-request capabilities "
                                "(`extensions: {io.modelcontextprotocol/tasks: {}}`); the call is otherwise "
                                "ordinary.", "capability-negotiation", TASKS),
               "r1.task": _s("`resultType: task`: no result yet, a task id, a status (`working`), a TTL and the "
                             "poll interval the client should keep. The task exists before this answer "
                             "leaves the server.", "task-creation", TASKS),
               "r2.request": _s("`tasks/get` with the task id, at the interval the server asked for "
                                "(over HTTP the `Mcp-Name` header carries the id too).", "task-polling", TASKS),
               "r2.complete": _s("Each poll shows the task's status. Half-way it turns `input_required` with "
                                 "`inputRequests`: the same elicitation an MRTR round would send, answered by "
                                 "the same form.", "task-status", TASKS),
               "r3.request": _s("`tasks/update` carries the answer under the server's key (each key is answered "
                                "once in the task's life); then the polls go on.", "task-update-requests", TASKS),
               "r3.complete": _s("The update is acknowledged with an empty result (eventually consistent); "
                                 "the polls show `working` again, then `completed` with the tool's result "
                                 "inlined.", "task-update-requests", TASKS)}),)),
)

SEP_2643_PR = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2643"
SEP_3221_PR = "https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3221"
_HOST_BOUND = {"run_sql": {"project_id": "shop-analytics", "instance": "db-checkout-04"}}

#: Lessons on draft SEPs: each switches its draft on for its own engine and client only.
DRAFT_LESSONS: tuple[Lesson, ...] = (
    Lesson("draft-sep-2643", "Draft SEP-2643: an authorization denial the user can fix",
           "A draft (off by default, switched on for this lesson): the server denies on authorization grounds "
           "with an InputRequiredResult that carries a URL elicitation, a requestState and, in `_meta`, the "
           "denial envelope saying a remediation is available and how.",
           (LessonRun("tools/call", "list_folder", {"folderId": "fld_12345"}, drafts=frozenset({"sep-2643"}), steps={
               "r1.request": _FIRST,
               "r1.input_required": Step("`_meta[\"io.modelcontextprotocol/authorization\"]`: reason "
                                         "`insufficient_authorization`, remediation `available`, a `url` hint and an "
                                         "`authorizationContextId`; the URL itself is in `inputRequests`.",
                                         SEP_2643_PR),
               "r2.request": Step("The retry answers the elicitation, echoes `requestState` and echoes the handle in "
                                  "`_meta[\"io.modelcontextprotocol/authorization-context-id\"]` (the client MUST).",
                                  SEP_2643_PR),
               "r2.complete": Step("The server evaluated authorization afresh (the handle is for correlation, never "
                                   "authorization) and completed.", SEP_2643_PR)}),)),
    Lesson("draft-sep-3221", "Draft SEP-3221: secure parameters the model never sees",
           "A draft (off by default, switched on for this lesson): `run_sql` takes the query from the model in "
           "`arguments`, and the project and instance from the host in `secureArguments`, described by the "
           "tool's `secureInputSchema`. The retry of an MRTR round must carry them again; dropping them fails.",
           (LessonRun("tools/call", "run_sql", {"query": "SELECT count(*) FROM orders"},
                      drafts=frozenset({"sep-3221"}), secure_arguments=_HOST_BOUND, steps={
               "r1.request": Step("`secureArguments` beside `arguments`: the host bound them, the model only wrote "
                                  "the query (a name of the secure schema in `arguments` is -32602).", SEP_3221_PR),
               "r1.input_required": _s("The tool asks to confirm; its requestState binds the secure arguments too."),
               "r2.request": Step("The retry re-sends the same `secureArguments` with `inputResponses` and the "
                                  "state, as the SEP requires.", SEP_3221_PR),
               "r2.complete": _DONE}),
            LessonRun("tools/call", "run_sql", {"query": "SELECT count(*) FROM orders"},
                      drafts=frozenset({"sep-3221"}), secure_arguments=_HOST_BOUND, before_retry="drop-secure",
                      expect=-32602, steps={
               "r1.request": _s("The same call again."),
               "r1.input_required": _s("The same question, with a state bound to these secure arguments."),
               "r2.request": Step("This retry drops `secureArguments` (a careless client).", SEP_3221_PR),
               "r2.error": Step("-32602: the required secure parameters are missing; nothing ran.",
                                SEP_3221_PR)}))),
)

LESSONS = LESSONS + DRAFT_LESSONS
LESSONS_BY_ID = {lesson.id: lesson for lesson in LESSONS}


def step_key(round_number: int, kind: str) -> str:
    return f"r{round_number}.{kind}"
