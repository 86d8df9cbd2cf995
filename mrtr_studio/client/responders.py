"""Responders: the building blocks that answer input requests, composed into one `respond` callable.

The driver and ClientSession need a single `respond(requests, round) -> inputResponses`; where the
answers come from (a GUI form, an answers file, the terminal, a canned LLM reply, a roots list)
differs per method, so each method gets its own small `Answer` and `compose` dispatches on the
request's method (and on elicitation `mode`, since URL consent is a different question than a form).
Legacy server-initiated requests reach the same callable keyed by their JSON-RPC id.
"""

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from .answer_check import answer_warnings
from .driver import Respond
from .forms import default_result

InputRequest = dict[str, Any]
Result = dict[str, Any]
#: Answers one input request: (key, the request {method, params}, round) -> the result object to send.
Answer = Callable[[str, InputRequest, int], Awaitable[Result]]
Consent = Literal["accept", "decline", "cancel"]
ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"


class UnansweredRequest(Exception):
    """No responder can answer an input request; the driver turns it into an aborted operation."""


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def compose(elicitation: Answer | None = None, url: Answer | None = None, sampling: Answer | None = None,
            roots: Answer | None = None, other: Answer | None = None) -> Respond:
    """One `respond` that answers every request of a round together, dispatching by method.

    Form elicitation and URL consent are separate slots because the person answers different
    questions (fill a form vs. may I open this link). Keys of the returned map are exactly the
    request keys; a request nobody can answer raises UnansweredRequest naming its key and method.
    """

    def pick(request: InputRequest) -> Answer | None:
        method = request.get("method")
        params = request.get("params") or {}
        if method == ELICIT:
            return url if isinstance(params, dict) and params.get("mode") == "url" else elicitation
        return {SAMPLE: sampling, ROOTS: roots}.get(str(method), other)

    async def respond(requests: dict[str, Any], round_number: int) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        for key, request in requests.items():
            if not isinstance(request, dict):
                raise UnansweredRequest(f"input request {key!r} is not an object")
            answer = pick(request)
            if answer is None:
                raise UnansweredRequest(f"no responder for input request {key!r} ({request.get('method')})")
            answers[key] = await answer(key, request, round_number)
        return answers

    return respond


def first_of(*answers: Answer) -> Answer:
    """Try each answer in turn; the next one runs when the previous raises UnansweredRequest."""

    async def answer(key: str, request: InputRequest, round_number: int) -> Result:
        last: UnansweredRequest | None = None
        for candidate in answers:
            try:
                return await candidate(key, request, round_number)
            except UnansweredRequest as exc:
                last = exc
        raise last or UnansweredRequest(f"no answer for {key!r}")

    return answer


# --- elicitation -----------------------------------------------------------------------------

def from_callback(callback: Callable[[str, InputRequest, int], Any]) -> Answer:
    """Adapt a GUI form (or any function, sync or async) to an Answer."""

    async def answer(key: str, request: InputRequest, round_number: int) -> Result:
        result = await _maybe_await(callback(key, request, round_number))
        if not isinstance(result, dict):
            raise UnansweredRequest(f"the answer for {key!r} is not an object: {result!r}")
        return result

    return answer


@dataclass
class AnswersFile:
    """Answers by input key, then by method name, then `"*"` (an answers file maps key -> the result to send).

    Looking up the method name as well lets one file answer legacy server requests too, whose
    keys are JSON-RPC ids the author of the file cannot know in advance.
    """

    answers: dict[str, Any]
    #: Told one line per answer that does not fit its question's schema (the answer is sent all the same).
    warn: Callable[[str], None] | None = None

    @classmethod
    def load(cls, path: str | Path) -> "AnswersFile":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read answers file {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"answers file {path} must hold a JSON object (input key -> result)")
        return cls(data)

    def lookup(self, key: str, request: InputRequest) -> Result | None:
        for name in (key, str(request.get("method")), "*"):
            if name in self.answers:
                value = self.answers[name]
                if not isinstance(value, dict):
                    raise UnansweredRequest(f"answers file entry {name!r} is not an object")
                return dict(value)
        return None

    async def __call__(self, key: str, request: InputRequest, round_number: int) -> Result:
        found = self.lookup(key, request)
        if found is None:
            raise UnansweredRequest(f"the answers file has no entry for {key!r} ({request.get('method')}) "
                                    "and no '*' fallback")
        if self.warn is not None:
            for line in answer_warnings(key, request, found):
                self.warn(line)
        return found


