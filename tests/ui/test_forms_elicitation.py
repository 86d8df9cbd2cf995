"""Elicitation forms built from the spec's example schemas and an every-feature schema, filled through widgets."""

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QDateTime, Qt, QTimeZone
from PySide6.QtWidgets import QApplication, QLabel

from mrtr_studio.protocol.schema import problems
from mrtr_studio.ui.forms.elicitation_page import ElicitationPage
from mrtr_studio.ui.forms.input_round_dialog import InputRoundDialog
from mrtr_studio.ui.forms.schema_form import SchemaForm, with_mnemonic

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "mcp-examples"


def load(kind: str, name: str):
    return json.loads((EXAMPLES / kind / name).read_text())


def make_page(qtbot, params, server="Test server"):
    page = ElicitationPage(params, server)
    qtbot.addWidget(page)
    with qtbot.waitExposed(page):
        page.show()
    return page


def press_accept(qtbot, page):
    with qtbot.waitSignal(page.answered, timeout=1000) as blocker:
        qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)
    return blocker.args[0]


def accept_is_blocked(qtbot, page):
    with qtbot.assertNotEmitted(page.answered):
        qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)


def type_into(qtbot, line_edit, text):
    line_edit.setFocus()
    line_edit.selectAll()
    qtbot.keyClick(line_edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(line_edit, text)


def set_spin(qtbot, editor, text):
    line = editor.spin.lineEdit()
    editor.spin.setFocus()
    line.selectAll()
    qtbot.keyClicks(editor.spin, text)


def toggle_item(qtbot, list_widget, row):
    rect = list_widget.visualItemRect(list_widget.item(row))
    list_widget.setFocus()
    list_widget.setCurrentRow(row)
    qtbot.keyClick(list_widget, Qt.Key.Key_Space)
    assert rect.isValid()


def press_space(qtbot, widget):
    widget.setFocus()
    qtbot.keyClick(widget, Qt.Key.Key_Space)


def choose(combo, title):
    index = combo.findText(title)
    assert index > 0, title
    combo.setCurrentIndex(index)


# --- the spec's property-schema examples -------------------------------------------------------

def fill_boolean(qtbot, editor):
    press_space(qtbot, editor.box)


def fill_number(qtbot, editor):
    set_spin(qtbot, editor, "75")


def fill_email(qtbot, editor):
    type_into(qtbot, editor.line, "octocat@github.com")


def fill_titled_multi(qtbot, editor):
    toggle_item(qtbot, editor.list, 0)  # Red off
    toggle_item(qtbot, editor.list, 2)  # Blue on
    toggle_item(qtbot, editor.list, 1)  # Green off


def fill_titled_single(qtbot, editor):
    choose(editor.combo, "Blue")


def fill_untitled_multi(qtbot, editor):
    toggle_item(qtbot, editor.list, 0)
    toggle_item(qtbot, editor.list, 2)


def fill_untitled_single(qtbot, editor):
    editor.combo.setFocus()
    qtbot.keyClick(editor.combo, Qt.Key.Key_Down)


PROPERTY_EXAMPLES = {
    "BooleanSchema/boolean-input-schema.json": (False, fill_boolean, True),
    "NumberSchema/number-input-schema.json": (50, fill_number, 75),
    "StringSchema/email-input-schema.json": ("user@example.com", fill_email, "octocat@github.com"),
    "TitledMultiSelectEnumSchema/titled-color-multi-select-schema.json": (
        ["#FF0000", "#00FF00"], fill_titled_multi, ["#0000FF"]),
    "TitledSingleSelectEnumSchema/titled-color-select-schema.json": ("#FF0000", fill_titled_single, "#0000FF"),
    "UntitledMultiSelectEnumSchema/color-multi-select-schema.json": (
        ["Red", "Green"], fill_untitled_multi, ["Green", "Blue"]),
    "UntitledSingleSelectEnumSchema/color-select-schema.json": ("Red", fill_untitled_single, "Green"),
}


def test_every_property_example_in_the_spec_folder_is_covered():
    found = {f"{p.parent.name}/{p.name}" for p in EXAMPLES.glob("*Schema/*.json")}
    assert found == set(PROPERTY_EXAMPLES)


@pytest.mark.parametrize("name", sorted(PROPERTY_EXAMPLES))
def test_property_example_defaults_then_filled(qtbot, name):
    prop = json.loads((EXAMPLES / name).read_text())
    default, fill, filled = PROPERTY_EXAMPLES[name]
    page = make_page(qtbot, {"message": "m", "requestedSchema": {"type": "object", "properties": {"x": prop},
                                                                 "required": ["x"]}})
    assert press_accept(qtbot, page) == {"action": "accept", "content": {"x": default}}
    fill(qtbot, page.form.editor("x"))
    result = press_accept(qtbot, page)
    assert result == {"action": "accept", "content": {"x": filled}}
    assert problems(result, "ElicitResult") == []
    label = page.form.labels["x"]
    assert label.text().replace("&", "").startswith(prop["title"]) and label.text().endswith("*")
    assert label.buddy() is page.form.editor("x").focus_widget


def test_elicit_request_example_single_field(qtbot):
    params = load("ElicitRequest", "elicitation-request.json")["params"]
    page = make_page(qtbot, params)
    type_into(qtbot, page.form.editor("name").line, "octocat")
    assert press_accept(qtbot, page) == load("ElicitResult", "input-single-field.json")


def test_elicit_form_params_example_single_field_requires_the_name(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-single-field.json"))
    accept_is_blocked(qtbot, page)
    assert page.form.error_text("name") == "This field is required."
    type_into(qtbot, page.form.editor("name").line, "octocat")
    assert page.form.error_text("name") == ""  # errors clear live once shown
    assert press_accept(qtbot, page) == load("ElicitResult", "input-single-field.json")


def test_elicit_form_params_example_multiple_fields(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-multiple-fields.json"))
    form = page.form
    type_into(qtbot, form.editor("name").line, "Monalisa Octocat")
    type_into(qtbot, form.editor("email").line, "octocat@github.com")
    set_spin(qtbot, form.editor("age"), "30")
    assert form.editor("age").provided.isChecked()
    assert press_accept(qtbot, page) == load("ElicitResult", "input-multiple-fields.json")


def test_optional_number_left_unset_is_omitted(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-multiple-fields.json"))
    type_into(qtbot, page.form.editor("name").line, "Ann")
    type_into(qtbot, page.form.editor("email").line, "ann@example.com")
    assert press_accept(qtbot, page) == {"action": "accept", "content": {"name": "Ann", "email": "ann@example.com"}}
    set_spin(qtbot, page.form.editor("age"), "40")
    press_space(qtbot, page.form.editor("age").provided)  # untick: leave out again
    assert press_accept(qtbot, page)["content"] == {"name": "Ann", "email": "ann@example.com"}


def test_url_mode_example_is_not_a_form_but_decline_and_cancel_work(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-single-field.json"))
    with qtbot.waitSignal(page.answered) as blocker:
        qtbot.mouseClick(page.decline_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == {"action": "decline"}
    with qtbot.waitSignal(page.answered) as blocker:
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0] == {"action": "cancel"}


# --- one schema with every feature ---------------------------------------------------------------

EVERY_FEATURE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Full name", "minLength": 2, "maxLength": 10},
        "email": {"type": "string", "title": "Email", "format": "email", "default": "a@example.com"},
        "site": {"type": "string", "title": "Site", "format": "uri"},
        "born": {"type": "string", "title": "Born", "format": "date"},
        "at": {"type": "string", "title": "Meeting", "format": "date-time"},
        "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 130},
        "score": {"type": "number", "title": "Score", "minimum": 0.5, "maximum": 9.5},
        "ok": {"type": "boolean", "title": "Agree", "default": True},
        "news": {"type": "boolean", "title": "Newsletter"},
        "color": {"type": "string", "title": "Color", "enum": ["Red", "Green", "Blue"]},
        "hex": {"type": "string", "title": "Hex", "default": "#f00",
                "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        "size": {"type": "string", "title": "Size", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["a", "b", "c"]},
                 "minItems": 1, "maxItems": 2},
        "pets": {"type": "array", "title": "Pets", "items": {"anyOf": [{"const": "cat", "title": "Cat"},
                                                                       {"const": "dog", "title": "Dog"}]}},
    },
    "required": ["name", "age", "color", "tags", "ok"],
}


def test_every_feature_filled_through_the_widgets(qtbot):
    page = make_page(qtbot, {"message": "Tell me everything", "requestedSchema": EVERY_FEATURE})
    form = page.form
    # a required number without a default starts empty: nothing is sent that the person did not give
    assert form.content() == {"email": "a@example.com", "ok": True, "hex": "#f00", "tags": []}
    assert form.editor("age").spin.text() == "" and "age" in form.validate()
    type_into(qtbot, form.editor("name").line, "Ann")
    type_into(qtbot, form.editor("email").line, "ann@example.org")
    type_into(qtbot, form.editor("site").line, "https://ann.example.org/")
    form.editor("born").edit.setDate(QDate(1990, 12, 31))
    form.editor("at").edit.setDateTime(QDateTime(QDate(2026, 7, 28), QDateTime.fromString(
        "09:30:00", "HH:mm:ss").time(), QTimeZone.utc()))
    set_spin(qtbot, form.editor("age"), "42")
    set_spin(qtbot, form.editor("score"), "2.5")
    press_space(qtbot, form.editor("news").box)  # unset -> checked (tri-state)
    press_space(qtbot, form.editor("ok").box)  # True -> False
    choose(form.editor("color").combo, "Blue")
    choose(form.editor("hex").combo, "Green")
    choose(form.editor("size").combo, "Medium")
    toggle_item(qtbot, form.editor("tags").list, 0)
    toggle_item(qtbot, form.editor("tags").list, 2)
    toggle_item(qtbot, form.editor("pets").list, 1)
    result = press_accept(qtbot, page)
    assert result == {"action": "accept", "content": {
        "name": "Ann", "email": "ann@example.org", "site": "https://ann.example.org/", "born": "1990-12-31",
        "at": "2026-07-28T09:30:00Z", "age": 42, "score": 2.5, "ok": False, "news": True, "color": "Blue",
        "hex": "#0f0", "size": "m", "tags": ["a", "c"], "pets": ["dog"]}}


def test_required_marks_and_accessible_names(qtbot):
    page = make_page(qtbot, {"message": "m", "requestedSchema": EVERY_FEATURE})
    form = page.form
    assert form.labels["name"].text() == "&Name *" and form.labels["site"].text() == "&Site"
    name_editor = form.editor("name").focus_widget
    assert name_editor.accessibleName() == "Name (required)"
    assert name_editor.accessibleDescription() == "Full name. at least 2 characters, at most 10 characters"
    assert form.editor("site").focus_widget.accessibleName() == "Site"
    letters = [label.text()[label.text().index("&") + 1].lower() for label in form.labels.values()
               if "&" in label.text()]
    assert len(letters) == len(set(letters)) and not set(letters) & set("adc")
    assert with_mnemonic("R&D", set()) == "&R&&D"


def test_invalid_input_blocks_sending_and_shows_messages_next_to_fields(qtbot):
    page = make_page(qtbot, {"message": "m", "requestedSchema": EVERY_FEATURE})
    form = page.form
    type_into(qtbot, form.editor("name").line, "A")  # too short
    type_into(qtbot, form.editor("email").line, "not-an-email")  # bad email
    set_spin(qtbot, form.editor("age"), "150")  # out of range
    choose(form.editor("color").combo, "Red")
    accept_is_blocked(qtbot, page)  # tags: too few items
    assert {k: form.error_text(k) for k in form.editors if form.error_text(k)} == {
        "name": "Must be at least 2 characters long.",
        "email": "Enter a valid email address, like name@example.com.",
        "age": "Must be at most 130.",
        "tags": "Choose at least 1.",
    }
    assert page.result is None
    assert page.focusWidget() is form.editor("name").focus_widget
    assert "Error: Must be at least 2" in form.editor("name").focus_widget.accessibleDescription()
    error_label = form.findChild(QLabel, "error:email")
    assert error_label.isVisible() and error_label.text().startswith("\u2716 Enter a valid email")
    toggle_item(qtbot, form.editor("tags").list, 0)
    toggle_item(qtbot, form.editor("tags").list, 1)
    toggle_item(qtbot, form.editor("tags").list, 2)  # too many now
    assert form.error_text("tags") == "Choose at most 2."
    type_into(qtbot, form.editor("name").line, "Ann")
    type_into(qtbot, form.editor("email").line, "ann@example.org")
    set_spin(qtbot, form.editor("age"), "30")
    toggle_item(qtbot, form.editor("tags").list, 2)
    assert press_accept(qtbot, page)["content"]["tags"] == ["a", "b"]


def test_keyboard_only_accept_and_cancel(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-single-field.json"))
    with qtbot.waitActive(page):
        page.activateWindow()
    line = page.form.editor("name").line
    line.setFocus()
    qtbot.keyClicks(line, "octocat")
    with qtbot.waitSignal(page.answered, timeout=1000) as blocker:
        qtbot.keyClick(line, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args[0] == {"action": "accept", "content": {"name": "octocat"}}
    with qtbot.waitSignal(page.answered, timeout=1000) as blocker:
        qtbot.keyClick(line, Qt.Key.Key_Escape)
    assert blocker.args[0] == {"action": "cancel"}


# --- fallbacks -----------------------------------------------------------------------------------

def test_unsupported_property_falls_back_to_raw_json_with_a_note(qtbot):
    schema = {"type": "object", "properties": {
        "name": {"type": "string"},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }, "required": ["name", "address"]}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    form = page.form
    assert form.editor("address").__class__.__name__ == "RawEditor"
    note = form.findChild(QLabel, "note:address")
    assert note.isVisible() and note.text() == "Raw JSON: type 'object' has no form editor"
    assert form.note.isVisible() and "address: shown as raw JSON" in form.note.text()
    type_into(qtbot, form.editor("name").line, "Ann")
    form.editor("address").text.setPlainText('{"city": ')
    accept_is_blocked(qtbot, page)
    assert form.error_text("address").startswith("Not valid JSON: Expecting value")
    form.editor("address").text.setPlainText('{"town": "Paris"}')
    accept_is_blocked(qtbot, page)
    assert form.error_text("address") == "'city' is a required property"
    form.editor("address").text.setPlainText('{"city": "Paris"}')
    assert press_accept(qtbot, page) == {"action": "accept",
                                         "content": {"name": "Ann", "address": {"city": "Paris"}}}


def test_whole_schema_outside_the_subset_is_one_raw_editor(qtbot):
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}]}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    form = page.form
    assert form.is_raw and form.note.isVisible()
    assert form.note.text() == "Shown as raw JSON: unsupported top-level keyword(s): oneOf"
    form.raw_editor().text.setPlainText("[1]")
    accept_is_blocked(qtbot, page)
    assert form.error_text("") == "The answer must be a JSON object."
    form.raw_editor().text.setPlainText('{"a": "x"}')
    assert press_accept(qtbot, page) == {"action": "accept", "content": {"a": "x"}}


def test_a_broken_schema_never_crashes_and_blocks_accept(qtbot):
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    accept_is_blocked(qtbot, page)
    assert "not valid JSON Schema" in page.form.error_text("")


def test_set_content_round_trips(qtbot):
    form = SchemaForm(EVERY_FEATURE)
    qtbot.addWidget(form)
    content = {"name": "Bo", "email": "b@example.com", "born": "2000-01-02", "at": "2026-01-01T10:00:00Z",
               "age": 20, "score": 1.25, "ok": True, "news": False, "color": "Green", "hex": "#0f0",
               "size": "s", "tags": ["b"], "pets": ["cat", "dog"]}
    form.set_content(content)
    assert form.content() == content
    assert form.validate() == {}


def test_label_mnemonics_move_focus_to_their_field(qtbot):
    page = make_page(qtbot, load("ElicitRequestFormParams", "elicit-multiple-fields.json"))
    with qtbot.waitActive(page):
        page.activateWindow()
    assert [label.text() for label in page.form.labels.values()] == ["&name *", "&email *", "a&ge"]
    page.form.editor("name").line.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)
    assert page.focusWidget() is page.form.editor("age").spin
    qtbot.keyClick(page, Qt.Key.Key_E, Qt.KeyboardModifier.AltModifier)
    assert page.focusWidget() is page.form.editor("email").line


def test_a_schema_too_large_to_render_is_one_raw_editor_that_can_still_answer(qtbot):
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(20_000)}}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    form = page.form
    assert form.is_raw and list(form.editors) == [""]
    assert form.note.isVisible() and "schema too large to render" in form.note.text()
    form.raw_editor().text.setPlainText('{"p1": "x"}')
    assert press_accept(qtbot, page) == {"action": "accept", "content": {"p1": "x"}}


