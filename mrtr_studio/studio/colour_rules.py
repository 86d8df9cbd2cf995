"""Colouring rules, Wireshark's model: an ordered list of (name, filter expression, tint), the first
enabled rule whose expression matches a message colours its row in the log, its arrow in the diagram,
and (through `matches_operation`) its operation in the list. The expressions are the one filter
language (trace/filter.py): parsed once when the rules change (`compile_rules`), bound to the trace
as it grows (`CompiledRules.bind`), and the answer per message is remembered until the next bind, so
painting a row asks a dict, not the filter.

Colour is never the only cue: the views put the matching rule's name in the row's tooltip. The tints
are named (TINTS), each a pair of backgrounds chosen with the theme's text colours (light: the
standard palette's black text; dark: ui/theme.py's #e6e6e6) to keep WCAG AA contrast (4.5:1) in both.
Qt-free: the window's dialog (ui/colour_rules_dialog.py) edits these and saves `rules_to_json`.
"""

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..trace.filter import BoundFilter, Filter, FilterError, TraceIndex, compile_filter
from ..trace.model import Operation, TraceMessage

#: name -> (background on a light window, background on a dark window).
TINTS: dict[str, tuple[str, str]] = {
    "red": ("#fbd5d2", "#5c1f1b"), "amber": ("#ffe9b3", "#4f3b00"), "purple": ("#e8dcfa", "#3f2860"),
    "green": ("#d5f0da", "#1d4426"), "blue": ("#d6e6fb", "#1b3557"), "teal": ("#cdeeee", "#0f4345"),
    "grey": ("#e4e4e4", "#3b3d41"),
}
#: The text colours the tints are chosen against (light and dark palettes).
TEXT_COLOURS = ("#000000", "#e6e6e6")
MAX_RULES = 100
MAX_RULES_JSON = 256 * 1024


@dataclass(frozen=True)
class ColourRule:
    name: str
    expression: str
    tint: str
    enabled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "expression": self.expression, "tint": self.tint, "enabled": self.enabled}


DEFAULT_RULES: tuple[ColourRule, ...] = (
    ColourRule("Errors", "kind:error or finding:error", "red"),
    ColourRule("Altered requestState", "state:altered", "purple"),
    ColourRule("Input required", "kind:input_required", "amber"),
    ColourRule("Tasks", "kind:task or task:*", "teal"),
    ColourRule("Authorization", "kind:auth", "blue"),
    ColourRule("Slow replies", "duration:>1s", "grey", enabled=False),
)


class RuleError(ValueError):
    """A rule that cannot be used: its position in the list, its name, and what is wrong."""

    def __init__(self, index: int, rule: ColourRule, message: str, position: int | None = None) -> None:
        super().__init__(f"rule {index + 1} ({rule.name or 'unnamed'}): {message}")
        self.index = index
        self.rule = rule
        self.message = message
        #: For a bad expression: the 0-based column FilterError names.
        self.position = position


def check_rule(index: int, rule: ColourRule) -> Filter:
    """The rule's compiled expression, or RuleError saying what is wrong with it."""
    if not rule.name.strip():
        raise RuleError(index, rule, "give the rule a name (it is shown in the row's tooltip)")
    if rule.tint not in TINTS:
        raise RuleError(index, rule, f"unknown colour {rule.tint!r} (choose from {', '.join(TINTS)})")
    if not rule.expression.strip():
        raise RuleError(index, rule, "the expression is empty (it would colour every row)")
    try:
        return compile_filter(rule.expression)
    except FilterError as exc:
        raise RuleError(index, rule, f"column {exc.position + 1}: {exc.message}", exc.position) from None


def problems(rules: Sequence[ColourRule]) -> list[RuleError]:
    """Every rule's mistake (the dialog shows them all inline); disabled rules are checked too."""
    found = []
    for index, rule in enumerate(rules):
        try:
            check_rule(index, rule)
        except RuleError as exc:
            found.append(exc)
    return found


