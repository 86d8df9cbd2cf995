"""Three real engine processes: a shared secret lets a flow hop nodes; random secrets break round two."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mrtr_studio.client.auto_answers import auto_respond
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.teaching.cluster import RoundRobinTransport, start_cluster

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def run_delete(urls: list[str]):  # type: ignore[no-untyped-def]
    session = ClientSession(RoundRobinTransport(urls), ClientSettings(era="modern"), auto_respond,
                            server_label="cluster")
    try:
        result = await session.call_tool("delete_file", {"path": "/tmp/report.txt"})
    finally:
        await session.close()
    nodes = [(m.round, m.direction, m.transport.get("node")) for m in session.store.messages_of(result.operation.id)]
    return result, nodes


async def test_shared_secret_flow_completes_across_nodes() -> None:
    async with await start_cluster(3, shared_secret=True) as cluster:
        assert len(set(cluster.urls)) == 3
        assert all(url.startswith("http://127.0.0.1:") for url in cluster.urls)
        result, nodes = await run_delete(cluster.urls)
    assert result.drive.outcome == "complete"
    assert result.drive.result["content"] == [{"type": "text", "text": "File deleted"}]
    assert nodes == [(1, "client->server", 0), (1, "server->client", 0),
                     (2, "client->server", 1), (2, "server->client", 1)]


async def test_random_secrets_reject_the_second_round_on_another_node() -> None:
    async with await start_cluster(3, shared_secret=False) as cluster:
        result, nodes = await run_delete(cluster.urls)
    assert result.drive.outcome == "error"
    assert result.drive.error["code"] == -32602
    assert result.drive.error["data"]["reason"] == "signature"
    assert [n for _, _, n in nodes] == [0, 0, 1, 1]


async def test_processes_stop_with_the_cluster() -> None:
    cluster = await start_cluster(2)
    processes = [node.process for node in cluster.nodes]
    await cluster.stop()
    assert all(p.returncode is not None for p in processes)


async def test_a_secret_starting_with_a_dash_still_reaches_every_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """token_urlsafe can start with "-"; it must not be read as a command-line option."""
    import mrtr_studio.teaching.cluster as cluster_module

    monkeypatch.setattr(cluster_module.secrets, "token_urlsafe", lambda n: "-starts-with-a-dash")
    async with await start_cluster(2, shared_secret=True) as cluster:
        assert cluster.secret == "-starts-with-a-dash"
        result, _ = await run_delete(cluster.urls)
    assert result.drive.outcome == "complete"


ORPHANING_PARENT = """
import asyncio, sys
sys.path.insert(0, {root!r})
from mrtr_studio.teaching.cluster import start_cluster

async def main():
    cluster = await start_cluster(2)
    print(" ".join(str(node.process.pid) for node in cluster.nodes), flush=True)
    await asyncio.sleep(120)  # killed long before this ends

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that never comes counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_nodes_stop_when_their_parent_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(ORPHANING_PARENT.format(root=str(Path(__file__).resolve().parents[2])))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        line = parent.stdout.readline() if parent.stdout else ""
        pids = [int(pid) for pid in line.split()]
        assert len(pids) == 2 and all(_alive(pid) for pid in pids)
        parent.send_signal(signal.SIGKILL)  # no cleanup code runs in the parent
        parent.wait(10)
        for _ in range(300):  # a bounded wait for the nodes to notice: up to 30 s on a busy machine
            if not any(_alive(pid) for pid in pids):
                break
            time.sleep(0.1)
        assert [pid for pid in pids if _alive(pid)] == []
    finally:
        parent.kill()
        parent.wait(10)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
