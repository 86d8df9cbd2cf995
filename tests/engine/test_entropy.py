"""Nonces and session ids come from OS randomness fetched in batches: never the same bytes twice, in
this process or in a child forked from it, and requests bigger than a batch still get fresh bytes."""

import os

import pytest

from mrtr_studio.engine.entropy import random_bytes
from mrtr_studio.engine.server_session import Session


def test_bytes_are_never_handed_out_twice_across_batches() -> None:
    seen = {random_bytes(9) for _ in range(2000)}  # several 4 KiB batches
    assert len(seen) == 2000 and all(len(chunk) == 9 for chunk in seen)
    assert len(random_bytes(10_000)) == 10_000
    assert len({Session().id for _ in range(500)}) == 500


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_does_not_repeat_the_parents_next_bytes() -> None:
    random_bytes(1)  # a batch is loaded and partly used
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, random_bytes(16))
        os._exit(0)
    os.close(write)
    theirs = os.read(read, 16)
    os.close(read)
    os.waitpid(child, 0)
    assert len(theirs) == 16 and theirs != random_bytes(16)
