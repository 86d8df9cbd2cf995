"""`mrtr-studio state decode` on every format: --json's exact shape, --format, keys, one-line flag errors."""

import json
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from mrtr_studio.cli.parser import main
from tests.states.test_python_sdk import KEY as SDK_KEY
from tests.states.test_python_sdk import sdk_token

TS = json.loads((Path(__file__).parents[1] / "states" / "vectors" / "ts_sdk.json").read_text("utf-8"))


def decode(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["state", "decode", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("token", "secret", "fmt"), [
    (TS["plain"], TS["key"], "ts-sdk"),
    (sdk_token(), "hex:" + SDK_KEY.hex(), "python-sdk"),
    (jwt.encode({"exp": 4102444800, "s": "x"}, "k" * 32, algorithm="HS256"), "k" * 32, "jwt"),
    ("an-opaque-handle-1234", "unused", "opaque"),
])
def test_json_has_exactly_the_designed_shape(capsys: pytest.CaptureFixture[str], token: str, secret: str,
                                             fmt: str) -> None:
    code, out, _ = decode(capsys, token, "--secret", secret, "--json")
    shown = json.loads(out)
    assert list(shown) == ["format", "payload", "verdict", "checks"]
    assert shown["format"] == fmt
    assert all(set(c) == {"name", "status", "why"} and c["status"] in ("pass", "fail", "cannot-check")
               for c in shown["checks"])
    assert code == (1 if shown["verdict"] == "fail" else 0)


def test_python_sdk_without_and_with_a_wrong_key(capsys: pytest.CaptureFixture[str]) -> None:
    token = sdk_token()
    code, out, _ = decode(capsys, token)
    assert code == 0
    assert "header:\n  key id" in out and "cannot check without the key" in out and "format: python-sdk" in out
    code, out, _ = decode(capsys, token, "--secret", "x" * 40, "--json")
    assert code == 1 and json.loads(out)["checks"][1]["why"].startswith("cannot decrypt: wrong key or tampered")


def test_request_flags_bind_the_checks(capsys: pytest.CaptureFixture[str]) -> None:
    token = sdk_token()
    code, out, _ = decode(capsys, token, "--secret", "base64:" + __import__("base64").b64encode(SDK_KEY).decode(),
                          "--method", "tools/call", "--name", "delete_file", "--args", '{"path": "/a", "force": true}',
                          "--principal", "alice", "--audience", "files", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "pass"


def test_jwt_with_a_pem_key_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    pem = tmp_path / "public.pem"
    pem.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo))
    token = jwt.encode({"exp": 4102444800, "s": "x"}, private, algorithm="ES256")
    code, out, _ = decode(capsys, token, "--key-file", str(pem), "--json")
    assert code == 0 and json.loads(out)["checks"][1] == {
        "name": "signature", "status": "pass", "why": "ES256 signature verifies with a given key"}


def test_a_forced_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = decode(capsys, TS["plain"], "--format", "python-sdk", "--json")
    assert code == 1 and json.loads(out)["format"] == "python-sdk"


@pytest.mark.parametrize(("argv", "flag"), [
    (["--secret", "hex:zz"], "argument --secret"), (["--args", "{nope"], "argument --args"),
    (["--args", "[1]"], "argument --args"), (["--key-file", "/nonexistent/key.pem"], "argument --key-file")])
def test_bad_flags_get_one_line_naming_the_flag(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                flag: str) -> None:
    code, out, err = decode(capsys, TS["plain"], *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and flag in err and "Traceback" not in err


def test_control_characters_from_the_token_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    token = jwt.encode({"exp": 4102444800, "s": "\x1b]0;owned\x07 \x9b2J \u202eevil", "\x9bkey": 1}, "k" * 32,
                       algorithm="HS256", headers={"\x1b[31m": "x"})
    _, out, _ = decode(capsys, token)
    assert not any(c in out for c in "\x1b\x07\x9b\u202e")
    assert "\\x9b2J" in out and "\\u202eevil" in out and "\\x9bkey" in out


def test_opaque_rounds_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = decode(capsys, "handle-0002", "--round", "handle-0001", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["format"] == "opaque" and shown["payload"]["length"] == 11
    assert {"name": "changes between rounds", "status": "pass", "why": "a new state in each of 2 rounds"} \
        in shown["checks"]
