"""URL consent, sampling and roots pages, the one-round dialog and the tool-arguments editor."""

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from mrtr_studio.protocol.models import Root
from mrtr_studio.protocol.schema import problems
from mrtr_studio.ui.forms.arguments_form import ArgumentsForm
from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog, ask_input_round, open_input_round
from mrtr_studio.ui.forms.roots_page import RootsEditor, RootsPage
from mrtr_studio.ui.forms.sampling_page import SamplingPage
from mrtr_studio.ui.forms.url_consent import UrlConsentPage

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "mcp-examples"


def load(kind: str, name: str):
    return json.loads((EXAMPLES / kind / name).read_text())


def click(qtbot, button):
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def shown(qtbot, widget):
    qtbot.addWidget(widget)
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


# --- URL consent ---------------------------------------------------------------------------------

def recorder(opened, works=True):
    """An opener like QDesktopServices.openUrl: records the URL, answers whether a browser took it."""
    def opener(url):
        opened.append(url)
        return works
    return opener


def url_page(qtbot, url, opened, works=True):
    params = {"mode": "url", "message": "Connect your account", "url": url}
    return shown(qtbot, UrlConsentPage(params, "Demo", opener=recorder(opened, works)))


def test_url_example_has_no_warnings_and_emphasises_the_host(qtbot):
    params = load("ElicitRequestURLParams", "elicit-sensitive-data.json")
    opened = []
    page = shown(qtbot, UrlConsentPage(params, "Demo", opener=recorder(opened)))
    assert page.warning_codes == [] and page.findChildren(QLabel, "warning:not_https") == []
    assert page.url_label.text() == (
        "<code>https://<span style='font-weight: bold; font-size: large; background: #fff4d6; color: #000;'>"
        "mcp.example.com</span>/ui/set_api_key</code>")
    assert opened == []  # nothing is opened (or fetched) before consent
    assert page.open_button.text() == "&Open link"
    click(qtbot, page.open_button)
    assert [u.toString() for u in opened] == ["https://mcp.example.com/ui/set_api_key"]
    click(qtbot, page.copy_button)
    assert QGuiApplication.clipboard().text() == "https://mcp.example.com/ui/set_api_key"
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.done_button)
    assert blocker.args[0] == {"action": "accept"} == load("ElicitResult", "accept-url-mode-no-content.json")


@pytest.mark.parametrize(("url", "code", "text"), [
    ("http://mcp.example.com/connect", "not_https", "Not encrypted"),
    ("https://xn--mcp-exmple-0fb.com/connect", "punycode", "punycode"),
    ("https://m\u0441p.example.com/connect", "non_ascii", "non-ASCII"),
    ("https://mcp.example.com:pw@evil.test/connect", "credentials", "'evil.test'"),
    ("https://203.0.113.7/connect", "ip_host", "bare IP"),
    ("https://[2001:db8::7]/connect", "ip_host", "bare IP"),
])
def test_each_risky_url_kind_shows_its_warning(qtbot, url, code, text):
    page = url_page(qtbot, url, [])
    labels = page.findChildren(QLabel, f"warning:{code}")
    assert len(labels) == 1 and labels[0].isVisible() and text in labels[0].text()
    assert page.open_button.text() == "&Open anyway"


@pytest.mark.parametrize("url", ["https://mcp.example.com:pw@evil.test/connect", "http://mcp.example.com/x",
                                 "file://localhost/etc/passwd", "javascript://example.com/%0aalert(1)",
                                 "vbscript://example.com/x"])
def test_enter_never_opens_a_suspicious_or_blocked_link(qtbot, url):
    opened = []
    page = url_page(qtbot, url, opened)
    assert page.decline_button.isDefault() and not page.open_button.isDefault()
    assert not page.open_button.autoDefault()
    assert page.open_button.isEnabled() == url.startswith("http")
    page.open_button.setFocus()  # even with focus on it, Open is not what Enter presses by default
    assert not page.open_button.isDefault()
    qtbot.keyClick(page.copy_button, Qt.Key.Key_Return)
    assert opened == [] and QGuiApplication.clipboard().text() == url


