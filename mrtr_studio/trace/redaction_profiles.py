"""Redaction profiles for exports and copies: which header names, JSON paths and text patterns a file
leaving the studio has masked, and how many values each rule masked (what the window's preview lists
before saving, and `trace export --redact PROFILE|FILE` prints).

A recording already masks credentials in headers (trace/redaction.py, the one header profile): a
profile builds on it. `default` adds the JSON fields that hold credentials wherever they appear
(`$..password`, `$..client_secret`, ...) and bearer tokens inside text; `none` adds nothing. A profile
file (JSON) names its own:

    {"name": "tenant", "base": "default",
     "headers": ["X-Tenant-Key"],
     "paths": ["$.params.arguments.password", "$..ssn", "$.result.content[*].text"],
     "patterns": ["sk-[A-Za-z0-9]{20,}", {"name": "e-mail", "regex": "[\\\\w.]+@[\\\\w.]+"}]}

JSON paths: `$` the message, `.key` or `['key']`, `[N]`, `[*]` / `.*` any member, `..key` at any
depth. A masked value (string, number, object or array) becomes the mask `***`; a pattern replaces
each match inside a string. Applying a profile copies: the store's messages are never changed.
"""

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..defaults import PATTERN_SECONDS
from .bounded_read import read_capped
from .model import Operation, TraceMessage, encode
from .redaction import MASK, Redaction

if TYPE_CHECKING:  # the `regex` engine is imported when a pattern is first compiled (15 ms of the window's launch)
    import regex

MAX_PROFILE_BYTES = 256 * 1024
MAX_RULES = 200
MAX_DEPTH = 64  # JSON nesting walked; deeper values are masked whole by a matching `..` rule only above it
#: JSON fields that hold a credential wherever they appear (not `code`: a JSON-RPC error has one).
CREDENTIAL_FIELDS = ("password", "passwd", "api_key", "apiKey", "client_secret", "access_token",
                     "refresh_token", "id_token", "code_verifier", "client_assertion", "subject_token",
                     "actor_token")
TIMES = "\u00d7"  # "Authorization header ×12"  # noqa: RUF003
BEARER_PATTERN = r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"


class ProfileError(ValueError):
    """A profile that cannot be used: which rule (or field) and why, in one line."""


@dataclass(frozen=True)
class JsonPath:
    """A parsed JSON path: steps of ("key", name), ("index", n), ("any", None) or ("deep", name)."""

    source: str
    steps: tuple[tuple[str, Any], ...]


_STEP = re.compile(r"""\.\.(?P<deep>[A-Za-z_$][\w$-]*|\*)|\.(?P<key>[A-Za-z_$][\w$-]*|\*)|"""
                   r"""\[(?P<index>\d+|\*)\]|\[(?P<quote>['"])(?P<quoted>(?:(?!(?P=quote)).)*)(?P=quote)\]""")


def parse_path(source: str) -> JsonPath:
    """`$.params.arguments.password` and friends; ProfileError naming the place that cannot be read."""
    text = source.strip()
    if not text.startswith("$"):
        raise ProfileError(f"JSON path {source!r}: must start with $")
    steps: list[tuple[str, Any]] = []
    at = 1
    while at < len(text):
        found = _STEP.match(text, at)
        if found is None:
            raise ProfileError(f"JSON path {source!r}: cannot read from character {at + 1} ({text[at:at + 12]!r})")
        if found["deep"] is not None:
            steps.append(("deep", None if found["deep"] == "*" else found["deep"]))
        elif found["key"] is not None:
            steps.append(("any", None) if found["key"] == "*" else ("key", found["key"]))
        elif found["index"] is not None:
            steps.append(("any", None) if found["index"] == "*" else ("index", int(found["index"])))
        else:
            steps.append(("key", found["quoted"]))
        at = found.end()
    if not steps:
        raise ProfileError(f"JSON path {source!r}: names the whole message; name a field")
    return JsonPath(text, tuple(steps))


@dataclass(frozen=True)
class PatternRule:
    """A pattern masked wherever it matches in a string. It runs on the `regex` engine so that each
    match is bounded by PATTERN_SECONDS: the text is a peer's, and a pattern that backtracks badly on
    it must not hang an export or the window's preview."""

    name: str
    regex: "regex.Pattern[str]"


