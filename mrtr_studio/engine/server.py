"""McpServer: the registry, the sessions and the one transport-agnostic entry `handle`."""

import logging
from collections.abc import Callable
from typing import Any

from ..protocol import capabilities, jsonrpc
from ..protocol.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    McpError,
)
from ..protocol.skill_format import SKILLS_EXTENSION
from ..protocol.tasks_extension import TASK_METHODS, TASKS_EXTENSION, declares_tasks
from ..protocol.versions import (
    LEGACY_VERSION,
    LEGACY_VERSIONS,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    MODERN_VERSION,
    MRTR_METHODS,
    SUPPORTED_VERSIONS,
    Era,
)
from . import subscriptions
from .completion import Completer, CompletionKey, complete
from .drafts import bound_arguments, check_secure_schema, extensions_for, listed_tool, secure_call
from .handler_api import Notify, Response
from .legacy import LegacyRequests, call_outbound
from .listen import LIST_CHANGED, ListenStreams
from .logging_level import set_level
from .mrtr import Call, input_required_result, invalid_state, make_request, run_handler, verify_state
from .options import ServerOptions
from .registry import Handler, PromptEntry, Registry, ResourceEntry, ToolEntry
from .results import complete_result
from .server_session import Outbound, Session
from .shared_store import MemoryReplayStore, ReplayStore, StoreUnavailable, store_unavailable_error
from .skills import SKILL_METHODS, ServedSkill, SkillCatalogue
from .state_token import StateCodec
from .tasks.notifications import TaskFeed
from .tasks.service import TaskManager, missing_tasks
from .tasks.task_store import MemoryTaskStore, TaskStore
from .values import check_params

log = logging.getLogger(__name__)
Entry = ToolEntry | PromptEntry | ResourceEntry

#: Methods 2026-07-28 removed; a modern request for them is an unknown method (-32601).
REMOVED_IN_MODERN = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})