def test_enter_in_the_round_dialog_does_not_open_a_suspicious_link(qtbot):
    opened = []
    request = {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "elicitationId": "e1",
                                                          "url": "https://xn--pple-43d.com/login"}}
    dialog = shown(qtbot, InputRoundDialog({"k": request}, "Demo", opener=recorder(opened)))
    (page,) = dialog.findChildren(UrlConsentPage)
    assert page.decline_button.isDefault() and not page.open_button.isDefault()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert opened == []


def test_credentials_url_emphasises_the_real_host(qtbot):
    page = url_page(qtbot, "https://bank.example.com@evil.test/login", [])
    assert "bank.example.com@<span" in page.url_label.text() and ">evil.test</span>" in page.url_label.text()
    assert page.host_label.text() == "Host: <b>evil.test</b>"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "file://fileserver/share/run.exe", "javascript:alert(1)",
                                 "vbscript:msgbox(1)", "ms-settings://example.com/"])
def test_non_web_links_can_only_be_copied(qtbot, url):
    opened = []
    page = url_page(qtbot, url, opened)
    assert not page.open_button.isEnabled() and page.copy_button.isEnabled()
    blocked = page.findChild(QLabel, "openBlocked")
    assert blocked.isVisible() and "cannot be opened" in blocked.text()
    page.open_url()  # even when called directly (a shortcut, a test): nothing is handed to the desktop
    assert opened == [] and not page.opened
    click(qtbot, page.copy_button)
    assert QGuiApplication.clipboard().text() == url


def test_no_browser_is_said_inline_and_copy_is_offered(qtbot):
    opened = []
    page = url_page(qtbot, "https://mcp.example.com/connect", opened, works=False)
    assert page.findChild(QLabel, "openBlocked").isHidden()
    click(qtbot, page.open_button)
    assert len(opened) == 1 and not page.opened
    assert "No browser could be opened" in page.status.text() and "Opened in your browser" not in page.status.text()
    assert page.copy_button.hasFocus() and page.copy_button.isDefault()


def test_an_opened_link_says_so(qtbot):
    page = url_page(qtbot, "https://mcp.example.com/connect", [])
    click(qtbot, page.open_button)
    assert page.opened and page.status.text().startswith("Opened in your browser")


def test_url_decline_and_cancel(qtbot):
    page = url_page(qtbot, "https://example.com/", [])
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.decline_button)
    assert blocker.args[0] == {"action": "decline"}
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.cancel_button)
    assert blocker.args[0] == {"action": "cancel"}


# --- sampling ------------------------------------------------------------------------------------

def test_sampling_page_shows_the_request_and_sends_a_typed_reply(qtbot):
    params = load("CreateMessageRequestParams", "basic-request.json")
    page = shown(qtbot, SamplingPage(params, "Demo"))
    text = page.view.toPlainText()
    for expected in ("You are a helpful assistant.", "user:", "What is the capital of France?", "maxTokens: 100",
                     "model hints: claude-3-sonnet", "intelligencePriority: 0.8", "speedPriority: 0.5"):
        assert expected in text
    assert page.model.text() == "claude-3-sonnet"
    page.reply.setFocus()
    qtbot.keyClicks(page.reply, "The capital of France is Paris.")
    page.model.selectAll()
    qtbot.keyClicks(page.model, "claude-3-sonnet-20240307")
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.send_button)
    assert blocker.args[0] == load("CreateMessageResult", "text-response.json")


