"""Collections: saved calls with their answers and assertions (`mrtr-studio run COLLECTION.json`).

    {"version": 1,
     "variables": {"URL": "memory:"},                       # defaults
     "environments": {"local": {"URL": "http://127.0.0.1:8765/mcp", "TOKEN": "alice-token"}},
     "calls": [{"name": "delete confirms", "target": "${URL}", "tool": "delete_file",
                "arguments": {"path": "/a"}, "era": "modern", "capabilities": ["elicitation"],
                "identity": "${TOKEN}", "answers": {"confirm": {"action": "accept", "content": {"confirm": true}}},
                "assert": [{"path": "$.content[0].text", "equals": "File deleted"},
                           {"path": "$.content[0].text", "matches": "deleted$"},
                           {"schema": {"type": "object", "required": ["content"]}},
                           {"rounds": 2}, {"rounds": {"<=": 3}}, {"inputsAsked": ["confirm"]},
                           {"durationMs": {"<": 5000}}, {"errorCode": -32602}]}]}

`${NAME}` is replaced in every string of a call by the chosen environment's value, else the
collection's `variables`, else the process environment (where tokens belong, not in the file); an
unknown name is an error naming the call. The file is validated by these pydantic models (strict,
no unknown keys), so a typo is reported with its place, `calls[0].assert[2]: ...`, before anything runs.

Assertions run on the call's outcome (`Outcome`): the complete result (JSON path `$`), the rounds,
the input keys the server asked, the wall-clock duration and the JSON-RPC error code. This module
does no I/O: the runner (cli/run_cmd.py) makes the calls.
"""

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import regex
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, model_validator

from ..trace.bounded_read import read_capped

MAX_COLLECTION_BYTES = 8 * 1024 * 1024
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PATH_STEP = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[\"((?:[^\"\\]|\\.)*)\"\]")
_STRICT = ConfigDict(extra="forbid", populate_by_name=True)
Capability = Literal["elicitation", "elicitation.url", "sampling", "roots", "tasks"]
DEFAULT_CAPABILITIES: tuple[Capability, ...] = ("elicitation", "elicitation.url", "sampling", "roots")


class CollectionError(ValueError):
    """A collection that cannot be run: what is wrong and where."""


class Bound(BaseModel):
    """A number compared: `{"<": 5000}`, `{">=": 2, "<=": 3}`."""

    model_config = _STRICT
    lt: float | None = Field(None, alias="<")
    le: float | None = Field(None, alias="<=")
    gt: float | None = Field(None, alias=">")
    ge: float | None = Field(None, alias=">=")
    eq: float | None = Field(None, alias="=")

    @model_validator(mode="after")
    def _some(self) -> "Bound":
        if all(v is None for v in (self.lt, self.le, self.gt, self.ge, self.eq)):
            raise ValueError("a bound needs one of <, <=, >, >=, =")
        return self

    def holds(self, value: float) -> bool:
        return ((self.lt is None or value < self.lt) and (self.le is None or value <= self.le)
                and (self.gt is None or value > self.gt) and (self.ge is None or value >= self.ge)
                and (self.eq is None or value == self.eq))

    def text(self) -> str:
        parts = [(k, getattr(self, n)) for k, n in (("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge"), ("=", "eq"))]
        return " and ".join(f"{k} {v:g}" for k, v in parts if v is not None)


class PathEquals(BaseModel):
    model_config = _STRICT
    path: str
    equals: Any


class PathMatches(BaseModel):
    model_config = _STRICT
    path: str
    matches: str


class SchemaValid(BaseModel):
    model_config = _STRICT
    json_schema: dict[str, Any] = Field(alias="schema")
    path: str = "$"


class Rounds(BaseModel):
    model_config = _STRICT
    rounds: int | Bound


class InputsAsked(BaseModel):
    model_config = _STRICT
    inputs_asked: list[str] = Field(alias="inputsAsked")


class Duration(BaseModel):
    model_config = _STRICT
    duration_ms: Bound = Field(alias="durationMs")


class ErrorCode(BaseModel):
    """The JSON-RPC error's code (null: the call must end without one)."""

    model_config = _STRICT
    error_code: int | None = Field(alias="errorCode")


_KINDS = {"equals": PathEquals, "matches": PathMatches, "schema": SchemaValid, "rounds": Rounds,
          "inputsAsked": InputsAsked, "durationMs": Duration, "errorCode": ErrorCode}


