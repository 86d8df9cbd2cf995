"""listen_or_say: serve and replay-server fail the same way, one line, on a port already taken."""

import socket

import pytest

from mrtr_studio.cli.serve import listen_or_say


def test_a_taken_port_is_one_line_naming_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert listen_or_say("replay-server", "127.0.0.1", port) is None
    err = capsys.readouterr().err
    assert err.startswith(f"mrtr-studio replay-server: cannot listen on 127.0.0.1:{port}: ")
    assert err.count("\n") == 1


def test_a_free_port_is_a_listening_socket() -> None:
    sock = listen_or_say("serve", "127.0.0.1", 0)
    assert sock is not None
    with sock, socket.create_connection(sock.getsockname()[:2], timeout=5):
        pass