def test_sampling_echo_canned_stop_reason_and_empty_reply(qtbot):
    params = load("CreateMessageRequest", "sampling-request.json")["params"]
    page = shown(qtbot, SamplingPage(params))
    with qtbot.assertNotEmitted(page.answered):
        click(qtbot, page.send_button)
    assert page.error.text() == "Type a reply, pick a canned one, or echo."
    click(qtbot, page.echo_button)
    page.stop_reason.setCurrentText("")
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.send_button)
    assert blocker.args[0] == {"role": "assistant", "model": "claude-3-sonnet",
                               "content": {"type": "text", "text": "What is the capital of France?"}}
    page.canned.setCurrentIndex(page.canned.findText("Refusal"))
    click(qtbot, page.use_canned)
    page.stop_reason.setCurrentText("providerSpecific")
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.send_button)
    assert blocker.args[0]["content"]["text"] == "I can't help with that."
    assert blocker.args[0]["stopReason"] == "providerSpecific"
    assert problems(blocker.args[0], "CreateMessageResult") == []


def test_sampling_shows_tool_use_and_can_be_skipped(qtbot):
    params = load("CreateMessageRequestParams", "follow-up-with-tool-results.json")
    page = shown(qtbot, SamplingPage(params))
    text = page.view.toPlainText()
    assert '[tool_use get_weather id=call_abc123] {"city": "Paris"}' in text
    assert "[tool_result for call_def456] Weather in London: 15°C, rainy" in text
    assert "tools offered: get_weather" in text and "contains tool use" in text
    with qtbot.waitSignal(page.skipped):
        click(qtbot, page.skip_button)


# --- roots ---------------------------------------------------------------------------------------

def test_roots_editor_validates_each_row(qtbot):
    editor = RootsEditor([Root(uri="file:///home/user/projects/myproject", name="My Project")])
    qtbot.addWidget(editor)
    assert editor.problems() == []
    editor.add_root("https://example.com/repo", "web")
    assert editor.problems() == ["Row 2: A root must be a file:// URI."]
    assert editor.table.item(1, 0).toolTip() == "A root must be a file:// URI."
    with pytest.raises(ValueError, match="Row 2"):
        editor.roots()
    editor.table.item(1, 0).setText("file:///srv/repo")
    assert editor.error.text() == ""
    assert [r.wire() for r in editor.roots()] == [
        {"uri": "file:///home/user/projects/myproject", "name": "My Project"},
        {"uri": "file:///srv/repo", "name": "web"}]


def test_roots_page_sends_the_spec_example_and_blocks_invalid_roots(qtbot):
    expected = load("ListRootsResult", "multiple-root-directories.json")
    page = shown(qtbot, RootsPage([Root(**r) for r in expected["roots"]]))
    with qtbot.waitSignal(page.answered) as blocker:
        click(qtbot, page.send_button)
    assert blocker.args[0] == expected
    page.editor.add_root("file://fileserver/share")
    with qtbot.assertNotEmitted(page.answered):
        click(qtbot, page.send_button)
    assert page.editor.error.text() == "Row 3: Only local files are allowed (host 'fileserver')."


# --- one round, several requests -----------------------------------------------------------------

def round_requests():
    requests = load("InputRequests", "elicitation-and-sampling-input-requests.json")
    requests["workspace"] = {"method": "roots/list", "params": {}}
    requests["connect"] = {"method": "elicitation/create",
                           "params": {"mode": "url", "message": "Sign in", "url": "https://mcp.example.com/ui"}}
    return requests


ROOTS = [Root(uri="file:///home/user/projects/myproject", name="My Project")]


