"""`mrtr-studio wrap` relaying one call that sends N notifications (10k, 30k, 100k lines) before its
answer, with recording on: how long the client waits for the answer (the relay) and how long until
the wrapper exited with the trace written (the recording), direct for comparison. The relay must
stay linear and first; the recording runs in its own process and may fall behind (it says so).
Printed, never asserted. Usage: python tools/bench_wrap_notifications.py [N ...]"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
n = int(sys.argv[1])
line = sys.stdin.readline()
out = sys.stdout
for i in range(n):
    out.write('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}\\n' % i)
out.write('{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}\\n')
out.flush()
sys.stdin.read()
"""
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'


def run(lines: int, wrapped: bool, folder: Path) -> tuple[float, float, str]:
    server = [sys.executable, "-c", SERVER, str(lines)]
    trace = folder / f"bench-{lines}.mrtr.json"
    command = [sys.executable, "-m", "mrtr_studio", "wrap", "--no-feed", "--trace", str(trace), "--", *server] \
        if wrapped else server
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_HOME": str(folder / "home")}
    began = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(REQUEST)
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith(b'{"jsonrpc":"2.0","id":1'):
            break
    relayed = time.perf_counter() - began
    proc.stdin.close()
    proc.stdin = None
    _, err = proc.communicate(timeout=3600)
    total = time.perf_counter() - began
    note = ""
    if wrapped:
        document = json.loads(trace.read_text())
        recorded = len(document["messages"])
        note = f"{recorded} message(s) recorded" + (f"; stderr: {err.decode().strip()}" if err.strip() else "")
    return relayed, total, note


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 30_000, 100_000]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'lines':>8} {'direct s':>9} {'wrap: answer s':>15} {'wrap: trace written s':>22}  recorded")
        for lines in sizes:
            direct, _, _ = run(lines, False, folder)
            relayed, total, note = run(lines, True, folder)
            print(f"{lines:>8} {direct:>9.2f} {relayed:>15.2f} {total:>22.2f}  {note}", flush=True)


if __name__ == "__main__":
    main()