@dataclass(frozen=True)
class CompiledRules:
    """The enabled rules in order, each with its parsed filter (RuleError from `compile_rules` if any
    rule, enabled or not, is wrong: a list with a mistake is never half applied)."""

    rules: tuple[ColourRule, ...]
    filters: tuple[Filter, ...]

    def bind(self, operations: Iterable[Operation], messages: Sequence[TraceMessage],
             messages_of: Callable[[str], Sequence[TraceMessage]] | None = None) -> "BoundRules":
        """`messages_of`: the store's own lookup of an operation's messages, so a rule the operations
        list reads (`state:altered`, any message of the operation) walks only that operation's."""
        ops = list(operations)
        index = TraceIndex(ops, messages, messages_of=messages_of)  # one for every rule: found once
        return BoundRules(self.rules, tuple(f.bind(ops, messages, index=index) for f in self.filters))


def compile_rules(rules: Sequence[ColourRule]) -> CompiledRules:
    if len(rules) > MAX_RULES:
        raise RuleError(MAX_RULES, rules[MAX_RULES], f"at most {MAX_RULES} rules")
    compiled = [(rule, check_rule(index, rule)) for index, rule in enumerate(rules)]
    kept = [(rule, f) for rule, f in compiled if rule.enabled]
    return CompiledRules(tuple(r for r, _ in kept), tuple(f for _, f in kept))


@dataclass
class BoundRules:
    """The rules bound to one state of the trace; `rule_for` remembers each message's answer."""

    rules: tuple[ColourRule, ...]
    bound: tuple[BoundFilter, ...]
    _by_seq: dict[int, ColourRule | None] = field(default_factory=dict)
    _by_operation: dict[str, ColourRule | None] = field(default_factory=dict)

    def rule_for(self, entry: TraceMessage) -> ColourRule | None:
        """The first rule that matches the message, or None."""
        seq = entry.seq
        if seq in self._by_seq:
            return self._by_seq[seq]
        found = next((rule for rule, b in zip(self.rules, self.bound, strict=True) if b.matches(entry)), None)
        self._by_seq[seq] = found
        return found

    def rule_for_operation(self, operation: Operation) -> ColourRule | None:
        """The first rule some message of the operation matches (the filter's operations reading)."""
        if operation.id in self._by_operation:
            return self._by_operation[operation.id]
        found = next((rule for rule, b in zip(self.rules, self.bound, strict=True)
                      if b.matches_operation(operation)), None)
        self._by_operation[operation.id] = found
        return found


def tint_of(rule: ColourRule, dark: bool) -> str:
    return TINTS[rule.tint][1 if dark else 0]


# --- saving and files ------------------------------------------------------------------------------

def rules_to_json(rules: Sequence[ColourRule]) -> str:
    return json.dumps({"colouring_rules": [rule.to_json() for rule in rules]}, indent=1)


def rules_from_json(text: str | bytes) -> list[ColourRule]:
    """Rules from a rules file or the saved settings; ValueError in one line when it is not one. The
    expressions are not checked here (the dialog shows a bad one inline); names, tints and types are."""
    if len(text) > MAX_RULES_JSON:
        raise ValueError(f"a colouring rules file is at most {MAX_RULES_JSON // 1024} KiB")
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    items = document.get("colouring_rules") if isinstance(document, dict) else document
    if not isinstance(items, list):
        raise ValueError('expected {"colouring_rules": [{"name", "expression", "tint", "enabled"}, ...]}')
    if len(items) > MAX_RULES:
        raise ValueError(f"more than {MAX_RULES} rules")
    rules = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("name", "expression", "tint")):
            raise ValueError(f"rule {index + 1}: expected name, expression and tint as strings")
        if item["tint"] not in TINTS:
            raise ValueError(f"rule {index + 1}: unknown colour {item['tint']!r} (choose from {', '.join(TINTS)})")
        enabled = item.get("enabled", True)
        if not isinstance(enabled, bool):
            raise ValueError(f"rule {index + 1}: enabled is true or false")
        rules.append(ColourRule(item["name"], item["expression"], item["tint"], enabled))
    return rules


def moved(rules: Sequence[ColourRule], index: int, by: int) -> list[ColourRule]:
    """The list with rule `index` moved up (by -1) or down (by +1); unchanged at the ends."""
    out = list(rules)
    target = index + by
    if 0 <= index < len(out) and 0 <= target < len(out):
        out[index], out[target] = out[target], out[index]
    return out


def toggled(rules: Sequence[ColourRule], index: int, enabled: bool) -> list[ColourRule]:
    return [replace(rule, enabled=enabled) if i == index else rule for i, rule in enumerate(rules)]
