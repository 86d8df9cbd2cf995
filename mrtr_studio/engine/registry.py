"""The server's catalogue: tools, prompts, resources and resource templates with their handlers."""

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Handler = Callable[..., Any]

#: The `_meta` key a listing entry carries when it is a conformance fixture, so a client (the studio's
#: explorer) can set fixtures apart without guessing from names.
FIXTURE_META = "studio.mrtr/fixture"


def _listed(entry: dict[str, Any], fixture: bool, **optional: Any) -> dict[str, Any]:
    """A listing entry: its required fields, then each optional field (wire names as keywords) only when
    set (the schema makes them optional, and clients show an absent title better than an empty one),
    then the fixture mark."""
    entry.update((key, value) for key, value in optional.items() if value)
    if fixture:
        entry["_meta"] = {FIXTURE_META: True}
    return entry


@dataclass
class ToolEntry:
    name: str
    handler: Handler
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    title: str | None = None
    annotations: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    #: Which eras the handler is written for; purely informative (the engine enforces the rules).
    eras: tuple[str, ...] = ("modern", "legacy")
    #: Answers count only for keys the verified requestState asked for (None: the server's option).
    inputs_need_state: bool | None = None
    #: The completing state may be used once (per instance): a replayed retry is rejected.
    single_use: bool = False
    #: The tasks extension: "required" gets -32021 before the handler runs when the client did not
    #: declare `io.modelcontextprotocol/tasks`; "optional" tools may answer with a task when it did.
    task_support: str = "forbidden"
    #: A fixture of the official conformance suite, not a tool a person came to try.
    fixture: bool = False
    #: Draft SEP-3221: the application-controlled parameters' schema (listed and checked only with the draft on).
    secure_input_schema: dict[str, Any] | None = None

    def wire(self) -> dict[str, Any]:
        return _listed({"name": self.name, "inputSchema": self.input_schema}, self.fixture, title=self.title,
                       description=self.description, annotations=self.annotations, outputSchema=self.output_schema)


@dataclass
class PromptEntry:
    name: str
    handler: Handler
    description: str = ""
    arguments: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    inputs_need_state: bool | None = None
    single_use: bool = False
    fixture: bool = False

    def wire(self) -> dict[str, Any]:
        return _listed({"name": self.name}, self.fixture, title=self.title, description=self.description,
                       arguments=self.arguments)


_VARIABLE = re.compile(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class ResourceEntry:
    """A concrete resource (`uri`) or, when the URI has `{variables}`, a resource template."""

    uri: str
    handler: Handler
    name: str
    description: str = ""
    mime_type: str | None = None
    title: str | None = None
    inputs_need_state: bool | None = None
    single_use: bool = False
    fixture: bool = False

    @property
    def is_template(self) -> bool:
        return bool(_VARIABLE.search(self.uri))

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order (empty for a concrete resource)."""
        return [m.group(2) for m in _VARIABLE.finditer(self.uri)]

    def match(self, uri: str) -> dict[str, str] | None:
        """The template variables when `uri` fits this entry, `{}` for an exact match, else None."""
        if not self.is_template:
            return {} if uri == self.uri else None
        pattern = ""
        last = 0
        for m in _VARIABLE.finditer(self.uri):
            pattern += re.escape(self.uri[last : m.start()])
            pattern += f"(?P<{m.group(2)}>.+)" if m.group(1) else f"(?P<{m.group(2)}>[^/]+)"
            last = m.end()
        pattern += re.escape(self.uri[last:])
        found = re.fullmatch(pattern, uri)
        return found.groupdict() if found else None

    def wire(self) -> dict[str, Any]:
        return _listed({"uriTemplate" if self.is_template else "uri": self.uri, "name": self.name}, self.fixture,
                       title=self.title, description=self.description, mimeType=self.mime_type)


@dataclass
class Registry:
    tools: dict[str, ToolEntry] = field(default_factory=dict)
    prompts: dict[str, PromptEntry] = field(default_factory=dict)
    resources: dict[str, ResourceEntry] = field(default_factory=dict)

    def find_resource(self, uri: str) -> tuple[ResourceEntry, dict[str, str]] | None:
        exact = self.resources.get(uri)
        if exact is not None and not exact.is_template:
            return exact, {}
        for entry in self.resources.values():
            variables = entry.match(uri)
            if variables is not None:
                return entry, variables
        return None


@contextmanager
def registering_fixtures(registry: Registry) -> Iterator[None]:
    """Everything registered inside the block is a conformance fixture (`fixture=True`)."""
    before = {id(entry) for entry in _entries(registry)}
    yield
    for entry in _entries(registry):
        if id(entry) not in before:
            entry.fixture = True


def _entries(registry: Registry) -> list[ToolEntry | PromptEntry | ResourceEntry]:
    return [*registry.tools.values(), *registry.prompts.values(), *registry.resources.values()]