@dataclass
class Terminal:
    """Asks on a terminal: a form field by field from `requestedSchema`, or a one-line choice.

    The streams are injectable so tests (and the GUI's console) can drive it; EOF is a clear error
    rather than a hang or a silent decline.
    """

    stdin: TextIO
    stdout: TextIO

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise UnansweredRequest("no answer on the terminal (input closed); pass --answers FILE")
        return line.rstrip("\r\n")

    async def elicit(self, key: str, request: InputRequest, round_number: int) -> Result:
        params = _params(request, key)
        schema = params.get("requestedSchema") or {}
        properties = schema.get("properties") or {} if isinstance(schema, dict) else None
        if not isinstance(properties, dict):
            # Said before asking anything: a form that cannot be shown is not accepted blind.
            what = "requestedSchema" if not isinstance(schema, dict) else "requestedSchema.properties"
            raise UnansweredRequest(f"cannot ask {key!r} on the terminal: {what} is "
                                    f"{json.dumps(schema if what == 'requestedSchema' else properties)[:60]}, "
                                    "not an object")
        required_list = schema.get("required") or []
        required = {str(name) for name in required_list} if isinstance(required_list, list) else set()
        self.stdout.write(f"[round {round_number}] {key}: {params.get('message', '')}\n")
        action = self._action("accept")
        if action != "accept":
            return {"action": action}
        content: dict[str, Any] = {}
        for name, prop in properties.items():
            value = self._field(name, prop if isinstance(prop, dict) else {}, name in required)
            if value is not None:
                content[name] = value
        return {"action": "accept", "content": content}

    async def consent(self, key: str, request: InputRequest, round_number: int) -> Result:
        params = _params(request, key)
        self.stdout.write(f"[round {round_number}] {key}: {params.get('message', '')}\n")
        self.stdout.write(f"  open: {params.get('url')}\n")
        return {"action": self._action("decline")}

    async def sample(self, key: str, request: InputRequest, round_number: int) -> Result:
        params = _params(request, key)
        self.stdout.write(f"[round {round_number}] {key}: the server asks the LLM:\n")
        messages = params.get("messages")
        for message in messages if isinstance(messages, list) else []:
            content = message.get("content") if isinstance(message, dict) else None
            text = content.get("text") if isinstance(content, dict) else content
            self.stdout.write(f"  {message.get('role', '?') if isinstance(message, dict) else '?'}: {text}\n")
        return sampling_result(self.ask("  reply as the assistant: "), model="typed")

    def _action(self, default: Consent) -> Consent:
        while True:
            raw = self.ask(f"  accept / decline / cancel [{default}]: ").strip().lower() or default
            raw = {"y": "accept", "yes": "accept", "n": "decline", "no": "decline"}.get(raw, raw)
            for choice in ("accept", "decline", "cancel"):
                if choice.startswith(raw):
                    return choice
            self.stdout.write("  please type accept, decline or cancel\n")

    def _field(self, name: str, prop: dict[str, Any], required: bool) -> Any:
        kind = prop.get("type", "string")
        choices = prop.get("enum")
        hint = "/".join(str(v) for v in choices) if isinstance(choices, list) and choices else str(kind)
        default = prop.get("default")
        label = prop.get("title") or name
        while True:
            suffix = f" [{json.dumps(default)}]" if default is not None else ("" if required else " (optional)")
            raw = self.ask(f"  {label} ({hint}){suffix}: ").strip()
            if not raw:
                if default is not None:
                    return default
                if not required:
                    return None
                self.stdout.write(f"  {label} is required\n")
                continue
            try:
                return convert(raw, prop)
            except ValueError as exc:
                self.stdout.write(f"  {exc}\n")


