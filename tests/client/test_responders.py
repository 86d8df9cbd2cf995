"""Responders: dispatch by method and mode, answers files, the terminal, sampling, roots, consent."""

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.client.responders import (
    AnswersFile,
    RootsList,
    Terminal,
    UnansweredRequest,
    canned,
    compose,
    consent,
    echo,
    from_callback,
    schema_defaults,
)

pytestmark = pytest.mark.anyio

FORM = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Deploy?", "requestedSchema": {
        "type": "object", "required": ["env", "confirm"],
        "properties": {"env": {"type": "string", "enum": ["staging", "production"]},
                       "confirm": {"type": "boolean"}, "count": {"type": "integer", "default": 2},
                       "note": {"type": "string"}}}}}
URL = {"method": "elicitation/create", "params": {"mode": "url", "message": "Connect", "url": "https://x.example"}}
SAMPLE = {"method": "sampling/createMessage", "params": {"maxTokens": 9, "messages": [
    {"role": "user", "content": {"type": "text", "text": "first"}},
    {"role": "user", "content": {"type": "text", "text": "Summarize: hello"}}]}}
ROOTS = {"method": "roots/list"}


async def test_compose_dispatches_by_method_and_mode_and_answers_all_keys_together() -> None:
    seen: list[tuple[str, int]] = []

    def form(key: str, request: dict[str, Any], n: int) -> dict[str, Any]:
        seen.append((key, n))
        return {"action": "accept", "content": {"env": "staging"}}

    respond = compose(elicitation=from_callback(form), url=consent("cancel"), sampling=canned("ok"),
                      roots=RootsList.of(["file:///home/me/project"]))
    answers = await respond({"f": FORM, "u": URL, "s": SAMPLE, "r": ROOTS}, 2)
    assert answers == {
        "f": {"action": "accept", "content": {"env": "staging"}},
        "u": {"action": "cancel"},
        "s": {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "mrtr-studio-canned",
              "stopReason": "endTurn"},
        "r": {"roots": [{"uri": "file:///home/me/project", "name": "project"}]},
    }
    assert seen == [("f", 2)]


async def test_compose_names_a_request_it_cannot_answer() -> None:
    with pytest.raises(UnansweredRequest, match=r"no responder for input request 'r' \(roots/list\)"):
        await compose()({"r": ROOTS}, 1)


async def test_answers_file_by_key_then_method_then_star(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}},
                                "roots/list": {"roots": []}, "*": {"action": "decline"}}))
    file = AnswersFile.load(path)
    assert await file("confirm", FORM, 1) == {"action": "accept", "content": {"confirm": True}}
    assert await file("17", ROOTS, 1) == {"roots": []}
    assert await file("other", FORM, 1) == {"action": "decline"}


async def test_answers_file_without_fallback_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(UnansweredRequest, match=r"no entry for 'x' \(elicitation/create\) and no '\*' fallback"):
        await AnswersFile({})("x", FORM, 1)


def test_answers_file_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("[1]")
    with pytest.raises(ValueError, match=r"must hold a JSON object"):
        AnswersFile.load(path)


async def test_terminal_asks_field_by_field_with_retries_and_defaults() -> None:
    out = io.StringIO()
    term = Terminal(io.StringIO("\nproduction\nmaybe\ny\n\n\n"), out)
    # action: default accept; env; confirm (bad, then yes); count default; note optional -> omitted
    assert await term.elicit("deploy", FORM, 1) == {
        "action": "accept", "content": {"env": "production", "confirm": True, "count": 2}}
    assert "please answer yes or no" in out.getvalue()
    assert "[round 1] deploy: Deploy?" in out.getvalue()


async def test_terminal_rejects_values_outside_the_enum_and_declines() -> None:
    out = io.StringIO()
    assert await Terminal(io.StringIO("d\n"), out).elicit("k", FORM, 1) == {"action": "decline"}
    term = Terminal(io.StringIO("a\nqa\nstaging\nno\n\n\n"), out)
    assert (await term.elicit("k", FORM, 1))["content"]["env"] == "staging"
    assert "please pick one of: staging, production" in out.getvalue()


async def test_terminal_eof_is_a_clear_error() -> None:
    with pytest.raises(UnansweredRequest, match=r"no answer on the terminal \(input closed\); pass --answers FILE"):
        await Terminal(io.StringIO(""), io.StringIO()).elicit("k", FORM, 1)


@pytest.mark.parametrize(("params", "message"), [
    ({"message": "m", "requestedSchema": "{\"type\": \"object\"}"},
     "cannot ask 'k' on the terminal: requestedSchema is \"{\\\"type\\\": \\\"object\\\"}\", not an object"),
    ({"message": "m", "requestedSchema": {"type": "object", "properties": [1]}},
     "cannot ask 'k' on the terminal: requestedSchema.properties is [1], not an object"),
    ("oops", "the params of 'k' are \"oops\", not an object"),
])
async def test_terminal_refuses_a_form_it_cannot_show_before_asking(params: Any, message: str) -> None:
    out = io.StringIO()
    request = {"method": "elicitation/create", "params": params}
    with pytest.raises(UnansweredRequest) as caught:
        await Terminal(io.StringIO("accept\n"), out).elicit("k", request, 1)
    assert str(caught.value) == message
    assert out.getvalue() == ""


async def test_terminal_typed_sampling_and_url_consent() -> None:
    term = Terminal(io.StringIO("Paris\ncancel\n"), io.StringIO())
    assert (await term.sample("s", SAMPLE, 1))["content"] == {"type": "text", "text": "Paris"}
    assert await term.consent("u", URL, 1) == {"action": "cancel"}


async def test_echo_replies_with_the_last_user_text() -> None:
    assert (await echo("s", SAMPLE, 1))["content"]["text"] == "Summarize: hello"


async def test_roots_list_is_editable_and_file_only() -> None:
    roots = RootsList.of(["file:///a"])
    roots.roots.append({"uri": "https://b"})
    with pytest.raises(UnansweredRequest, match=r"roots must be file:// URIs: https://b"):
        await roots("r", ROOTS, 1)


async def test_consent_callback_must_choose_a_known_action() -> None:
    with pytest.raises(UnansweredRequest, match=r"must be accept, decline or cancel, not 'yes'"):
        await consent(lambda k, r, n: "yes")("u", URL, 1)


def test_schema_defaults() -> None:
    # Defaults kept, required fields filled (yes to a confirmation), optional ones without default left out.
    assert schema_defaults("k", FORM) == {"action": "accept", "content": {"env": "staging", "confirm": True,
                                                                        "count": 2}}
