"""The log finds a message's row by its seq without a dict of every message."""

from mrtr_studio.trace.model import TraceMessage
from mrtr_studio.ui.log.message_model import SeqRows


def entry(seq: int) -> TraceMessage:
    return TraceMessage(seq, "op", 1, "client->server", "request", {"id": seq}, 0.0)


def test_ascending_seqs_are_found_by_bisection_and_unknown_ones_are_not() -> None:
    rows = SeqRows([entry(seq) for seq in (3, 5, 9)])
    rows.append(12)
    assert [rows.get(seq) for seq in (3, 5, 9, 12)] == [0, 1, 2, 3]
    assert [rows.get(seq) for seq in (0, 4, 10, 13)] == [None] * 4
    assert rows._dict is None  # the array, not a dict


def test_a_seq_out_of_order_still_finds_every_row() -> None:
    rows = SeqRows([entry(seq) for seq in (3, 5)])
    rows.append(4)  # out of order: a dict from here on
    rows.append(5)  # the same seq twice: the later row, as the dict before
    rows.append(20)
    assert [rows.get(seq) for seq in (3, 4, 5, 20, 6)] == [0, 2, 3, 4, None]
    unsorted = SeqRows([entry(seq) for seq in (7, 2, 9)])
    assert [unsorted.get(seq) for seq in (7, 2, 9, 3)] == [0, 1, 2, None]
    assert SeqRows().get(1) is None