def _kind(value: Any) -> str | None:
    """Which assertion an object is, by the key that names it (so an error names the right model)."""
    if isinstance(value, dict):
        return next((key for key in _KINDS if key in value), None)
    return next((key for key, model in _KINDS.items() if isinstance(value, model)), None)


Assertion = Annotated[
    Annotated[PathEquals, Tag("equals")] | Annotated[PathMatches, Tag("matches")]
    | Annotated[SchemaValid, Tag("schema")] | Annotated[Rounds, Tag("rounds")]
    | Annotated[InputsAsked, Tag("inputsAsked")] | Annotated[Duration, Tag("durationMs")]
    | Annotated[ErrorCode, Tag("errorCode")],
    Discriminator(_kind, custom_error_type="assertion_kind",
                  custom_error_message="an assertion is one of {path, equals}, {path, matches}, {schema}, {rounds}, "
                                       "{inputsAsked}, {durationMs} or {errorCode}")]


class SavedCall(BaseModel):
    model_config = _STRICT
    name: str = Field(min_length=1)
    target: str = Field(min_length=1)
    tool: str | None = None
    prompt: str | None = None
    resource: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    era: Literal["modern", "legacy", "auto"] = "modern"
    capabilities: list[Capability] = Field(default_factory=lambda: list(DEFAULT_CAPABILITIES))
    identity: str | None = None
    answers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    max_rounds: Annotated[int, Field(ge=1, le=1000)] = Field(10, alias="maxRounds")
    assertions: list[Assertion] = Field(default_factory=list, alias="assert")

    @model_validator(mode="after")
    def _one_target(self) -> "SavedCall":
        chosen = [k for k in ("tool", "prompt", "resource") if getattr(self, k) is not None]
        if len(chosen) != 1:
            raise ValueError(f"a call names exactly one of tool, prompt, resource (this one: {chosen or 'none'})")
        for assertion in self.assertions:
            for path in (getattr(assertion, "path", None),):
                if path is not None:
                    parse_path(path)
        return self

    @property
    def method(self) -> tuple[str, str]:
        if self.tool is not None:
            return "tools/call", self.tool
        if self.prompt is not None:
            return "prompts/get", self.prompt
        return "resources/read", str(self.resource)


class Collection(BaseModel):
    model_config = _STRICT
    version: Literal[1] = 1
    variables: dict[str, str] = Field(default_factory=dict)
    environments: dict[str, dict[str, str]] = Field(default_factory=dict)
    calls: list[dict[str, Any]] = Field(min_length=1)


def parse_path(path: str) -> list[str | int]:
    """`$.content[0].text`, `$["odd key"]` -> steps; ValueError naming the place that is not a step."""
    if not path.startswith("$"):
        raise ValueError(f"JSON path {path!r} must start with $")
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        found = _PATH_STEP.match(path, at)
        if found is None:
            raise ValueError(f"JSON path {path!r}: expected .name, [index] or [\"key\"] at {at + 1}")
        name, index, quoted = found.groups()
        steps.append(int(index) if index is not None else name if name is not None
                     else json.loads(f'"{quoted}"'))
        at = found.end()
    return steps


_MISSING = object()


def lookup(value: Any, path: str) -> Any:
    """The value at `path`, or `_MISSING`."""
    for step in parse_path(path):
        if isinstance(step, int) and isinstance(value, list) and step < len(value):
            value = value[step]
            continue
        if not (isinstance(step, str) and isinstance(value, dict) and step in value):
            return _MISSING
        value = value[step]
    return value


def _substitute(value: Any, variables: dict[str, str], where: str) -> Any:
    if isinstance(value, str):
        def one(found: re.Match[str]) -> str:
            name = found.group(1)
            if name in variables:
                return variables[name]
            if name in os.environ:
                return os.environ[name]
            raise CollectionError(f"{where}: ${{{name}}} is not defined in the environment, the collection's "
                                  "variables or the process environment")
        return _VARIABLE.sub(one, value)
    if isinstance(value, list):
        return [_substitute(v, variables, where) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, variables, where) for k, v in value.items()}
    return value


def _where(error: ValidationError, prefix: str) -> str:
    """`calls[0].assert[2].rounds: Input should be ...` for the first problem pydantic found."""
    first = error.errors()[0]
    place = prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
    return f"{place.strip('.') or 'the document'}: {first['msg']}"


