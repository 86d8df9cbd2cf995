"""A skill's verification shown check by check (size, digest, each frontmatter field), for people to read.

`SkillsClient.load` stops at the first failure, which is what a host must do. A person debugging a
server wants the whole picture instead: every check run on the same bytes, each with what was expected
and what was found, so a digest that lies and a field that differs show up together. Nothing here uses
content that failed: the text is kept only when every check passed. Supporting files are read only
when named (the SEP: never ahead of need).
"""

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..protocol.skill_format import FrontmatterError, parse_frontmatter
from .skills import Requester, Skill, SkillRejected, content_bytes


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    expected: str
    found: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "expected": self.expected, "found": self.found}


@dataclass(frozen=True)
class FileReport:
    uri: str
    checks: tuple[Check, ...]
    #: The verified content; None when a check failed (unverified bytes are never handed on).
    data: bytes | None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem and all(c.ok for c in self.checks)

    def as_json(self) -> dict[str, Any]:
        return {"uri": self.uri, "ok": self.ok, "problem": self.problem,
                "checks": [c.as_json() for c in self.checks]}


@dataclass(frozen=True)
class SkillReport:
    skill: Skill
    manifest: FileReport
    files: tuple[FileReport, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.manifest.ok and all(f.ok for f in self.files)

    def as_json(self) -> dict[str, Any]:
        return {"uri": self.skill.uri, "name": self.skill.name, "ok": self.ok,
                "skillMd": self.manifest.as_json(), "files": [f.as_json() for f in self.files]}


def byte_checks(listed_size: int, listed_digest: str, data: bytes) -> list[Check]:
    """Size and digest, both run whatever the other says."""
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    return [Check("size", len(data) == listed_size, f"{listed_size} bytes", f"{len(data)} bytes"),
            Check("digest", actual == listed_digest.lower(), listed_digest, actual)]


def frontmatter_checks(listed: dict[str, Any], text: str) -> list[Check]:
    """One check per field in either the listing or the file; a field in one and not the other fails."""
    try:
        found = parse_frontmatter(text)
    except FrontmatterError as exc:
        return [Check("frontmatter", False, "YAML frontmatter (no aliases)", str(exc))]
    checks = [Check("frontmatter", True, "YAML frontmatter (no aliases)", f"{len(found)} field(s)")]
    missing = object()
    for key in sorted(set(listed) | set(found), key=str):
        want, got = listed.get(key, missing), found.get(key, missing)
        checks.append(Check(f"frontmatter.{key}", want == got and want is not missing,
                            "(absent)" if want is missing else repr(want), "(absent)" if got is missing else repr(got)))
    return checks


async def _read(session: Requester, uri: str) -> tuple[bytes | None, str]:
    try:
        return content_bytes(await session.request("resources/read", {"uri": uri}), uri), ""
    except SkillRejected as exc:
        return None, str(exc)


async def inspect_skill(session: Requester, skill: Skill, read: tuple[str, ...] = ()) -> SkillReport:
    """Read SKILL.md and run every check on it; then each file of `read` (URIs or paths in the skill)."""
    data, problem = await _read(session, skill.uri)
    entry = skill.file(skill.uri) if any(f.uri == skill.uri for f in skill.files) else None
    checks: list[Check] = []
    if entry is None:
        problem = problem or "the listing has no resources entry for SKILL.md itself"
    elif data is not None:
        checks = byte_checks(entry.size, entry.digest, data)
        try:
            checks += frontmatter_checks(skill.frontmatter, data.decode("utf-8"))
        except UnicodeDecodeError:
            checks.append(Check("frontmatter", False, "UTF-8 text", "not UTF-8"))
    ok = not problem and all(c.ok for c in checks)
    manifest = FileReport(skill.uri, tuple(checks), data if ok else None, problem)
    reports = [await inspect_file(session, skill, wanted) for wanted in read]
    return SkillReport(skill, manifest, tuple(reports))


async def inspect_file(session: Requester, skill: Skill, wanted: str) -> FileReport:
    """One supporting file (a URI, or a path in the skill) read and checked, and nothing else read."""
    root = skill.uri.rsplit("/", 1)[0]
    uri = wanted if "://" in wanted else f"{root}/{wanted.lstrip('/')}"
    listed = next((f for f in skill.files if f.uri == uri), None)
    if listed is None:  # an unlisted file is a verification failure; it is not even read
        return FileReport(uri, (), None, "not one of the files the skill's entry lists; not read")
    body, why = await _read(session, uri)
    file_checks = tuple(byte_checks(listed.size, listed.digest, body)) if body is not None else ()
    good = not why and all(c.ok for c in file_checks)
    return FileReport(uri, file_checks, body if good else None, why)
