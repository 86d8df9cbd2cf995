"""Hostile and damaged `.mrtr.json` files: a clear error naming the place, never a traceback from deep inside."""

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mrtr_studio.trace import files
from mrtr_studio.trace.file_format import TraceFileError
from mrtr_studio.trace.model import TraceMessage
from tools.synthetic_trace import synthetic_trace

HUGE = "a number too large for a float"


def good_document() -> dict[str, Any]:
    return files.to_document(*synthetic_trace(2))


def write(path: Path, document: Any, layout: str) -> Path:
    """`lines`: the layout the studio writes (read record by record); `pretty`: any other (read whole)."""
    if layout == "lines":
        operations, messages = document["operations"], document["messages"]
        text = ('{"format":"mrtr-studio-trace","version":1,\n"operations":[\n'
                + ",\n".join(json.dumps(op) for op in operations) + ('\n' if operations else "") + '],\n"messages":[\n'
                + ",\n".join(json.dumps(m) for m in messages) + ('\n' if messages else "") + "]}\n")
    else:
        text = json.dumps(document, indent=2)
    path.write_text(text.replace(json.dumps(HUGE), "1e400"))
    return path


def damaged(change: Any) -> dict[str, Any]:
    document = good_document()
    change(document)
    return document


CASES = {
    "answer_seconds a list": (lambda d: d["operations"][1].update(answer_seconds=[]),
                              "operations[1].answer_seconds: Input should be an object (got [])"),
    "seq a string": (lambda d: d["messages"][3].update(seq="3"), "messages[3].seq: Input should be a valid integer"),
    "operation id a list": (lambda d: d["operations"][0].update(id=[1]),
                            "operations[0].id: Input should be a valid string"),
    "a field too many": (lambda d: d["messages"][5].update(colour="red"),
                         "messages[5].colour: Extra inputs are not permitted"),
    "a missing field": (lambda d: d["messages"][2].pop("message"), "messages[2].message: Field required"),
    "an unknown kind": (lambda d: d["messages"][0].update(kind="<img>"), "messages[0].kind: Input should be "),
    "a round key not a number": (lambda d: d["operations"][0].update(answer_seconds={"x": 1.0}),
                                 "operations[0].answer_seconds.x (a key): Input should be a valid integer"),
    "true for a number": (lambda d: d["messages"][1].update(round=True),
                          "messages[1].round: Input should be a valid integer"),
    "a message of an unknown operation": (lambda d: d["messages"][6].update(operation_id="nope"),
                                          "messages[6].operation_id: no operation 'nope' in this trace"),
    "a seq twice": (lambda d: d["messages"][7].update(seq=0), "messages[7].seq: seq 0 appears twice"),
    "an operation twice": (lambda d: d["operations"][1].update(id=d["operations"][0]["id"]),
                           "operations[1].id: operation 'op00000' appears twice"),
    "an infinite time": (lambda d: d["messages"][2].update(timestamp=HUGE),
                         "messages[2].timestamp: Input should be a finite number"),
    "a seq past 2**53": (lambda d: d["messages"][2].update(seq=2**60),
                         "messages[2].seq: Input should be less than or equal to 9007199254740992"),
    "a finding without a rule": (lambda d: d["messages"][0].update(findings=[{"severity": "error", "message": "m"}]),
                                 "messages[0].findings[0].rule: Field required"),
}


