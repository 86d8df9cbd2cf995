"""`wrap` relays bytes unchanged (JSON or not, CRLF, long lines, no final newline), and the feed's
token file is refused when other users could read it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mrtr_studio.proxy.local_feed import read_token, write_token
from mrtr_studio.proxy.stdio_wrap import Exchanges
from mrtr_studio.trace import files

ROOT = Path(__file__).resolve().parents[2]
ECHO = "import sys\nwhile True:\n    b = sys.stdin.buffer.read1(7)\n    if not b: break\n" \
       "    sys.stdout.buffer.write(b); sys.stdout.buffer.flush()\n"


@pytest.mark.timeout(60)
def test_wrap_relays_byte_for_byte_and_records_the_json_lines(tmp_path: Path) -> None:
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}'
    reply = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
    data = request + b"\r\n" + b"not json \xff\xfe\n" + b"x" * 300_000 + b"\n" + reply + b"\n\n" + b"tail"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MRTR_STUDIO_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "mrtr_studio", "wrap", "--trace", str(tmp_path / "t.mrtr.json"),
                           "--", sys.executable, "-c", ECHO], input=data, capture_output=True, timeout=50, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == data
    operations, messages = files.open_trace(tmp_path / "t.mrtr.json")
    assert [(op.method, op.target) for op in operations] == [("tools/call", "t"), ("session", "")]
    call = [m for m in messages if m.operation_id == operations[0].id]
    # an echo: the request comes back as a request "from the server", the client's line with a result
    # answers it, and its echo is the response to the call
    assert [(m.direction, m.kind) for m in call] == [
        ("client->server", "request"), ("server->client", "server_request"),
        ("client->server", "client_response"), ("server->client", "complete")]
    # the two lines that are not JSON are no messages, but what crossed is noted in the session, each way
    notes = sorted((m.direction, m.kind, m.transport["error"][:9], len(m.message))
                   for m in messages if m.operation_id == operations[1].id)
    assert notes == [("client->server", "invalid", "not JSON:", 11), ("client->server", "invalid", "not JSON:", 65536),
                     ("server->client", "invalid", "not JSON:", 11), ("server->client", "invalid", "not JSON:", 65536)]


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    token = write_token(tmp_path)
    assert read_token(tmp_path) == token
    (tmp_path / "feed.token").chmod(0o644)
    with pytest.raises(PermissionError):
        read_token(tmp_path)


def test_exchanges_pair_ids_and_put_server_requests_in_the_open_call() -> None:
    ex = Exchanges()
    assert ex.of("client->server", {"id": 5, "method": "tools/call"}) == ("c", 5)
    assert ex.of("server->client", {"id": "s1", "method": "roots/list"}) == ("c", 5)
    assert ex.of("client->server", {"id": "s1", "result": {}}) == ("c", 5)
    assert ex.of("server->client", {"id": 5, "result": {}}) == ("c", 5)
    assert ex.of("server->client", {"method": "notifications/message"}) is None
