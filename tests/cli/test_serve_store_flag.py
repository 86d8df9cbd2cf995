"""`serve --store`: a bad value is refused before listening; a Redis that is not up yet is warned about,
the node serves what needs no store, and the single-use completion gets the documented error."""

import json
import subprocess
import sys

import pytest

from mrtr_studio.engine.shared_store import MemoryReplayStore, StoreUnavailable
from mrtr_studio.teaching.cluster_services import free_port
from tests.cli.test_serve_command import serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.mark.parametrize(("value", "says"), [
    ("mysql://127.0.0.1/0", "--store expects memory or redis://HOST:PORT/DB"),
    ("redis://127.0.0.1:99999/0", "invalid port"),
    ("redis://127.0.0.1:6379/zero", "the database must be a number"),
    ("redis:///0", "names no host"),
])
def test_a_bad_store_is_refused_with_a_clear_message(value: str, says: str) -> None:
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "serve", "--port", "0", "--store", value],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert says in done.stderr and "Traceback" not in done.stderr
    assert "listening" not in done.stdout


def test_redis_not_up_yet_warns_serves_the_rest_and_refuses_the_completion(tmp_path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"confirm": {"action": "accept", "content": {"confirm": True}}}))
    nobody = f"redis://127.0.0.1:{free_port()}/0"
    with serve("--store", nobody, "--explain-rejections") as (proc, url):
        base = [sys.executable, "-m", "mrtr_studio", "call", url, "--caps", "elicitation,roots",
                "--answers", str(answers), "--json"]
        listed = subprocess.run([*base, "--tool", "count_roots"], capture_output=True, text=True, timeout=30)
        deleted = subprocess.run([*base, "--tool", "delete_file", "--args", '{"path": "/x"}'],
                                 capture_output=True, text=True, timeout=30)
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    assert "does not answer yet" in err
    assert json.loads(listed.stdout)["result"]["resultType"] == "complete"
    error = json.loads(deleted.stdout)["error"]
    assert error == {"code": -32603, "message": "Shared store unavailable", "data": {
        "reason": "store_unavailable",
        "detail": "the shared store (Redis) did not answer; a single-use state cannot be accepted until it does"}}


@pytest.mark.anyio
async def test_the_memory_store_is_bounded_and_refuses_rather_than_forgets() -> None:
    store = MemoryReplayStore(clock=lambda: 1000.0, max_nonces=2)
    for nonce in ("a", "b"):
        assert await store.claim(nonce, 2000.0)
        await store.settle(nonce, 2000.0, consumed=True)
    with pytest.raises(StoreUnavailable, match="holds 2 unexpired states"):
        await store.claim("c", 2000.0)
    assert await store.claim("a", 2000.0) is False  # full, yet a replay is still named a replay
    with pytest.raises(StoreUnavailable, match="1 to 128 characters"):
        await MemoryReplayStore(clock=lambda: 1000.0).claim("x" * 129, 2000.0)
    later = MemoryReplayStore(clock=lambda: 1000.0, max_nonces=2)
    for nonce in ("a", "b"):
        assert await later.claim(nonce, 1500.0)
        await later.settle(nonce, 1500.0, consumed=True)
    later.guard.clock = lambda: 1600.0  # both expired: room again, and the replay of an expired state is
    assert await later.claim("c", 2200.0)  # refused by the codec's expiry check before any claim
