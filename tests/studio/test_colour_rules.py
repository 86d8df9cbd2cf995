"""Colouring rules: the first enabled matching rule wins, order matters, a bad expression is an error
naming the rule and the column, the saved form round-trips, and every tint keeps text readable in
both themes."""

import pytest

from mrtr_studio.studio.colour_rules import (
    DEFAULT_RULES,
    TEXT_COLOURS,
    TINTS,
    ColourRule,
    RuleError,
    compile_rules,
    moved,
    problems,
    rules_from_json,
    rules_to_json,
    toggled,
)
from mrtr_studio.trace.model import Operation, TraceMessage

OP = Operation("op1", "tools/call", "delete_file", {}, "modern", "embedded", 0.0)


def messages() -> list[TraceMessage]:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "delete_file"}}
    asked = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {},
                                                    "requestState": "s1"}}
    retry = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "delete_file", "requestState": "forged", "inputResponses": {}}}
    error = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid requestState"}}
    out = [TraceMessage(1, "op1", 1, "client->server", "request", call, 1.0, "tools/call", 1),
           TraceMessage(2, "op1", 1, "server->client", "input_required", asked, 1.1, None, 1),
           TraceMessage(3, "op1", 2, "client->server", "request", retry, 2.0, "tools/call", 2),
           TraceMessage(4, "op1", 2, "server->client", "error", error, 2.1, None, 2)]
    out[1].reply_to, out[3].reply_to = out[0], out[2]
    return out


def names(rules: list[ColourRule]) -> list[str | None]:
    bound = compile_rules(rules).bind([OP], messages())
    return [(found.name if (found := bound.rule_for(m)) else None) for m in messages()]


def test_the_defaults_colour_errors_altered_state_and_input_required() -> None:
    assert names(list(DEFAULT_RULES)) == [None, "Input required", "Altered requestState", "Errors"]


def test_the_first_matching_rule_wins_and_order_changes_it() -> None:
    rules = [ColourRule("round two", "round:2", "blue"), ColourRule("errors", "kind:error", "red")]
    assert names(rules) == [None, None, "round two", "round two"]
    assert names(moved(rules, 1, -1)) == [None, None, "round two", "errors"]
    assert moved(rules, 0, -1) == rules  # the top rule cannot go higher


def test_a_disabled_rule_colours_nothing() -> None:
    rules = [ColourRule("round two", "round:2", "blue"), ColourRule("errors", "kind:error", "red")]
    assert names(toggled(rules, 0, False)) == [None, None, None, "errors"]


def test_a_bad_expression_names_the_rule_and_the_column() -> None:
    rules = [ColourRule("fine", "kind:error", "red"), ColourRule("typo", "kind:eror", "amber"),
             ColourRule("", "round:1", "blue"), ColourRule("tint", "round:1", "pink")]
    with pytest.raises(RuleError) as caught:
        compile_rules(rules)
    assert caught.value.index == 1 and caught.value.position == 5
    assert str(caught.value).startswith("rule 2 (typo): column 6: ")
    found = problems(rules)
    assert [p.index for p in found] == [1, 2, 3]
    assert "give the rule a name" in found[1].message and "unknown colour 'pink'" in found[2].message
    with pytest.raises(RuleError):  # disabled or not, a wrong rule stops the list from applying
        compile_rules([ColourRule("typo", "kind:eror", "amber", enabled=False)])


def test_the_answer_is_remembered_until_bound_again() -> None:
    bound = compile_rules(list(DEFAULT_RULES)).bind([OP], messages())
    error = messages()[3]
    assert bound.rule_for(error) is bound.rule_for(error)
    assert bound._by_seq == {4: DEFAULT_RULES[0]}
    assert bound.rule_for_operation(OP) == DEFAULT_RULES[0]  # some message of it is an error


def test_the_saved_form_round_trips_and_bad_files_are_one_line() -> None:
    rules = [*DEFAULT_RULES, ColourRule('say "hi"', 'text:"two words"', "green", False)]
    assert rules_from_json(rules_to_json(rules)) == rules
    for text, message in (("{", "not JSON"), ('{"colouring_rules": 3}', "expected"),
                          ('[{"name": "a", "expression": "x", "tint": "pink"}]', "unknown colour 'pink'"),
                          ('[{"name": "a", "expression": "x", "tint": "red", "enabled": "yes"}]', "enabled")):
        with pytest.raises(ValueError, match=message):
            rules_from_json(text)


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("tint", sorted(TINTS))
def test_every_tint_keeps_text_readable_in_both_themes(tint: str) -> None:
    for background, text in zip(TINTS[tint], TEXT_COLOURS, strict=True):
        light, dark = sorted((_luminance(background), _luminance(text)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, (tint, background)
