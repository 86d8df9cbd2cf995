"""The skills extension (SEP-2640), served: entries computed from the bytes served, skills/get, directory
reads, pagination, the capability in both eras, and skills the SEP forbids refused when they are added.
The studio's own client (which verifies size, digest and frontmatter) loads what the demo serves."""

import asyncio
import base64
import hashlib
from typing import Any

import pytest

from mrtr_studio.client import responders as R
from mrtr_studio.client.session import ClientSession
from mrtr_studio.client.settings import ClientSettings
from mrtr_studio.client.skills import SkillsClient
from mrtr_studio.engine import McpServer
from mrtr_studio.engine.skills import SkillCatalogue
from mrtr_studio.scenarios import build_demo_server
from mrtr_studio.transport.memory import MemoryTransport
from tests.engine.wire import Wire, meta

DEBUG = "skill://mrtr-debugging/SKILL.md"
ROOT = "skill://mrtr-debugging"


def send(server: McpServer, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return asyncio.run(Wire(server).send(method, {"_meta": meta(), **(params or {})}))


def test_entries_describe_the_bytes_resources_read_returns() -> None:
    server = build_demo_server()
    listed = send(server, "skills/list")["result"]
    assert listed["resultType"] == "complete" and "ttlMs" in listed and listed["cacheScope"] == "public"
    by_uri = {s["uri"]: s for s in listed["skills"]}
    assert set(by_uri) == {DEBUG, "skill://studio/lessons/lesson-guide/SKILL.md"}
    debug = by_uri[DEBUG]
    assert debug["frontmatter"]["name"] == "mrtr-debugging" and debug["frontmatter"]["metadata"] == {"version": "1.0.0"}
    assert {r["uri"] for r in debug["resources"]} == {
        DEBUG, f"{ROOT}/references/ROUNDS.md", f"{ROOT}/scripts/check_state.py"}
    for item in debug["resources"]:
        content = send(server, "resources/read", {"uri": item["uri"]})["result"]["contents"][0]
        data = content["text"].encode() if "text" in content else base64.b64decode(content["blob"])
        assert len(data) == item["size"] and item["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    got = send(server, "skills/get", {"uri": DEBUG})["result"]
    assert got["skill"] == debug and "nextCursor" not in got


def test_unknown_skill_and_non_directory_are_invalid_params() -> None:
    server = build_demo_server()
    for method, uri in [("skills/get", "skill://nope/SKILL.md"), ("skills/get", f"{ROOT}/references/ROUNDS.md"),
                        ("resources/directory/read", DEBUG), ("resources/directory/read", "skill://"),
                        ("resources/directory/read", "skill://nope")]:
        error = send(server, method, {"uri": uri})["error"]
        assert error["code"] == -32602, (method, uri)
    assert send(server, "skills/get", {"uri": 7})["error"]["code"] == -32602
    assert send(server, "skills/list", {"cursor": "bogus"})["error"]["code"] == -32602


def test_directory_read_lists_direct_children_with_subdirectories() -> None:
    server = build_demo_server()
    children = send(server, "resources/directory/read", {"uri": ROOT})["result"]["resources"]
    assert {(c["uri"], c["mimeType"]) for c in children} == {
        (DEBUG, "text/markdown"), (f"{ROOT}/references", "inode/directory"), (f"{ROOT}/scripts", "inode/directory")}
    inner = send(server, "resources/directory/read", {"uri": f"{ROOT}/scripts"})["result"]["resources"]
    assert [c["uri"] for c in inner] == [f"{ROOT}/scripts/check_state.py"]


def test_listing_pages_never_split_an_entry_and_unlisted_skills_are_still_served() -> None:
    server = McpServer("skills")
    server.skills = SkillCatalogue(page_size=1)
    for name in ("one", "two", "three"):
        server.skill(f"team/{name}", f"---\nname: {name}\ndescription: the {name} skill\n---\n")
    server.skill("hidden", "---\nname: hidden\ndescription: not listed\n---\n", listed=False)
    seen, cursor = [], None
    while True:
        page = send(server, "skills/list", {"cursor": cursor} if cursor else {})["result"]
        assert len(page["skills"]) == 1
        seen.append(page["skills"][0]["uri"])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert seen == [f"skill://team/{n}/SKILL.md" for n in ("one", "two", "three")]
    assert send(server, "skills/get", {"uri": "skill://hidden/SKILL.md"})["result"]["skill"]["frontmatter"] == {
        "name": "hidden", "description": "not listed"}


def test_the_extension_is_declared_in_both_eras_with_resources() -> None:
    server = build_demo_server()
    discovered = send(server, "server/discover")["result"]["capabilities"]
    assert discovered["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert "io.modelcontextprotocol/tasks" in discovered["extensions"] and "resources" in discovered
    wire = Wire(server)
    legacy = asyncio.run(wire.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                  "clientInfo": {"name": "t", "version": "1"}},
                                   version="2025-11-25"))["result"]["capabilities"]
    assert legacy["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert "skills/list" not in str(send(McpServer("none"), "server/discover")["result"]["capabilities"])
    assert send(McpServer("none"), "skills/list")["error"]["code"] == -32601  # no skills: no methods


@pytest.mark.parametrize(("path", "body", "files", "why"), [
    ("other", "---\nname: pdf\ndescription: d\n---\n", None, "last segment"),
    ("Bad_Name", "---\nname: Bad_Name\ndescription: d\n---\n", None, "naming rules"),
    ("pdf", "---\nname: pdf\n---\n", None, "'description'"),
    ("pdf", "no frontmatter", None, "no YAML frontmatter"),
    ("pdf", "---\nname: pdf\ndescription: d\na: &x [1]\nb: *x\n---\n", None, "not YAML"),
    ("pdf", "---\nname: pdf\ndescription: d\ncreated: 2026-01-01\n---\n", None, "render as JSON"),
    ("pdf", "---\nname: pdf\ndescription: d\n---\n", {"../escape.md": "x"}, "relative path"),
    ("pdf", "---\nname: pdf\ndescription: d\n---\n", {"SKILL.md": "x"}, "skill_md"),
    ("a/../pdf", "---\nname: pdf\ndescription: d\n---\n", None, "not a skill path"),
])
def test_skills_the_sep_forbids_are_refused_when_added(path: str, body: str, files: dict[str, str] | None,
                                                       why: str) -> None:
    with pytest.raises(ValueError, match=why):
        McpServer("s").skill(path, body, files)


def test_the_studio_client_loads_and_verifies_what_the_demo_serves() -> None:
    async def go() -> tuple[list[str], str, bytes]:
        session = ClientSession(MemoryTransport(build_demo_server()), ClientSettings(), R.compose())
        client = SkillsClient(session)
        skills = await client.list()
        debug = next(s for s in skills if s.uri == DEBUG)
        loaded = await client.load(debug)
        rounds = await client.read(debug, f"{ROOT}/references/ROUNDS.md")
        await session.close()
        return [s.name for s in skills], loaded.frontmatter["license"], rounds

    names, license_, rounds = asyncio.run(go())
    assert names == ["mrtr-debugging", "lesson-guide"] and license_ == "MIT" and rounds.startswith(b"# Why")
