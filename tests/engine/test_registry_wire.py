"""Listing entries: required fields first, optional ones only when set, the fixture mark last."""

from mrtr_studio.engine.registry import FIXTURE_META, PromptEntry, ResourceEntry, ToolEntry


def handler() -> None:
    return None


def test_tool_optional_fields_only_when_set_in_wire_order() -> None:
    bare = ToolEntry("t", handler).wire()
    assert bare == {"name": "t", "inputSchema": {"type": "object", "properties": {}}}
    full = ToolEntry("t", handler, "does", title="T", annotations={"readOnlyHint": True},
                     output_schema={"type": "object"}, fixture=True).wire()
    assert list(full) == ["name", "inputSchema", "title", "description", "annotations", "outputSchema", "_meta"]
    assert full["_meta"] == {FIXTURE_META: True} and full["description"] == "does"


def test_prompt_and_resource_entries() -> None:
    assert PromptEntry("p", handler).wire() == {"name": "p"}
    code = [{"name": "code"}]
    assert PromptEntry("p", handler, arguments=code).wire() == {"name": "p", "arguments": code}
    assert ResourceEntry("file:///a", handler, "a", mime_type="text/plain").wire() == {
        "uri": "file:///a", "name": "a", "mimeType": "text/plain"}
    assert ResourceEntry("file:///{path}", handler, "files", title="Files").wire() == {
        "uriTemplate": "file:///{path}", "name": "files", "title": "Files"}
