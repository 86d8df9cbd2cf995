"""Nonces and session ids come from OS randomness fetched in batches: never the same bytes twice, in
this process or in a child forked from it, and requests bigger than a batch still get fresh bytes."""

import os
import re

import pytest

from mrtr_studio.engine import entropy
from mrtr_studio.engine.entropy import random_bytes, random_text
from mrtr_studio.engine.server_session import Session


def test_bytes_are_never_handed_out_twice_across_batches() -> None:
    seen = {random_bytes(9) for _ in range(2000)}  # several 4 KiB batches
    assert len(seen) == 2000 and all(len(chunk) == 9 for chunk in seen)
    assert len(random_bytes(10_000)) == 10_000
    assert len({Session().id for _ in range(500)}) == 500


def test_random_text_is_base64url_of_fresh_bytes_across_encoded_batches() -> None:
    nonces = [random_text(9) for _ in range(1000)]  # three encoded batches of 341 nonces
    assert len(set(nonces)) == 1000
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{12}", nonce) for nonce in nonces)
    # lengths that do not split the encoded batch (or exceed it) are encoded from fresh bytes
    assert re.fullmatch(r"[A-Za-z0-9_-]{14}", random_text(10))
    assert len(random_text(6000)) == 8000
    assert len(random_text(3072)) == 4096


def test_random_text_refills_when_a_batch_cannot_hold_the_next_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    real = os.urandom

    def counting(count: int) -> bytes:
        drawn.append(count)
        return real(count)

    monkeypatch.setattr(entropy.os, "urandom", counting)
    monkeypatch.setattr(entropy, "_text", "")
    first = [random_text(9)]
    assert drawn == [entropy._TEXT_BATCH]
    first += [random_text(9) for _ in range(len(entropy._text) // 12 - 1)]  # the rest of that batch
    assert drawn == [entropy._TEXT_BATCH] and len(set(first)) == len(first) == 341
    second = random_text(9)
    assert drawn == [entropy._TEXT_BATCH] * 2 and second not in first


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_does_not_repeat_the_parents_next_bytes() -> None:
    random_bytes(1)  # a batch is loaded and partly used
    random_text(9)  # and an encoded one
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, random_bytes(16) + random_text(9).encode("ascii"))
        os._exit(0)
    os.close(write)
    theirs = os.read(read, 28)
    os.close(read)
    os.waitpid(child, 0)
    assert len(theirs) == 28 and theirs[:16] != random_bytes(16) and theirs[16:].decode() != random_text(9)