def test_round_dialog_gathers_every_answer_into_one_retry(qtbot):
    dialog = shown(qtbot, InputRoundDialog(round_requests(), "Demo", roots=ROOTS, auto_roots=True,
                                           opener=lambda url: True))
    assert dialog.pending() == ["github_login", "capital_of_france", "connect"]  # roots answered automatically
    assert dialog.stack.currentWidget() is dialog.page("github_login")
    assert not dialog.submit_button.isEnabled()
    elicit = dialog.page("github_login")
    elicit.form.editor("name").line.setFocus()
    qtbot.keyClicks(elicit.form.editor("name").line, "octocat")
    with qtbot.assertNotEmitted(dialog.submitted):
        click(qtbot, elicit.accept_button)
    assert dialog.stack.currentWidget() is dialog.page("capital_of_france")
    sampling = dialog.page("capital_of_france")
    qtbot.keyClicks(sampling.reply, "The capital of France is Paris.")
    sampling.model.setText("claude-3-sonnet-20240307")
    click(qtbot, sampling.send_button)
    assert dialog.status.text() == "3 of 4 answered"
    with qtbot.waitSignal(dialog.submitted) as blocker:
        click(qtbot, dialog.page("connect").done_button)
    expected = load("InputResponses", "elicitation-and-sampling-input-responses.json")
    expected["workspace"] = load("ListRootsResult", "single-root-directory.json")
    expected["connect"] = {"action": "accept"}
    assert blocker.args[0] == expected
    assert problems(blocker.args[0], "InputResponses") == []


def test_round_dialog_skip_auto_and_confirmed_roots(qtbot):
    dialog = shown(qtbot, InputRoundDialog(round_requests(), roots=ROOTS, auto_roots=False, auto_submit=False))
    assert "workspace" in dialog.pending()
    click(qtbot, dialog.page("capital_of_france").skip_button)
    click(qtbot, dialog.page("workspace").send_button)
    click(qtbot, dialog.page("connect").decline_button)
    assert dialog.pending() == ["github_login"]
    click(qtbot, dialog.auto_button)
    assert dialog.submit_button.isEnabled()
    with qtbot.waitSignal(dialog.submitted) as blocker:
        click(qtbot, dialog.submit_button)
    assert blocker.args[0] == {"github_login": {"action": "accept", "content": {"name": ""}},
                               "workspace": {"roots": [{"uri": "file:///home/user/projects/myproject",
                                                        "name": "My Project"}]},
                               "connect": {"action": "decline"}}


def test_round_of_only_roots_submits_itself_after_the_caller_connects(qtbot):
    received = []
    dialog = open_input_round({"r": {"method": "roots/list"}}, received.append, roots=ROOTS, auto_roots=True)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: received != [])
    assert received == [{"r": {"roots": [{"uri": "file:///home/user/projects/myproject", "name": "My Project"}]}}]


def test_cancelling_the_round_emits_cancelled_once(qtbot):
    cancelled = []
    dialog = open_input_round(round_requests(), lambda r: pytest.fail("submitted"), lambda: cancelled.append(1))
    qtbot.addWidget(dialog)
    click(qtbot, dialog.cancel_button)
    dialog.reject()
    assert cancelled == [1] and not dialog.isVisible()


def test_ask_input_round_awaits_the_answers(qtbot):
    async def scenario():
        task = asyncio.ensure_future(ask_input_round({"r": {"method": "roots/list"}}, roots=ROOTS, auto_roots=True))
        while not task.done():
            qtbot.wait(10)
            await asyncio.sleep(0)
        return task.result()

    assert asyncio.run(scenario()) == {"r": {"roots": [{"uri": "file:///home/user/projects/myproject",
                                                        "name": "My Project"}]}}


# --- tool arguments ------------------------------------------------------------------------------

def test_arguments_editor_uses_the_form_and_json_in_sync(qtbot):
    tool = load("CreateMessageRequestParams", "request-with-tools.json")["tools"][0]
    editor = ArgumentsForm(tool["inputSchema"])
    qtbot.addWidget(editor)
    assert editor.validate() == {"city": ["This field is required."]}
    qtbot.keyClicks(editor.form.editor("city").line, "Paris")
    assert editor.arguments() == {"city": "Paris"} and editor.validate() == {}
    editor.as_json.setChecked(True)
    assert json.loads(editor.text.toPlainText()) == {"city": "Paris"}
    editor.text.setPlainText('{"city": "London", "units": "metric"}')
    assert editor.arguments() == {"city": "London", "units": "metric"}
    editor.text.setPlainText("{oops")
    editor.as_json.setChecked(False)
    assert editor.as_json.isChecked() and editor.error.text().startswith("Not valid JSON")
    editor.text.setPlainText('{"city": "Rome"}')
    editor.as_json.setChecked(False)
    assert editor.form.editor("city").line.text() == "Rome" and editor.arguments() == {"city": "Rome"}