def test_a_deep_schema_and_deep_raw_json_are_refused_with_a_sentence(qtbot):
    deep: dict = {"type": "string"}
    for _ in range(2000):
        deep = {"type": "object", "properties": {"x": deep}}
    page = make_page(qtbot, {"message": "m", "requestedSchema": deep})
    assert page.form.is_raw and "nested more than" in page.form.note.text()
    page.form.raw_editor().text.setPlainText("[" * 100_000)
    accept_is_blocked(qtbot, page)
    assert page.form.error_text("") == "Nested more than 64 levels deep."


def test_a_catastrophic_pattern_does_not_hang_the_form(qtbot):
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": "^(a|a)*$"}}, "required": ["w"]}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    type_into(qtbot, page.form.editor("w").line, "a" * 40 + "!")
    accept_is_blocked(qtbot, page)
    assert "takes too long to check" in page.form.error_text("w")


# --- what the person sees is what is checked; nothing jumps; Tab goes through the fields first ----

def test_a_required_date_or_number_without_default_starts_empty_and_what_it_shows_is_sent(qtbot):
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date", "title": "When"},
                                               "at": {"type": "string", "format": "date-time"},
                                               "n": {"type": "integer", "minimum": 3}},
              "required": ["when", "at", "n"]}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    form = page.form
    assert all(form.editor(key).provided.isHidden() for key in ("when", "at", "n"))  # no box to tick
    assert form.editor("when").edit.text().strip() == "" and form.editor("n").spin.text() == ""
    assert set(form.validate()) == {"when", "at", "n"}  # empty, so the validator asks for each
    qtbot.mouseClick(page.accept_button, Qt.MouseButton.LeftButton)
    assert form.error_text("when") != ""  # not sent: asked for
    qtbot.mouseClick(form.editor("when").edit, Qt.MouseButton.LeftButton)  # a click starts it at today
    qtbot.mouseClick(form.editor("at").edit, Qt.MouseButton.LeftButton)
    form.editor("n").spin.stepUp()  # the first step from empty shows the minimum
    assert form.editor("n").spin.text() == "3"
    assert form.validate() == {}
    shown = form.editor("when").edit.date().toString("yyyy-MM-dd")
    content = press_accept(qtbot, page)["content"]
    assert content["when"] == shown and content["n"] == 3 and content["at"].endswith("Z")


