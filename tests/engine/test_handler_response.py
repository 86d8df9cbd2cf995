"""The handler's `Response`: its builders are made at first use, and what a handler puts in them is
what the wire result carries (tools, prompts, resources), whichever way the handler fills them."""

import asyncio

from mrtr_studio.engine.handler_api import ContentList, Response, ResultBuilder
from mrtr_studio.engine.results import complete_result


def test_a_fresh_response_asks_for_nothing_and_builds_nothing_until_read() -> None:
    response = Response()
    assert response.asks_for_input is False
    assert response._input_required is None and response._result is None  # made at first read
    assert response.result is response.result  # one builder, kept
    assert response.result.content is response.result.content
    response.input_required.request_state = "s"
    assert response.asks_for_input is True
    given = ResultBuilder(is_error=True)
    response.result = given  # assignable, as a plain attribute would be
    assert response.result is given


def test_each_kind_of_result_reaches_the_wire() -> None:
    tool = Response()
    tool.result.content.add_text("hi")
    tool.result.is_error = True
    assert complete_result("tools/call", tool, modern=True) == {
        "resultType": "complete", "content": [{"type": "text", "text": "hi"}], "isError": True}
    prompt = Response()
    prompt.result.messages.add_user("q")
    prompt.result.description = "d"
    assert complete_result("prompts/get", prompt, modern=False) == {
        "description": "d", "messages": [{"role": "user", "content": {"type": "text", "text": "q"}}]}
    resource = Response()
    resource.result.contents.add_text("file:///a", "body")
    resource.result.meta["k"] = 1
    assert complete_result("resources/read", resource, modern=True) == {
        "resultType": "complete", "contents": [{"uri": "file:///a", "mimeType": "text/plain", "text": "body"}],
        "ttlMs": 0, "cacheScope": "private", "_meta": {"k": 1}}


def test_a_handler_may_replace_a_list_whole() -> None:
    response = Response()
    replaced = ContentList()
    replaced.add_text("whole")
    response.result.content = replaced
    assert complete_result("tools/call", response, modern=False) == {"content": [{"type": "text", "text": "whole"}]}


def test_an_empty_tool_result_still_has_its_content_list() -> None:
    assert complete_result("tools/call", Response(), modern=False) == {"content": []}
    asyncio.run(Response().send_progress(1))  # no notify: nothing to send, no error


def test_a_scoped_notify_sends_only_what_the_request_asked_for() -> None:
    sent: list[tuple[str, dict[str, object]]] = []

    async def raw(method: str, params: dict[str, object]) -> None:
        sent.append((method, params))

    async def run() -> None:
        silent = Response(notify=raw, notify_scope=({}, True, None))
        await silent.send_progress(1)  # no progress token: nothing
        await silent.log("info", "x")  # no log level asked (modern): nothing
        asked = Response(notify=raw, notify_scope=(
            {"_meta": {"progressToken": "t", "io.modelcontextprotocol/logLevel": "warning"}}, True, None))
        await asked.send_progress(2, 4)
        await asked.log("info", "below the level")
        await asked.log("error", "above it")
        assert asked.notify is asked.notify  # wrapped once
        replaced = Response(notify=raw, notify_scope=({}, True, None))
        replaced.notify = raw  # set by hand: used as given, unscoped
        await replaced.send_progress(3)

    asyncio.run(run())
    assert sent == [("notifications/progress", {"progressToken": "t", "progress": 2, "total": 4}),
                    ("notifications/message", {"level": "error", "data": "above it"}),
                    ("notifications/progress", {"progress": 3})]