class McpServer(LegacyRequests):
    """A dual-era MCP server whose handlers ask for input with `input_required` (or, legacy, classically)."""

    def __init__(self, name: str = "mrtr-studio", options: ServerOptions | None = None,
                 task_store: TaskStore | None = None) -> None:
        self.name = name
        self.options = options or ServerOptions()
        self.registry = Registry()
        self.codec = StateCodec.from_secrets(self.options.mrtr.secret, ttl=self.options.mrtr.state_ttl,
                                             audiences=self.options.mrtr.audience or name)
        self.sessions: dict[str, Session] = {}
        #: Consumed single-use nonces; replace it with a shared store (redis_store) when running as a cluster.
        self.replay_guard: ReplayStore = MemoryReplayStore(clock=lambda: self.codec.clock())
        self.completers: dict[CompletionKey, Completer] = {}
        self.listeners = ListenStreams()
        #: The tasks extension (SEP-2663); a shared `task_store` lets several nodes serve the same tasks.
        self.tasks = TaskManager(task_store or MemoryTaskStore(), self.options.tasks)
        #: The skills extension (SEP-2640): declared, with its methods, once a skill is added.
        self.skills = SkillCatalogue()

    # --- registration ---------------------------------------------------------------------

    def tool(self, name: str, description: str = "", input_schema: dict[str, Any] | None = None,
             **extra: Any) -> Callable[[Handler], Handler]:
        if extra.get("secure_input_schema") is not None:  # refused when registered, not when first called
            check_secure_schema(extra["secure_input_schema"], name)

        def register(handler: Handler) -> Handler:
            entry = ToolEntry(name=name, handler=handler, description=description, **extra)
            if input_schema is not None:
                entry.input_schema = input_schema
            self.registry.tools[name] = entry
            return handler
        return register

    def prompt(self, name: str, description: str = "", arguments: list[dict[str, Any]] | None = None,
               **extra: Any) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.registry.prompts[name] = PromptEntry(name, handler, description, arguments or [], **extra)
            return handler
        return register

    def resource(self, uri: str, name: str | None = None, description: str = "",
                 mime_type: str | None = None, **extra: Any) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            entry = ResourceEntry(uri, handler, name or uri, description, mime_type, **extra)
            self.registry.resources[uri] = entry
            return handler
        return register

    def skill(self, skill_path: str, skill_md: str, files: dict[str, bytes | str] | None = None,
              listed: bool = True) -> ServedSkill:
        """Serve a skill: its entry in `skills/list`/`skills/get` and each of its files as a resource."""
        served = self.skills.add(skill_path, skill_md, files, listed=listed)
        for entry in served.resource_entries():
            self.registry.resources[entry.uri] = entry
        return served

    def completion(self, *, argument: str, prompt: str | None = None,
                   template: str | None = None) -> Callable[[Completer], Completer]:
        """Register `(value, context_arguments) -> iterable of str` for a prompt argument or template variable."""
        if (prompt is None) == (template is None):
            raise ValueError("name exactly one of prompt= or template=")
        key = (CompletionKey("ref/prompt", prompt, argument) if prompt is not None
               else CompletionKey("ref/resource", str(template), argument))

        def register(completer: Completer) -> Completer:
            self.completers[key] = completer
            return completer
        return register

    async def notify_resource_updated(self, uri: str) -> int:
        """Tell every client subscribed to `uri` (legacy sessions, modern listen streams) that it changed."""
        streams = self.listeners.publish("notifications/resources/updated", {"uri": uri}, uri=uri)
        return streams + await subscriptions.notify_updated(self.sessions.values(), uri)

    def notify_list_changed(self, kind: str) -> int:
        """After adding or removing tools, prompts or resources: tell the listen streams that asked for it."""
        method = f"notifications/{kind}/list_changed"
        if method not in LIST_CHANGED.values():
            raise ValueError(f"no list_changed notification for {kind!r}")
        return self.listeners.publish(method)

    # --- sessions and identity --------------------------------------------------------------

    def open_session(self, user: str = "", outbound: Outbound | None = None) -> Session:
        session = Session(user=user, outbound=outbound, server=self)
        self.sessions[session.id] = session
        return session

    def close_session(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session:
            for future in session.pending.values():
                if not future.done():
                    future.set_exception(McpError(INTERNAL_ERROR, "session closed"))

    def get_request_principal(self, session: Session) -> str:
        """Who the request acts for; states are bound to it. Override to map your auth."""
        return ""

    # --- the entry point --------------------------------------------------------------------

    async def handle(self, message: Any, session: Session, notify: Notify | None = None,
                     outbound: Outbound | None = None) -> dict[str, Any] | None:
        """Serve one incoming JSON-RPC message; returns the response, or None for notifications.

        `outbound`: the channel of this very call (HTTP: its SSE stream) for the legacy server-initiated
        requests its handler sends; without it they go on the session's own channel."""
        if outbound is not None:
            with call_outbound(outbound):
                return await self.handle(message, session, notify)
        session.server = self
        try:
            kind = jsonrpc.kind_of(message)
        except McpError as exc:
            msg_id = message.get("id") if isinstance(message, dict) else None
            return jsonrpc.error_from(msg_id if isinstance(msg_id, str | int) else None, exc)
        if kind in ("result", "error"):
            self._resolve_pending(message, session)
            return None
        if kind == "notification":
            if message["method"] == "notifications/initialized":
                session.initialized = True
            return None
        return await self.answer(message, session, notify)

    async def answer(self, message: dict[str, Any], session: Session, notify: Notify | None = None,
                     outbound: Outbound | None = None) -> dict[str, Any]:
        """Serve one request whose envelope `jsonrpc.kind_of` already found to be a request (the HTTP
        endpoint checks it before routing), so it is not classified twice; returns the response."""
        if outbound is not None:
            with call_outbound(outbound):
                return await self.answer(message, session, notify)
        session.server = self
        try:
            body = await self._serve(message, session, notify)
        except McpError as exc:
            return jsonrpc.error_from(message["id"], exc)
        except StoreUnavailable as problem:  # any shared state (tasks too): refused, never guessed
            return jsonrpc.error_from(message["id"], store_unavailable_error(problem))
        except Exception:
            log.exception("unexpected engine failure on %s", message.get("method"))
            return jsonrpc.error(message["id"], INTERNAL_ERROR, "Internal error")
        return jsonrpc.result(message["id"], body)

    async def _serve(self, message: dict[str, Any], session: Session, notify: Notify | None) -> dict[str, Any]:
        method = message["method"]
        params = message.get("params") or {}
        if method == "initialize" and not _has_modern_meta(params):
            return self._initialize(params, session)
        era, version = self._era_of(params, session, method)
        modern = era is Era.MODERN
        if modern and method in REMOVED_IN_MODERN:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {method} (removed in {MODERN_VERSION})")
        if method in MRTR_METHODS:  # the usual request first: each test below costs every call it passes
            caps = capabilities.from_meta(params) if modern else session.client_capabilities
            return await self._serve_mrtr(method, params, message, session, era, version, caps, notify)
        if method == "ping":
            return {}
        if method == "server/discover":
            return self._discover()
        if method == "tools/list":
            caps = capabilities.from_meta(params) if modern else session.client_capabilities
            tools = [listed_tool(t, caps, self.options.drafts) for t in self.registry.tools.values()]
            return self._listing("tools", [t for t in tools if t is not None], modern)
        if method == "prompts/list":
            return self._listing("prompts", [p.wire() for p in self.registry.prompts.values()], modern)
        if method == "resources/list":
            items = [r.wire() for r in self.registry.resources.values() if not r.is_template]
            return self._listing("resources", items, modern)
        if method == "resources/templates/list":
            items = [r.wire() for r in self.registry.resources.values() if r.is_template]
            return self._listing("resourceTemplates", items, modern)
        if method in TASK_METHODS and modern:
            principal = self.get_request_principal(session)
            return await self.tasks.serve(method, params, capabilities.from_meta(params), principal)
        if method == "subscriptions/listen" and modern:
            principal = self.get_request_principal(session)
            feed = TaskFeed(self.tasks, principal, declares_tasks(capabilities.from_meta(params)))
            return await self.listeners.listen(message["id"], params, notify, self._offers,
                                               lambda uri: self.registry.find_resource(uri) is not None, feed,
                                               principal)
        if method in SKILL_METHODS and self.skills:
            return self.skills.serve(method, params, modern, self.options.list_ttl_ms)
        if method == "completion/complete":
            return await complete(self.registry, self.completers, params, modern)
        if method == "logging/setLevel":
            return set_level(params, session)
        if method == "resources/subscribe":
            return subscriptions.subscribe(self.registry, params, session)
        if method == "resources/unsubscribe":
            return subscriptions.unsubscribe(params, session)
        raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}")

    # --- eras ---------------------------------------------------------------------------------

    def _era_of(self, params: dict[str, Any], session: Session, method: str) -> tuple[Era, str]:
        """The request's era; checks `_meta` in the spec's order: fields present, then version supported."""
        meta = params.get("_meta")
        if not isinstance(meta, dict) or META_PROTOCOL_VERSION not in meta:
            if session.is_legacy:
                return Era.LEGACY, session.protocol_version or LEGACY_VERSION
            if method == "ping":
                return Era.LEGACY, LEGACY_VERSION
            raise McpError(
                INVALID_PARAMS,
                f"Invalid params: missing _meta[{META_PROTOCOL_VERSION!r}] "
                "(modern requests carry their version; legacy clients must initialize first)",
            )
        version = meta[META_PROTOCOL_VERSION]
        if not isinstance(version, str):
            raise McpError(INVALID_PARAMS, f"Invalid params: _meta[{META_PROTOCOL_VERSION!r}] must be a string")
        if version not in LEGACY_VERSIONS and not isinstance(meta.get(META_CLIENT_CAPABILITIES), dict):
            raise McpError(INVALID_PARAMS, f"Invalid params: missing _meta[{META_CLIENT_CAPABILITIES!r}]")
        if version not in SUPPORTED_VERSIONS:
            raise McpError(
                UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(SUPPORTED_VERSIONS), "requested": version},
            )
        return Era.of_version(version), version

    def _initialize(self, params: dict[str, Any], session: Session) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        version = requested if requested in LEGACY_VERSIONS else LEGACY_VERSION
        caps = params.get("capabilities")
        info = params.get("clientInfo")
        session.era = Era.LEGACY
        session.protocol_version = version
        session.client_capabilities = caps if isinstance(caps, dict) else {}
        session.client_info = info if isinstance(info, dict) else {}
        self.sessions.setdefault(session.id, session)
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self._server_capabilities(modern=False),
            "serverInfo": self._server_info(),
        }
        if self.options.instructions:
            result["instructions"] = self.options.instructions
        return result

    def _server_info(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.options.version}

    def _server_capabilities(self, modern: bool) -> dict[str, Any]:
        """What this server offers in the given era (legacy alone has resources/subscribe)."""
        # Modern changes reach clients on subscriptions/listen streams; legacy HTTP has no stream for them.
        changes = {"listChanged": True} if modern else {}
        caps: dict[str, Any] = {"logging": {}}
        if self.registry.tools:
            caps["tools"] = dict(changes)
        if self.registry.prompts:
            caps["prompts"] = dict(changes)
        if self.registry.resources:
            caps["resources"] = {**changes, "subscribe": True}
        if self.registry.prompts or any(r.is_template for r in self.registry.resources.values()):
            caps["completions"] = {}
        if self.skills:
            caps["extensions"] = {SKILLS_EXTENSION: self.skills.settings()}
        if self.options.drafts:
            caps["extensions"] = {**caps.get("extensions", {}), **extensions_for(self.options.drafts)}
        return caps

    def _offers(self, flag: str) -> bool:
        """Whether a listen stream can get this list-changed kind (only for lists the server has)."""
        table = {"toolsListChanged": self.registry.tools, "promptsListChanged": self.registry.prompts,
                 "resourcesListChanged": self.registry.resources}
        return bool(table.get(flag))

    def _discover(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "resultType": "complete",
            "supportedVersions": list(SUPPORTED_VERSIONS),
            "capabilities": self._discover_capabilities(),
            "_meta": {META_SERVER_INFO: self._server_info()},
            "ttlMs": self.options.list_ttl_ms,
            "cacheScope": "public",
        }
        if self.options.instructions:
            result["instructions"] = self.options.instructions
        return result

    def _discover_capabilities(self) -> dict[str, Any]:
        caps = self._server_capabilities(modern=True)
        return {**caps, "extensions": {**caps.get("extensions", {}), TASKS_EXTENSION: {}}}

    def _listing(self, key: str, items: list[dict[str, Any]], modern: bool) -> dict[str, Any]:
        if not modern:
            return {key: items}
        return {"resultType": "complete", key: items, "ttlMs": self.options.list_ttl_ms, "cacheScope": "public"}

    # --- MRTR methods -------------------------------------------------------------------------

    async def _serve_mrtr(self, method: str, params: dict[str, Any], message: dict[str, Any], session: Session,
                          era: Era, version: str, caps: dict[str, Any], notify: Notify | None) -> dict[str, Any]:
        check_params(params, self.options.max_argument_depth, brackets=session.decoded_brackets)
        entry, name, arguments, variables = self._target(method, params, era)
        secure = secure_call(entry, params, arguments, caps, self.options.drafts) \
            if isinstance(entry, ToolEntry) else None
        call = Call(method, name, arguments, era, version, caps, self.get_request_principal(session), message,
                    bound_arguments(arguments, secure) if secure is not None else None)
        explain = self.options.mrtr.explain_rejections
        verified = verify_state(self.codec, call, explain)
        bind = self.options.mrtr.bind_inputs_to_state if entry.inputs_need_state is None else entry.inputs_need_state
        if getattr(entry, "task_support", "") == "required" and not declares_tasks(caps):
            raise missing_tasks(f"the tool {name}")
        request = make_request(call, verified, bind)
        if variables:
            request.params.arguments = {**variables, **arguments}
        response = Response(notify=notify, notify_scope=(params, era is Era.MODERN, session.log_level))
        guarded = entry.single_use and verified.nonce is not None
        if guarded:
            await self._claim(str(verified.nonce), float(verified.expires or 0), explain)
        completed = False
        try:
            await run_handler(entry.handler, session, request, response)
            if response.task is not None and method == "tools/call" and not response.asks_for_input:
                completed = True
                return await self.tasks.answer_call(request, response)
            if response.asks_for_input:
                return input_required_result(self.codec, call, response, verified.round)
            completed = True
            return complete_result(method, response, modern=era is Era.MODERN)
        finally:
            if guarded:
                await self.replay_guard.settle(str(verified.nonce), float(verified.expires or 0), completed)

    async def _claim(self, nonce: str, expires: float, explain: bool) -> None:
        """Reserve a single-use state for this run; a store that cannot answer refuses, never accepts."""
        try:
            claimed = await self.replay_guard.claim(nonce, expires)
        except StoreUnavailable as problem:
            raise store_unavailable_error(problem) from problem
        if not claimed:
            raise invalid_state("replayed", "this state already completed the operation once", explain)

    def _target(self, method: str, params: dict[str, Any],
                era: Era) -> tuple[Entry, str, dict[str, Any], dict[str, str]]:
        arguments = params.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise McpError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise McpError(INVALID_PARAMS, "Invalid params: uri must be a string")
            found = self.registry.find_resource(uri)
            if found is None:
                # 2026-07-28 (SEP-2164) answers an unknown URI with Invalid Params; 2025-11-25 used -32002.
                code = INVALID_PARAMS if era is Era.MODERN else RESOURCE_NOT_FOUND
                raise McpError(code, f"Resource not found: {uri}", {"uri": uri})
            return found[0], uri, {}, found[1]
        name = params.get("name")
        if not isinstance(name, str):
            raise McpError(INVALID_PARAMS, "Invalid params: name must be a string")
        table: dict[str, Any] = self.registry.tools if method == "tools/call" else self.registry.prompts
        if name not in table:
            kind = "tool" if method == "tools/call" else "prompt"
            raise McpError(INVALID_PARAMS, f"Unknown {kind}: {name}")
        return table[name], name, arguments, {}


def _has_modern_meta(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and META_PROTOCOL_VERSION in meta