def test_a_required_integer_typed_at_its_minimum_is_sent(qtbot):
    schema = {"type": "object", "properties": {"age": {"type": "integer", "title": "Age", "minimum": 18}},
              "required": ["age"]}
    page = make_page(qtbot, {"message": "m", "requestedSchema": schema})
    assert page.form.content() == {}
    set_spin(qtbot, page.form.editor("age"), "18")  # the very value the empty box holds underneath
    assert press_accept(qtbot, page)["content"] == {"age": 18}


def test_inline_errors_do_not_move_the_fields_or_buttons(qtbot):
    page = ElicitationPage({"message": "m", "requestedSchema": EVERY_FEATURE}, "Test server")
    qtbot.addWidget(page)
    page.resize(760, 1400)
    with qtbot.waitExposed(page):
        page.show()
    watched = [e.focus_widget for e in page.form.editors.values()] + [
        page.accept_button, page.decline_button, page.cancel_button]
    watched += [e.provided for e in page.form.editors.values() if hasattr(e, "provided") and e.provided.isVisible()]

    def places():
        return [w.mapTo(page, w.rect().topLeft()) for w in watched]

    before = places()
    accept_is_blocked(qtbot, page)
    assert page.form.error_text("name") and page.form.error_text("tags")  # errors are showing
    qtbot.wait(10)
    assert places() == before


def test_tab_visits_the_fields_before_the_buttons(qtbot):
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                                               "city": {"type": "string"}}, "required": ["name"]}
    dialog = InputRoundDialog({"ask": {"method": "elicitation/create",
                                       "params": {"message": "m", "requestedSchema": schema}}},
                              "Test server", auto_submit=False)
    qtbot.addWidget(dialog)
    with qtbot.waitExposed(dialog):
        dialog.show()
    with qtbot.waitActive(dialog):
        dialog.activateWindow()
    page = dialog.page("ask")
    fields = [e.focus_widget for e in page.form.editors.values()]
    assert QApplication.focusWidget() is fields[0]  # the round opens in its first field
    visited = []
    for _ in range(12):
        visited.append(QApplication.focusWidget())
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    positions = [visited.index(w) for w in fields]
    buttons = [visited.index(b) for b in (page.accept_button, dialog.auto_button, dialog.submit_button,
                                          dialog.cancel_button) if b in visited]
    assert positions == sorted(positions) and buttons and max(positions) < min(buttons)
    assert visited.index(page.accept_button) < visited.index(dialog.auto_button)  # (submit is disabled)