@pytest.mark.parametrize("layout", ["lines", "pretty"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_trace_is_reported_with_its_json_path(tmp_path: Path, case: str, layout: str) -> None:
    change, expected = CASES[case]
    path = write(tmp_path / "t.mrtr.json", damaged(change), layout)
    with pytest.raises(TraceFileError) as caught:
        files.open_trace(path)
    assert expected in str(caught.value)
    assert str(path) in str(caught.value)


HEAD = '{"format":"mrtr-studio-trace","version":1,'


@pytest.mark.parametrize("text", ["[" * 100_000, HEAD + '"operations":' + "[" * 100_000,
                                  HEAD + '\n"operations":[\n' + "[" * 100_000])
def test_deep_nesting_is_an_error_not_a_recursion(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.mrtr.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"recursion limit|not an MRTR Studio trace"):
        files.open_trace(path)


def test_a_deep_message_line_names_its_record(tmp_path: Path) -> None:
    document = good_document()
    document["messages"][4]["message"] = json.loads("[" * 150 + "]" * 150)  # fine: under the parser's bound
    lines = write(tmp_path / "ok.mrtr.json", document, "lines")
    assert len(files.open_trace(lines)[1]) == 8
    text = lines.read_text().splitlines()
    text[6 + 5] = text[6 + 5].replace('"message": ', '"message": ' + "[" * 300, 1)
    lines.write_text("\n".join(text) + "\n")
    with pytest.raises(TraceFileError, match=r"messages\[5\]: Invalid JSON: recursion limit exceeded at column"):
        files.open_trace(lines)


@pytest.mark.parametrize("text", ["", "5", "null", '"x"', "[]", '{"format": 5}', "{", "\x00\xff"])
def test_other_files_are_refused_clearly(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.mrtr.json"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(ValueError, match=f"{path}"):
        files.open_trace(path)


def test_a_truncated_file_in_either_layout(tmp_path: Path) -> None:
    for layout in ("lines", "pretty"):
        path = write(tmp_path / f"{layout}.mrtr.json", good_document(), layout)
        path.write_bytes(path.read_bytes()[:-40])
        with pytest.raises(TraceFileError, match="Invalid JSON"):
            files.open_trace(path)


def test_the_pretty_layout_of_older_files_still_opens(tmp_path: Path) -> None:
    document = good_document()
    path = write(tmp_path / "old.mrtr.json", document, "pretty")
    operations, messages = files.open_trace(path)
    assert files.to_document(operations, messages) == document


def test_exact_values_survive_save_and_open(tmp_path: Path) -> None:
    """Big integers (a JSON-RPC id past 64 bits), non-ASCII text and floats come back exactly."""
    operations, messages = synthetic_trace(1)
    messages[0].message = {"jsonrpc": "2.0", "id": 2**70 + 1, "method": "tools/call", "params": {"n": 0.1, "s": "é✓"}}
    path = files.save(tmp_path / "exact.mrtr.json", (operations, messages))
    _, reopened = files.open_trace(path)
    assert reopened[0].message == messages[0].message
    assert type(reopened[0].message["id"]) is int
    assert reopened[1].packed() and not reopened[0].packed()  # ordinary messages are kept packed
    again = files.save(tmp_path / "again.mrtr.json", (operations, reopened))
    assert again.read_bytes() == path.read_bytes()


def test_a_loaded_message_is_a_fresh_value_each_time(tmp_path: Path) -> None:
    path = files.save(tmp_path / "t.mrtr.json", synthetic_trace(1))
    entry: TraceMessage = files.open_trace(path)[1][0]
    entry.message["params"]["name"] = "changed"  # a view that edits what it got changes nothing recorded
    assert entry.message["params"]["name"] == "delete_file"


def test_an_empty_trace_round_trips(tmp_path: Path) -> None:
    path = files.save(tmp_path / "empty.mrtr.json", ([], []))
    assert json.loads(path.read_text()) == {"format": "mrtr-studio-trace", "version": 1, "operations": [],
                                            "messages": []}
    assert files.open_trace(path) == ([], [])


def test_a_valid_document_in_an_unusual_layout_still_opens(tmp_path: Path) -> None:
    """The studio's first line, then records not one per line: valid JSON is read as JSON."""
    document = good_document()
    path = write(tmp_path / "odd.mrtr.json", document, "lines")
    lines = path.read_text().splitlines()
    lines[3] = lines[3] + lines[4] + lines[5]  # the last operation, "],", '"messages":[' on one line
    del lines[4:6]
    path.write_text("\n".join(lines) + "\n")
    assert files.to_document(*files.open_trace(path)) == document


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_or_device_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.mrtr.json"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(ValueError, match="is not a regular file"):
        files.open_trace(fifo)
    with pytest.raises(ValueError, match="is not a regular file"):
        files.open_trace(tmp_path)