def read_document(path: str | Path) -> Collection:
    """The file as written (calls not yet filled in nor checked); CollectionError saying what and where."""
    try:
        raw = read_capped(path, MAX_COLLECTION_BYTES)
    except ValueError as exc:
        raise CollectionError(str(exc)) from None
    try:
        return Collection.model_validate_json(raw)
    except ValidationError as exc:
        raise CollectionError(f"{path}: {_where(exc, '')}") from exc


def check_call(call: dict[str, Any], where: str) -> SavedCall:
    """One call as written, without variables, checked like a loaded one (CollectionError naming `where`)."""
    try:
        return SavedCall.model_validate(call)
    except ValidationError as exc:
        raise CollectionError(_where(exc, where)) from exc


def load_collection(path: str | Path, environment: str | None = None) -> list[SavedCall]:
    """The calls of a collection file, variables filled in; CollectionError saying what and where."""
    collection = read_document(path)
    if environment is not None and environment not in collection.environments:
        known = ", ".join(collection.environments) or "none"
        raise CollectionError(f"--env: no environment {environment!r} in {path} (it has: {known})")
    variables = {**collection.variables, **(collection.environments.get(environment or "", {}))}
    calls = []
    for number, call in enumerate(collection.calls):
        where = f"calls[{number}]"
        filled = _substitute(call, variables, f"{path}: {where}")
        try:
            calls.append(SavedCall.model_validate(filled))
        except ValidationError as exc:
            raise CollectionError(f"{path}: {_where(exc, where)}") from exc
    return calls


@dataclass
class Outcome:
    """What one saved call did, as the assertions read it."""

    ok: bool
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    rounds: int
    inputs_asked: list[str]
    duration_ms: float
    problem: str | None = None
    evidence: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    label: str
    passed: bool
    detail: str


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "…"


def judge(assertion: Assertion, outcome: Outcome) -> Verdict:
    """One assertion against one outcome."""
    if isinstance(assertion, PathEquals | PathMatches | SchemaValid):  # a value in the result
        label = f"{assertion.path} " + (f"equals {_shown(assertion.equals)}" if isinstance(assertion, PathEquals)
                                        else f"matches /{assertion.matches}/" if isinstance(assertion, PathMatches)
                                        else "is schema-valid")
        if outcome.result is None:
            return Verdict(label, False, f"no complete result ({outcome.problem or 'the call failed'})")
        found = lookup(outcome.result, assertion.path)
        if found is _MISSING:
            return Verdict(label, False, f"nothing at {assertion.path}")
        if isinstance(assertion, PathEquals):
            return Verdict(label, found == assertion.equals, f"found {_shown(found)}")
        if isinstance(assertion, PathMatches):
            if not isinstance(found, str):
                return Verdict(label, False, f"found {_shown(found)}, not a string")
            try:
                hit = regex.search(assertion.matches, found, timeout=1.0) is not None
            except (regex.error, TimeoutError) as exc:
                return Verdict(label, False, f"the pattern fails: {exc}")
            return Verdict(label, hit, f"found {_shown(found)}")
        try:
            validator = jsonschema.validators.validator_for(assertion.json_schema)(assertion.json_schema)
            validator.check_schema(assertion.json_schema)
            errors = sorted(validator.iter_errors(found), key=lambda e: list(e.path))
        except jsonschema.SchemaError as exc:
            return Verdict(label, False, f"the schema is invalid: {exc.message}")
        return Verdict(label, not errors, errors[0].message if errors else "valid")
    if isinstance(assertion, Rounds):
        wanted = assertion.rounds
        ok = outcome.rounds == wanted if isinstance(wanted, int) else wanted.holds(outcome.rounds)
        text = f"= {wanted}" if isinstance(wanted, int) else wanted.text()
        return Verdict(f"rounds {text}", ok, f"{outcome.rounds} rounds")
    if isinstance(assertion, InputsAsked):
        ok = sorted(set(outcome.inputs_asked)) == sorted(set(assertion.inputs_asked))
        return Verdict(f"inputs asked {', '.join(assertion.inputs_asked) or 'none'}", ok,
                       f"asked {', '.join(outcome.inputs_asked) or 'nothing'}")
    if isinstance(assertion, Duration):
        return Verdict(f"duration {assertion.duration_ms.text()} ms", assertion.duration_ms.holds(outcome.duration_ms),
                       f"{outcome.duration_ms:.0f} ms")
    code = outcome.error.get("code") if isinstance(outcome.error, dict) else None
    wanted_code = assertion.error_code
    return Verdict(f"error code {wanted_code if wanted_code is not None else 'none'}", code == wanted_code,
                   f"error {code}" if code is not None else "no JSON-RPC error")
