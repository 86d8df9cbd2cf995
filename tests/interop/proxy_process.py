"""`mrtr-studio proxy` as a real process in front of an upstream, with its trace read back after a clean stop."""

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mrtr_studio.trace import TraceStore, files

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Proxied:
    url: str
    trace_path: Path
    proc: "subprocess.Popen[str]"
    stderr: str = ""
    store: TraceStore = field(default_factory=TraceStore)

    def stop(self) -> None:
        """SIGTERM, wait, and load the trace it wrote."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        _, self.stderr = self.proc.communicate(timeout=20)
        self.store.load(*files.open_trace(self.trace_path))


@contextmanager
def proxy(upstream: str | None, trace_path: Path, *flags: str) -> Iterator[Proxied]:
    """The reverse proxy in front of `upstream`, or (None) the forward proxy (`--forward`)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_EXIT_WITH_STDIN": "1"}
    mode = ["--upstream", upstream] if upstream is not None else ["--forward"]
    command = [sys.executable, "-m", "mrtr_studio", "proxy", "--listen", "127.0.0.1:0", *mode,
               "--trace", str(trace_path), *flags]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:\d+/\S*)\n", line)
        assert found, (line, proc.stderr.read() if proc.stderr else "")
        yield Proxied(found.group(1), trace_path, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