def test_arguments_editor_falls_back_to_json_for_schemas_without_a_form(qtbot):
    schema = {"type": "object", "$defs": {"p": {"type": "string"}}, "properties": {"p": {"$ref": "#/$defs/p"}}}
    editor = ArgumentsForm(schema)
    qtbot.addWidget(editor)
    assert editor.as_json.isChecked() and not editor.as_json.isEnabled()
    assert "unsupported top-level keyword(s): $defs" in editor.as_json.toolTip()
    editor.text.setPlainText('{"p": 5}')
    assert editor.validate() == {"p": ["Must be text."]}
    editor.text.setPlainText('{"p": "five"}')
    assert editor.validate() == {} and editor.arguments() == {"p": "five"}


def test_the_round_dialog_opens_inside_the_screen(qtbot):
    dialog = shown(qtbot, InputRoundDialog(round_requests(), "Demo", roots=ROOTS, auto_submit=False,
                                           opener=lambda url: True))
    available = dialog.screen().availableGeometry()
    assert dialog.width() <= available.width() and dialog.height() <= available.height()
    assert dialog.height() >= min(600, int(available.height() * 0.9))  # room for several fields


def test_the_round_dialogs_request_list_shows_whole_labels_without_a_horizontal_scroll_bar(qtbot):
    requests = {"confirm": {"method": "elicitation/create",
                            "params": {"message": "Delete?", "requestedSchema": {"type": "object", "properties": {}}}},
                **round_requests()}
    dialog = shown(qtbot, InputRoundDialog(requests, "Demo", roots=ROOTS, auto_submit=False, opener=lambda url: True))
    dialog.resize(1366 * 9 // 10, 768 * 9 // 10)  # as it opens on a 1366x768 screen
    qtbot.wait(10)
    keys = dialog.keys
    assert not keys.horizontalScrollBar().isVisible()
    room = keys.viewport().width()
    for row in range(keys.count()):
        item = keys.item(row)
        rect = keys.visualItemRect(item)
        assert rect.right() <= room, (item.text(), rect, room)
        for line in item.text().splitlines():  # every line drawn whole, none cut at the list's edge
            assert keys.fontMetrics().horizontalAdvance(line) < room, (line, room)
        assert rect.height() >= keys.fontMetrics().height() * len(item.text().splitlines())
        assert "—" in item.toolTip() and item.toolTip().startswith(item.text()[0])
    assert "elicitation/create (waiting)" in keys.item(0).text()


@pytest.mark.parametrize("url", ["https://xn--mcp-exmple-0fb.com/connect", "http://mcp.example.com/connect",
                                 "javascript:alert(1)"])
def test_enter_on_a_suspicious_link_declines_and_never_opens_it(qtbot, url):
    opened = []
    dialog = shown(qtbot, InputRoundDialog({"connect": {"method": "elicitation/create", "params": {
        "mode": "url", "message": "Sign in", "url": url}}}, "Demo", opener=opened.append))
    page = dialog.page("connect")
    assert page.decline_button.isDefault() and not page.open_button.isDefault()
    with qtbot.waitSignal(dialog.submitted) as blocker:
        qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert opened == [] and blocker.args[0] == {"connect": {"action": "decline"}}


def test_a_plain_link_keeps_open_as_the_first_button(qtbot):
    page = url_page(qtbot, "https://mcp.example.com/ui", [])
    assert not page.decline_button.isDefault()
