"""What a tamper says it did quotes values in JSON, as they go on the wire (`true`, double quotes),
not in Python's repr (`True`, single quotes): the Lab's Detail column and the CLI show it."""

import json

from mrtr_studio.client import tamper

RETRY = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "delete_file", "arguments": {"path": "/tmp/report.txt"}, "requestState": "v1.e30.c2ln"}}


def test_changed_arguments_are_said_in_json() -> None:
    done = tamper.change_arguments(RETRY)
    prefix = "changed the arguments to "
    assert done.description.startswith(prefix)
    assert json.loads(done.description[len(prefix):]) == {"path": "/tmp/report.txt", "tampered": True}
    assert "True" not in done.description and "'" not in done.description


def test_an_edited_payload_field_is_said_in_json() -> None:
    done = tamper.edit_payload(RETRY, "p", None)
    assert done.description == "set payload field 'p' to null without re-signing"
