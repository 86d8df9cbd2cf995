"""`mrtr-studio skills URL [--open NAME] [--read FILE ...] [--json]`: a server's skills (SEP-2640), verified.

Without `--open` it lists the skills (`skills/list`, every page) and reads none of their files. With
`--open NAME` (a name or the SKILL.md URI) it reads that skill's SKILL.md and shows each check: the size,
the digest and the frontmatter field by field against the listing. Supporting files are read only when
named with `--read` (paths inside the skill, or URIs), and verified the same way.

Exit codes: 0 when listed (or the opened skill verified), 1 when verification failed or the server could
not be reached, 2 for bad command-line input. Everything the server wrote is escaped before printing.
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from ..client import responders as R
from ..client.session import ClientSession
from ..client.settings import ClientSettings
from ..client.skill_checks import SkillReport, inspect_skill
from ..client.skills import Skill, SkillRejected, parse_listing
from ..protocol.peer_text import printable
from ..transport.base import TransportError
from .call import UsageError, make_transport

MAX_PAGES = 100


async def list_all(session: ClientSession) -> list[Skill]:
    """Every page of `skills/list` (bounded: a server that keeps paging forever is cut off, saying so)."""
    skills: list[Skill] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        result = await session.request("skills/list", {"cursor": cursor} if cursor else {})
        skills += parse_listing(result)
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return skills
    raise SkillRejected(f"skills/list: still paging after {MAX_PAGES} pages")


async def find_skill(session: Any, skills: list[Skill], wanted: str) -> Skill:
    """The listed skill named `wanted`; a URI the listing leaves out is asked for with `skills/get` (a server
    MAY list only some of its skills, and a host MUST be able to load a skill from its URI alone)."""
    if "://" in wanted and not any(s.uri == wanted for s in skills):
        result = await session.request("skills/get", {"uri": wanted})
        return parse_listing({"skills": [result.get("skill")]})[0]
    return pick(skills, wanted)


def pick(skills: list[Skill], wanted: str) -> Skill:
    found = [s for s in skills if wanted in (s.uri, s.name)]
    if len(found) != 1:
        names = ", ".join(f"{s.name} ({s.uri})" for s in skills) or "none"
        many = "several skills are" if found else "no skill is"
        raise SkillRejected(f"{many} named {wanted!r} (give the URI); the server lists: {names}")
    return found[0]


async def _run(args: argparse.Namespace) -> tuple[list[Skill], SkillReport | None]:
    transport, label = make_transport(args.url, args.bearer)
    session = ClientSession(transport, ClientSettings(era="auto", bearer_token=args.bearer), R.compose(),
                            server_label=label)
    try:
        skills = await list_all(session)
        if not args.open:
            return skills, None
        skill = await find_skill(session, skills, args.open)
        return skills, await inspect_skill(session, skill, tuple(args.read))
    finally:
        await session.close()


def _print_listing(skills: list[Skill]) -> None:
    if not skills:
        print("no skills listed (a server MAY list none and still serve skills by URI)")
    for skill in skills:
        description = skill.frontmatter.get("description", "")
        print(f"{printable(skill.name, 200)}  {printable(skill.uri, 500)}  ({len(skill.files)} file(s))")
        if description:
            print(f"    {printable(str(description), 500)}")


def _print_report(report: SkillReport) -> None:
    for file in (report.manifest, *report.files):
        print(f"{'ok  ' if file.ok else 'FAIL'} {printable(file.uri, 500)}")
        if file.problem:
            print(f"     {printable(file.problem, 1000)}")
        for check in file.checks:
            mark = "ok  " if check.ok else "FAIL"
            line = f"     {mark} {check.name}: {check.found}"
            if not check.ok:
                line += f" (the listing says {check.expected})"
            print(printable(line, 1000))
    if report.manifest.ok and report.manifest.data is not None:
        print(f"verified: {printable(report.skill.name, 200)}; its other files stay unread unless --read names them")
    else:
        print("not verified: the skill must not be loaded")


def run_skills(args: argparse.Namespace) -> int:
    if args.read and not args.open:
        print("mrtr-studio skills: --read needs --open NAME", file=sys.stderr)
        return 2
    try:
        skills, report = asyncio.run(_run(args))
    except UsageError as exc:
        print(f"mrtr-studio skills: {exc}", file=sys.stderr)
        return 2
    except (SkillRejected, TransportError, ConnectionError, RuntimeError, OSError) as exc:
        hint = " (the server does not offer the skills extension, SEP-2640)" if "-32601" in str(exc) else ""
        print(f"mrtr-studio skills: {printable(str(exc), 2000)}{hint}", file=sys.stderr)
        return 1
    if args.json:
        document: dict[str, Any] = {"skills": [{"uri": s.uri, "name": s.name, "frontmatter": s.frontmatter,
                                                "files": len(s.files)} for s in skills]}
        if report is not None:
            document["opened"] = report.as_json()
        print(json.dumps(document, indent=2, ensure_ascii=True))
    elif report is None:
        _print_listing(skills)
    else:
        _print_report(report)
    return 0 if report is None or report.ok else 1