@dataclass(frozen=True)
class RedactionProfile:
    """A named set of rules; `base` is the header profile ("default" or "none") they add to."""

    name: str
    base: str = "default"
    headers: tuple[str, ...] = ()
    paths: tuple[JsonPath, ...] = ()
    patterns: tuple[PatternRule, ...] = ()
    description: str = ""

    @property
    def headers_redaction(self) -> Redaction:
        return Redaction(self.headers, self.base)

    def rule_lines(self) -> list[str]:
        """The rules as people read them (the preview lists these)."""
        lines = ["headers: credentials (Authorization, Cookie, API keys, …)" if self.base == "default"
                 else "headers: only what the recording masked"]
        lines += [f"header: {name}" for name in self.headers]
        lines += [f"JSON path: {path.source}" for path in self.paths]
        lines += [f"pattern: {rule.name}" for rule in self.patterns]
        return lines


def default_profile() -> RedactionProfile:
    import regex

    return RedactionProfile(
        "default", "default", (), tuple(parse_path(f"$..{name}") for name in CREDENTIAL_FIELDS),
        (PatternRule("bearer token in text", regex.compile(BEARER_PATTERN)),),
        "credentials masked: headers, credential fields, bearer tokens in text")


def none_profile() -> RedactionProfile:
    return RedactionProfile("none", "none", description="nothing masked beyond what the recording masked")


def builtin(name: str) -> RedactionProfile | None:
    return {"default": default_profile, "none": none_profile}.get(name, lambda: None)()


