"""URL safety warnings, sampling summaries and replies, roots validation, the auto responder."""

import json
from pathlib import Path

import pytest

from mrtr_studio.client.forms import analyse_url, auto_responses, list_roots_result, root_problem, summarize
from mrtr_studio.client.forms.sampling import echo_reply, result_problems, text_reply, tool_use_reply
from mrtr_studio.protocol.schema import problems

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "mcp-examples"


def _example(kind: str, name: str):
    return json.loads((EXAMPLES / kind / name).read_text())


@pytest.mark.parametrize(("url", "codes"), [
    ("https://mcp.example.com/ui/set_api_key", []),
    ("http://mcp.example.com/x", ["not_https"]),
    ("ftp://files.example.com/x", ["not_https"]),
    ("https://xn--pple-43d.com/login", ["punycode"]),
    ("https://\u0430pple.com/login", ["non_ascii"]),
    ("https://user:secret@example.com/", ["credentials"]),
    ("https://example.com@evil.test/", ["credentials"]),
    ("https://192.168.1.10/setup", ["ip_host"]),
    ("https://[2001:db8::1]:8443/", ["ip_host"]),
    ("https://2130706433/", ["ip_host"]),
    ("http://10.0.0.1/", ["not_https", "ip_host"]),
    ("javascript:alert(1)", ["invalid", "not_https"]),
    ("https://example.com:notaport/", ["invalid"]),
])
def test_url_warnings(url, codes):
    assert analyse_url(url).codes == codes


@pytest.mark.parametrize("url", [
    "file:///etc/passwd", "file://host/share/x", "javascript:alert(1)", "JavaScript://example.com/%0Aalert(1)",
    "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>", "ftp://files.example.com/x",
    "ms-settings://example.com/", "smb://fileserver/share", "https://", "https://example.com:notaport/",
    "file://localhost/etc/passwd", "javascript://example.com/%0aalert(1)", "vbscript://example.com/x",
    "https://a.example\\@b.example/", "https://a.example/x y", "https://a.example/\x00", "https:/\\a.example/",
])
def test_only_web_links_may_be_opened(url):
    report = analyse_url(url)
    assert not report.can_open
    assert report.open_problem and "cannot be opened" in report.open_problem


@pytest.mark.parametrize("url", ["https://example.com/x", "HTTP://example.com/", "https://203.0.113.7/"])
def test_web_links_may_be_opened_even_with_warnings(url):
    assert analyse_url(url).can_open and analyse_url(url).open_problem is None


def test_the_reason_names_the_scheme():
    assert "'file'" in str(analyse_url("file://host/share/x").open_problem)


def test_url_is_split_around_the_host_for_emphasis():
    report = analyse_url("https://bob:pw@xn--pple-43d.com:8443/a?b=1")
    assert (report.before_host, report.host, report.after_host) == (
        "https://bob:pw@", "xn--pple-43d.com", ":8443/a?b=1")
    assert report.host_unicode == "\u0430pple.com"
    assert "\u0430pple.com" in report.warnings[1].message


def test_sampling_summary_of_the_spec_example():
    params = _example("CreateMessageRequestParams", "basic-request.json")
    summary = summarize(params)
    assert summary.messages == [("user", "What is the capital of France?")]
    assert (summary.system_prompt, summary.max_tokens, summary.model_hints) == (
        "You are a helpful assistant.", 100, ["claude-3-sonnet"])
    assert summary.priorities == {"intelligencePriority": 0.8, "speedPriority": 0.5}
    assert not summary.has_tool_use


def test_sampling_summary_shows_tool_use():
    summary = summarize(_example("CreateMessageRequestParams", "follow-up-with-tool-results.json"))
    assert summary.has_tool_use and summary.tools == ["get_weather"]
    assert summary.messages[1] == ("assistant", '[tool_use get_weather id=call_abc123] {"city": "Paris"}\n'
                                                '[tool_use get_weather id=call_def456] {"city": "London"}')
    assert summary.messages[2][1].startswith("[tool_result for call_abc123] Weather in Paris")


def test_sampling_replies_are_valid_results():
    params = _example("CreateMessageRequestParams", "basic-request.json")
    assert echo_reply(params, "m") == {"role": "assistant", "model": "m", "stopReason": "endTurn",
                                       "content": {"type": "text", "text": "What is the capital of France?"}}
    assert text_reply("one two three", "m", max_tokens=2) == {
        "role": "assistant", "model": "m", "stopReason": "maxTokens", "content": {"type": "text", "text": "one two"}}
    assert text_reply("The capital of France is Paris.", "claude-3-sonnet-20240307") == _example(
        "CreateMessageResult", "text-response.json")
    tool = tool_use_reply([("get_weather", {"city": "Paris"})])
    assert tool["stopReason"] == "toolUse" and tool["content"][0]["name"] == "get_weather"
    for result in (echo_reply(params), tool):
        assert result_problems(result) == []


@pytest.mark.parametrize(("uri", "ok"), [
    ("file:///home/user/projects/myproject", True),
    ("file://localhost/srv/data", True),
    ("https://example.com/", False),
    ("file://server/share", False),
    ("file://relative/x", False),
    ("file:///home/my project", False),
    ("file:///a?b=1", False),
])
def test_root_uris(uri, ok):
    assert (root_problem(uri) is None) is ok


def test_list_roots_result_matches_the_spec_example():
    expected = _example("ListRootsResult", "multiple-root-directories.json")
    assert list_roots_result([(r["uri"], r["name"]) for r in expected["roots"]]) == expected
    with pytest.raises(ValueError, match="file://"):
        list_roots_result([{"uri": "https://example.com"}])


def test_auto_responses_answer_a_whole_round():
    requests = _example("InputRequests", "elicitation-and-sampling-input-requests.json")
    requests["where"] = {"method": "roots/list", "params": {}}
    requests["odd"] = {"method": "x/unknown", "params": {}}
    answers = auto_responses(requests, [{"uri": "file:///w", "name": "W"}])
    assert answers == {
        "github_login": {"action": "accept", "content": {"name": ""}},
        "capital_of_france": {"role": "assistant", "model": "mrtr-studio-simulated", "stopReason": "endTurn",
                              "content": {"type": "text", "text": "What is the capital of France?"}},
        "where": {"roots": [{"uri": "file:///w", "name": "W"}]},
    }
    assert problems(answers, "InputResponses") == []
