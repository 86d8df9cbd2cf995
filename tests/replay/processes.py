"""`mrtr-studio replay-server` as a real process, and a recording of the official SDK client's flows made
through the studio's own recording proxy in front of `serve` (what a user would record)."""

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.interop.proxy_process import proxy
from tests.interop.test_sdk_client_http import client, run, text_of
from tests.transport.serve_process import serve

ROOT = Path(__file__).resolve().parents[2]
#: What the recorded SDK flows return, in order (the replays must return the same).
SDK_TEXTS = ["File deleted", "Deployed 1.0.0 to production",
             "Please review this code with a focus on style:\n\nprint(1)", "2 root(s): file:///work/a, file:///work/b"]


async def sdk_flows(url: str) -> list[str]:
    """The flows the recording holds, driven by the official Python SDK client (both eras)."""
    texts = []
    async with client(url) as modern:
        texts.append(text_of(await modern.call_tool("delete_file", {"path": "/tmp/x"})))
        texts.append(text_of(await modern.call_tool("deploy_wizard", {})))
        prompt = await modern.get_prompt("code_review", {"code": "print(1)"})
        texts.append(prompt.messages[0].content.text)
    async with client(url, mode="legacy") as legacy:
        texts.append(text_of(await legacy.call_tool("count_roots", {})))
    return texts


def record_sdk_flows(path: Path) -> list[str]:
    with serve() as served, proxy(served.url, path) as proxied:
        texts: list[str] = run(lambda: sdk_flows(proxied.url))
        proxied.stop()
    return texts


@dataclass
class Replaying:
    url: str
    proc: "subprocess.Popen[str]"
    stderr: str = ""

    def stop(self) -> int:
        """SIGTERM and wait: the exit status (0 when it stopped cleanly)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        _, self.stderr = self.proc.communicate(timeout=20)
        return self.proc.returncode


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mrtr_studio", *args]


def environment() -> dict[str, Any]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@contextmanager
def replay_server(trace: Path, *flags: str) -> Iterator[Replaying]:
    proc = subprocess.Popen(command("replay-server", str(trace), "--port", "0", *flags), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:\d+/mcp)\n", line)
        assert found, (line, proc.stderr.read() if proc.stderr else "")
        yield Replaying(found.group(1), proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
