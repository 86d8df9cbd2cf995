"""`mrtr-studio list` against the studio's own engine, a real `serve` process and the official Python
SDK's server (mcp==2.3.0, over stdio): every listing, pagination left to the server, clear failures."""

import json
import socket
import sys
from pathlib import Path

import pytest

from mrtr_studio.cli.parser import main
from tests.cli.test_serve_command import serve

SDK_SERVER = Path(__file__).resolve().parents[1] / "interop" / "sdk_server.py"


def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["list", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_embedded_engine_lists_everything(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = listed(capsys, "memory:", "--json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["era"] == "modern"
    assert document["server"]["serverInfo"]["name"] == "mrtr-studio-demo"
    assert "2026-07-28" in document["server"]["supportedVersions"]
    tools = {tool["name"]: tool for tool in document["tools"]}
    assert {"delete_file", "deploy_wizard", "count_roots"} <= set(tools)
    assert tools["delete_file"]["inputSchema"]["properties"]["path"]["type"] == "string"
    assert "code_review" in {p["name"] for p in document["prompts"]}
    assert "config://secrets" in {r["uri"] for r in document["resources"]}
    skills = {skill["frontmatter"]["name"] for skill in document["skills"]}  # the demo serves two (SEP-2640)
    assert "mrtr-debugging" in skills and len(skills) == 2 and document["problems"] == {}
    code, out, _ = listed(capsys, "memory:")
    assert code == 0 and out.startswith("server: mrtr-studio-demo")
    assert "  delete_file — Delete a file" in out and "mrtr-debugging" in out and "skills: not offered" not in out


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_real_serve_process_in_the_legacy_era_too(capsys: pytest.CaptureFixture[str]) -> None:
    with serve() as (_, url):
        code, out, _ = listed(capsys, url, "--json")
        assert code == 0 and json.loads(out)["era"] == "modern"
        code, out, _ = listed(capsys, url, "--era", "legacy", "--json")
        legacy = json.loads(out)
        assert code == 0 and legacy["era"] == "legacy" and legacy["server"]["protocolVersion"] == "2025-11-25"
        assert "count_roots" in {tool["name"] for tool in legacy["tools"]}


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_the_python_sdk_server(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = listed(capsys, f"stdio:{sys.executable} {SDK_SERVER} stdio", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["server"]["serverInfo"]["name"] == "sdk-interop"
    assert {tool["name"] for tool in document["tools"]} == {"sdk_delete", "sdk_summarize_roots"}
    assert [p["name"] for p in document["prompts"]] == ["sdk_review"]
    assert [t["uriTemplate"] for t in document["resourceTemplates"]] == ["notes://{name}"]


def test_unreachable_and_bad_targets_fail_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once the socket is closed
    code, out, err = listed(capsys, f"http://127.0.0.1:{port}/mcp", "--era", "modern")
    assert code == 1 and out == "" and err.startswith("mrtr-studio list: ") and len(err.splitlines()) == 1
    code, _, err = listed(capsys, "ftp://example/mcp")
    assert code == 2 and "unsupported URL" in err
    code, _, err = listed(capsys, "memory:", "--timeout", "0")
    assert code == 2 and "--timeout must be positive" in err