def _params(request: InputRequest, key: str) -> dict[str, Any]:
    params = request.get("params") or {}
    if not isinstance(params, dict):
        raise UnansweredRequest(f"the params of {key!r} are {json.dumps(params)[:60]}, not an object")
    return params


def convert(raw: str, prop: dict[str, Any]) -> Any:
    """Typed text -> the JSON value a schema property wants (booleans accept y/n, yes/no, true/false)."""
    kind = prop.get("type", "string")
    if kind == "boolean":
        lowered = raw.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("please answer yes or no")
    if kind == "integer":
        try:
            return int(raw)
        except ValueError:
            raise ValueError("please type a whole number") from None
    if kind == "number":
        try:
            return float(raw)
        except ValueError:
            raise ValueError("please type a number") from None
    if kind == "array":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if isinstance(prop.get("enum"), list) and raw not in [str(v) for v in prop["enum"]]:
        raise ValueError(f"please pick one of: {', '.join(str(v) for v in prop['enum'])}")
    return raw


def schema_defaults(key: str, request: InputRequest, round_number: int = 1) -> Result:
    """Accept with the form's defaults (see client/forms): the `--auto` answer for demos."""
    return default_result(request.get("params") or {})


# --- sampling --------------------------------------------------------------------------------

def sampling_result(text: str, model: str = "mrtr-studio", stop_reason: str = "endTurn") -> Result:
    return {"role": "assistant", "content": {"type": "text", "text": text}, "model": model, "stopReason": stop_reason}


def canned(text: str, model: str = "mrtr-studio-canned") -> Answer:
    """Always the same reply: a stand-in LLM for repeatable flows."""

    async def answer(key: str, request: InputRequest, round_number: int) -> Result:
        return sampling_result(text, model)

    return answer


async def echo(key: str, request: InputRequest, round_number: int) -> Result:
    """Reply with the last user message's text: shows exactly what the server asked the LLM."""
    messages = (request.get("params") or {}).get("messages") or []
    text = ""
    for message in reversed(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, dict) and content.get("type") == "text":
            text = str(content.get("text", ""))
            break
    return sampling_result(text, "mrtr-studio-echo")


# --- roots and URL consent -------------------------------------------------------------------

@dataclass
class RootsList:
    """The client's roots, editable while flows run (the GUI edits `roots` in place)."""

    roots: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, uris: Sequence[str]) -> "RootsList":
        return cls([{"uri": uri, "name": uri.rstrip("/").rsplit("/", 1)[-1] or uri} for uri in uris])

    async def __call__(self, key: str, request: InputRequest, round_number: int) -> Result:
        bad = [r.get("uri") for r in self.roots if not str(r.get("uri", "")).startswith("file://")]
        if bad:
            raise UnansweredRequest(f"roots must be file:// URIs: {', '.join(map(str, bad))}")
        return {"roots": [dict(r) for r in self.roots]}


def consent(policy: Consent | Callable[[str, InputRequest, int], Any]) -> Answer:
    """URL-mode elicitation: a fixed policy or a callback (the GUI's "open this link?" dialog)."""

    async def answer(key: str, request: InputRequest, round_number: int) -> Result:
        choice = await _maybe_await(policy(key, request, round_number)) if callable(policy) else policy
        if choice not in ("accept", "decline", "cancel"):
            raise UnansweredRequest(f"URL consent for {key!r} must be accept, decline or cancel, not {choice!r}")
        return {"action": choice}

    return answer


def table(answers: Mapping[str, Result]) -> Respond:
    """A respond from a fixed table (tests, scripted demos): the AnswersFile rules for every method."""
    file = AnswersFile(dict(answers))
    return compose(elicitation=file, url=file, sampling=file, roots=file, other=file)