def _strings(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProfileError(f"{what}: expected a list")
    return value


def profile_from_json(document: Any, fallback_name: str = "custom") -> RedactionProfile:
    """A profile from its JSON form (a profile file); ProfileError naming the bad rule."""
    if not isinstance(document, dict):
        raise ProfileError("a redaction profile is a JSON object with headers, paths and patterns")
    unknown = set(document) - {"name", "base", "headers", "paths", "patterns", "description"}
    if unknown:
        raise ProfileError(f"unknown field(s) {', '.join(sorted(unknown))} (known: name, base, headers, paths, "
                           "patterns, description)")
    name = document.get("name", fallback_name)
    base = document.get("base", "default")
    if not isinstance(name, str) or not name.strip():
        raise ProfileError("name: expected a non-empty string")
    if base not in ("default", "none"):
        raise ProfileError(f"base: {base!r} is not default or none")
    headers, paths, patterns = (_strings(document.get(k), k) for k in ("headers", "paths", "patterns"))
    if len(headers) + len(paths) + len(patterns) > MAX_RULES:
        raise ProfileError(f"more than {MAX_RULES} rules")
    for index, header in enumerate(headers):
        if not isinstance(header, str) or not header.strip() or any(c in header for c in ":\r\n"):
            raise ProfileError(f"headers[{index}]: {header!r} is not a header name")
    parsed_paths = []
    for index, path in enumerate(paths):
        if not isinstance(path, str):
            raise ProfileError(f"paths[{index}]: expected a string like $.params.arguments.password")
        try:
            parsed_paths.append(parse_path(path))
        except ProfileError as exc:
            raise ProfileError(f"paths[{index}]: {exc}") from None
    import regex

    rules = []
    for index, pattern in enumerate(patterns):
        label, pattern_text = (pattern, pattern) if isinstance(pattern, str) else \
            (pattern.get("name"), pattern.get("regex")) if isinstance(pattern, dict) else (None, None)
        if not isinstance(pattern_text, str) or not pattern_text or not isinstance(label, str):
            raise ProfileError(f"patterns[{index}]: expected a regex string or {{\"name\": …, \"regex\": …}}")
        try:
            rules.append(PatternRule(label or pattern_text, regex.compile(pattern_text)))
        except (regex.error, ValueError) as exc:
            raise ProfileError(f"patterns[{index}]: {pattern_text!r} is not a regular expression ({exc})") from None
    description = document.get("description", "")
    return RedactionProfile(name.strip(), base, tuple(h.strip() for h in headers), tuple(parsed_paths),
                            tuple(rules), description if isinstance(description, str) else "")


def profile_to_json(profile: RedactionProfile) -> dict[str, Any]:
    return {"name": profile.name, "base": profile.base, "headers": list(profile.headers),
            "paths": [p.source for p in profile.paths],
            "patterns": [{"name": r.name, "regex": r.regex.pattern} for r in profile.patterns],
            "description": profile.description}


def load_profile(spec: str, flag: str = "") -> RedactionProfile:
    """`default`, `none`, or the path of a profile file (bounded read); ProfileError in one line."""
    known = builtin(spec)
    if known is not None:
        return known
    prefix = f"{flag}: " if flag else ""
    if not Path(spec).exists():
        raise ProfileError(f"{prefix}unknown profile {spec!r} (choose from default, none, or name a JSON profile file)")
    try:
        document = json.loads(read_capped(spec, MAX_PROFILE_BYTES, flag))
    except ValueError as exc:  # unreadable, too big, or not JSON
        text = str(exc) if str(exc).startswith(prefix) and prefix else f"{prefix}{spec}: {exc}"
        raise ProfileError(f"{text} (a profile is default, none or a JSON profile file)") from None
    try:
        return profile_from_json(document, spec.rsplit("/", 1)[-1].removesuffix(".json"))
    except ProfileError as exc:
        raise ProfileError(f"{prefix}{spec}: {exc}") from None


# --- applying a profile ---------------------------------------------------------------------------

@dataclass
class Tally:
    """How many values each rule masked, by the rule's label, in the order first met."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, label: str, count: int = 1) -> None:
        self.counts[label] += count

    def lines(self) -> list[str]:
        return [f"{label} {TIMES}{count}" for label, count in self.counts.items()]

    def summary(self) -> str:
        return ", ".join(self.lines()) or "nothing to mask"


def _mask_path(value: Any, steps: Sequence[tuple[str, Any]], depth: int = 0) -> tuple[Any, int]:
    """`value` with what `steps` name masked, and how many were (copied only where something changed)."""
    if not steps:
        return MASK, 1
    if depth > MAX_DEPTH or not isinstance(value, dict | list):
        return value, 0
    kind, name = steps[0]
    rest = steps[1:]
    if kind == "key" or kind == "index":  # one member: look it up
        present = name in value if isinstance(value, dict) and kind == "key" else \
            isinstance(value, list) and kind == "index" and name < len(value)
        if not present:
            return value, 0
        new, count = _mask_path(value[name], rest, depth + 1)
        if not count:
            return value, 0
        changed: Any = dict(value) if isinstance(value, dict) else list(value)
        changed[name] = new
        return changed, count
    total = 0
    changed = None
    for key, child in (value.items() if isinstance(value, dict) else enumerate(value)):
        new = child
        if kind == "any" or name is None or (isinstance(value, dict) and key == name):
            new, count = _mask_path(child, rest, depth + 1)
            total += count
        if kind == "deep" and new is child:  # keep looking below for the same key
            new, count = _mask_path(child, steps, depth + 1)
            total += count
        if new is not child:
            if changed is None:
                changed = dict(value) if isinstance(value, dict) else list(value)
            changed[key] = new
    return (value, 0) if changed is None else (changed, total)


def _mask_patterns(value: Any, rules: Sequence[PatternRule], tally: Tally | None, depth: int = 0,
                   overdue: set[str] | None = None) -> Any:
    """`value` with every match of `rules` in its strings masked. A match that runs past PATTERN_SECONDS
    masks the whole string instead (never leaves it unmasked), and that rule then masks every later
    string of the same value whole without matching: one body costs at most one timeout per rule."""
    overdue = set() if overdue is None else overdue
    if isinstance(value, str):
        for rule in rules:
            if rule.name in overdue:
                value, count = MASK, 1
            else:
                try:
                    value, count = rule.regex.subn(MASK, value, timeout=PATTERN_SECONDS)
                except TimeoutError:
                    overdue.add(rule.name)
                    value, count = MASK, 1
            if count and tally is not None:
                tally.add(f"pattern {rule.name}" + (" (too slow: whole text masked)" if rule.name in overdue else ""),
                          count)
        return value
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _mask_patterns(v, rules, tally, depth + 1, overdue) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_patterns(v, rules, tally, depth + 1, overdue) for v in value]
    return value


def _may_match(rule: PatternRule, text: str) -> bool:
    """Whether the rule can match somewhere in `text`; a search past PATTERN_SECONDS counts as yes."""
    try:
        return rule.regex.search(text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        return True


#: What a pattern can see beyond a string's own characters: such a pattern is never pre-checked.
_CONTEXT = re.compile(r"\^|\$|\\[AZz]|\(\?<?[=!]")


@dataclass(frozen=True)
class _Plan:
    """Which rules a body can need, decided from its compact JSON without decoding it: a path whose
    last key is not in the text cannot match; a pattern that finds nothing in the text (with no
    escapes in it, every string's characters are in it verbatim) cannot match a string either."""

    paths: tuple[tuple[JsonPath, bytes | None], ...]
    patterns: tuple[tuple[PatternRule, bool], ...]  # (rule, whether a look at the text decides)

    @classmethod
    def of(cls, profile: RedactionProfile) -> "_Plan":
        paths = []
        for path in profile.paths:
            named = [name for kind, name in path.steps if kind in ("key", "deep") and isinstance(name, str)]
            paths.append((path, json.dumps(named[-1], ensure_ascii=False).encode() if named else None))
        return cls(tuple(paths), tuple((rule, _CONTEXT.search(rule.regex.pattern) is None)
                                       for rule in profile.patterns))

    def rules_for(self, raw: bytes) -> tuple[list[JsonPath], list[PatternRule]]:
        paths = [path for path, key in self.paths if key is None or key in raw]
        patterns = []
        if self.patterns:
            text = raw.decode("utf-8", "replace")
            plain = "\\" not in text
            patterns = [rule for rule, decidable in self.patterns
                        if not (plain and decidable) or _may_match(rule, text)]
        return paths, patterns


def _masked_body(value: Any, paths: Sequence[JsonPath], patterns: Sequence[PatternRule], tally: Tally | None) -> Any:
    for path in paths:
        value, count = _mask_path(value, path.steps)
        if count and tally is not None:
            tally.add(path.source, count)
    return _mask_patterns(value, patterns, tally) if patterns else value


def _header_title(name: str) -> str:
    return name if name != name.lower() else "-".join(part.capitalize() for part in name.split("-"))


def _masked_transport(transport: dict[str, Any], profile: RedactionProfile, redaction: Redaction,
                      tally: Tally | None) -> dict[str, Any]:
    out = dict(transport)
    for key in ("request_headers", "response_headers"):
        headers = transport.get(key)
        if not isinstance(headers, dict):
            continue
        masked = {}
        named = {header.lower() for header in profile.headers}
        for name, value in headers.items():
            shown = redaction.header(str(name), str(value))
            secret = redaction.is_secret(str(name))
            if not secret and str(name).lower() in named:  # named by a profile on `none`
                secret, shown = True, MASK
            if secret and tally is not None:
                tally.add(f"{_header_title(str(name))} header")
            if profile.patterns:
                shown = _mask_patterns(shown, profile.patterns, tally)
            masked[name] = shown
        out[key] = masked
    url = transport.get("url")
    if isinstance(url, str):
        out["url"] = redaction.url(url)
        if out["url"] != url and tally is not None:
            tally.add("URL credentials")
    return out


@dataclass(frozen=True)
class RedactedTrace:
    operations: list[Operation]
    messages: list[TraceMessage]
    tally: Tally


def redact_message(entry: TraceMessage, profile: RedactionProfile, tally: Tally | None = None) -> TraceMessage:
    """A copy of one message with the profile applied (its reply link is the caller's to set)."""
    return _redact(entry, profile, tally, profile.headers_redaction, _Plan.of(profile))


def _redact(entry: TraceMessage, profile: RedactionProfile, tally: Tally | None, redaction: Redaction,
            plan: _Plan) -> TraceMessage:
    message: Any = entry.kept()  # packed stays packed when nothing in it is masked
    if plan.paths or plan.patterns:
        paths, patterns = plan.rules_for(entry.message_json())
        if paths or patterns:
            decoded = entry.message
            masked = _masked_body(decoded, paths, patterns, tally)
            if masked != decoded:
                message = masked
    transport = entry.transport
    return TraceMessage(entry.seq, entry.operation_id, entry.round, entry.direction, entry.kind, message,
                        entry.timestamp, entry.method, entry.jsonrpc_id,
                        _masked_transport(transport, profile, redaction, tally) if transport else None,
                        entry.findings, entry.extra)


def redact_operation(op: Operation, profile: RedactionProfile, redaction: Redaction | None = None,
                     plan: _Plan | None = None) -> Operation:
    """The operation with its arguments masked as its request's `params.arguments` are (not counted:
    they are the first request's, which is)."""
    redaction = redaction or profile.headers_redaction
    wrapped: dict[str, Any] = {"params": {"arguments": op.arguments}}
    paths, patterns = (plan or _Plan.of(profile)).rules_for(encode(wrapped))
    if paths or patterns:
        wrapped = _masked_body(wrapped, paths, patterns, None)
    arguments = wrapped["params"]["arguments"] if isinstance(wrapped.get("params"), dict) else op.arguments
    return replace(op, arguments=arguments if isinstance(arguments, dict) else {},
                   server=redaction.url(op.server))


def redact_trace(operations: Iterable[Operation], messages: Sequence[TraceMessage],
                 profile: RedactionProfile) -> RedactedTrace:
    """Copies of the operations and messages with the profile applied, replies linked as before, and
    the count of what each rule masked."""
    tally = Tally()
    redaction = profile.headers_redaction
    plan = _Plan.of(profile)
    copies: dict[int, TraceMessage] = {}
    out = []
    for entry in messages:
        copy = _redact(entry, profile, tally, redaction, plan)
        copies[id(entry)] = copy
        out.append(copy)
    for entry, copy in zip(messages, out, strict=True):
        if entry.reply_to is not None:
            copy.reply_to = copies.get(id(entry.reply_to), entry.reply_to)
    return RedactedTrace([redact_operation(op, profile, redaction, plan) for op in operations], out, tally)
