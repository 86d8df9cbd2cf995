"""`mrtr-studio skills`: lists a real server's skills reading none of their files, opens one with each check
shown, reads a supporting file only when named, refuses an unlisted one, and says what is wrong with flags."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.transport.serve_process import serve

ROOT = Path(__file__).resolve().parents[2]


def skills(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mrtr_studio", "skills", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_lists_and_opens_a_served_skill_check_by_check() -> None:
    with serve() as served:
        listed = skills(served.url, "--json")
        opened = skills(served.url, "--open", "mrtr-debugging", "--read", "scripts/check_state.py")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert [s["name"] for s in document["skills"]] == ["mrtr-debugging", "lesson-guide"]
    assert "opened" not in document
    assert opened.returncode == 0, opened.stderr
    lines = opened.stdout.splitlines()
    for check in ("size: 550 bytes", "digest: sha256:", "frontmatter.name: 'mrtr-debugging'",
                  "frontmatter.license: 'MIT'", "frontmatter.description:"):
        assert any(check in line and "ok" in line for line in lines), (check, opened.stdout)
    assert "skill://mrtr-debugging/scripts/check_state.py" in opened.stdout
    assert "references/ROUNDS.md" not in opened.stdout  # not named, so not read


def test_an_unlisted_file_is_refused_unread_and_fails_the_command() -> None:
    run = skills("memory:", "--open", "mrtr-debugging", "--read", "../../etc/passwd", "--json")
    assert run.returncode == 1
    report = json.loads(run.stdout)["opened"]
    assert report["skillMd"]["ok"] and not report["ok"]
    assert "not one of the files" in report["files"][0]["problem"]


def test_bad_input_is_one_line_and_exit_2() -> None:
    for args, expected in ((["memory:", "--read", "x"], "--read needs --open"),
                           (["ftp://nowhere"], "unsupported URL")):
        run = skills(*args)
        assert run.returncode == 2 and expected in run.stderr and "Traceback" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
    missing = skills("memory:", "--open", "nope")
    assert missing.returncode == 1 and "no skill is named 'nope'" in missing.stderr


def test_a_server_without_skills_says_so() -> None:
    """The official Python SDK's server (mcp==2.3.0, over stdio) has no skills extension."""
    server = f"stdio:{sys.executable} {ROOT / 'tests' / 'interop' / 'sdk_server.py'} stdio"
    run = skills(server)
    assert run.returncode == 1 and "does not offer the skills extension" in run.stderr, run.stderr


def test_a_skill_left_out_of_the_listing_opens_by_its_uri() -> None:
    import asyncio

    from mrtr_studio.cli.skills import find_skill, list_all
    from mrtr_studio.client import responders as R
    from mrtr_studio.client.session import ClientSession
    from mrtr_studio.client.settings import ClientSettings
    from mrtr_studio.client.skill_checks import inspect_skill
    from mrtr_studio.engine import McpServer
    from mrtr_studio.transport.memory import MemoryTransport

    server = McpServer("partial")
    server.skill("shown", "---\nname: shown\ndescription: listed\n---\n")
    server.skill("team/hidden", "---\nname: hidden\ndescription: not listed\n---\nBody\n", listed=False)

    async def go() -> tuple[list[str], bool]:
        session = ClientSession(MemoryTransport(server), ClientSettings(), R.compose())
        try:
            listed = await list_all(session)
            skill = await find_skill(session, listed, "skill://team/hidden/SKILL.md")
            return [s.name for s in listed], (await inspect_skill(session, skill)).ok
        finally:
            await session.close()

    names, verified = asyncio.run(go())
    assert names == ["shown"] and verified
