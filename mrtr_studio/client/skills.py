"""The skills extension (SEP-2640) from the client's side: list lazily, verify every file on read.

`skills/list` gives each skill's entry: its SKILL.md URI, the frontmatter the server vouches for, and
every file it is made of with a digest (`sha256:<hex>`) and a size in bytes. Nothing is read then (a
host retrieves a skill's files only when it needs them). `load(skill)` reads SKILL.md, checks its byte
length and digest against the entry, parses its YAML frontmatter and compares it field by field with
the entry's; any difference rejects the skill (SkillRejected) before anything else is read. A supporting
file is read only when asked for, and verified the same way. Every read is bounded.
"""

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import Any, Protocol

from ..protocol.skill_format import FrontmatterError, parse_frontmatter

#: Bounds on what a server may list and send (a skill is a few small text files).
MAX_SKILLS = 1000
MAX_FILES = 256
MAX_FILE_BYTES = 1024 * 1024


class Requester(Protocol):
    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...


class SkillRejected(Exception):
    """A skill file failed verification (or the listing is malformed); its content is not used."""


@dataclass(frozen=True)
class SkillFile:
    uri: str
    digest: str
    size: int


@dataclass(frozen=True)
class Skill:
    uri: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...]

    @property
    def name(self) -> str:
        return str(self.frontmatter.get("name") or self.uri)

    def file(self, uri: str) -> SkillFile:
        for entry in self.files:
            if entry.uri == uri:
                return entry
        raise SkillRejected(f"{uri} is not one of the files skill {self.name!r} lists")


@dataclass(frozen=True)
class LoadedSkill:
    skill: Skill
    text: str
    frontmatter: dict[str, Any]


def parse_listing(result: dict[str, Any]) -> list[Skill]:
    """The skills of a `skills/list` result; SkillRejected naming the first malformed entry."""
    entries = result.get("skills")
    if not isinstance(entries, list) or len(entries) > MAX_SKILLS:
        raise SkillRejected(f"skills/list: skills is not a list of at most {MAX_SKILLS} entries")
    skills = []
    for index, entry in enumerate(entries):
        where = f"skills/list: skills[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("uri"), str):
            raise SkillRejected(f"{where} has no uri")
        frontmatter = entry.get("frontmatter")
        files = entry.get("resources")
        if not isinstance(frontmatter, dict) or not isinstance(files, list) or len(files) > MAX_FILES:
            raise SkillRejected(f"{where}: frontmatter must be an object and resources a list")
        parsed = []
        for position, item in enumerate(files):
            ok = isinstance(item, dict) and isinstance(item.get("uri"), str) and isinstance(item.get("digest"), str) \
                and isinstance(item.get("size"), int) and not isinstance(item.get("size"), bool) and item["size"] >= 0
            if not ok:
                raise SkillRejected(f"{where}.resources[{position}] needs a uri, a digest and a size")
            parsed.append(SkillFile(item["uri"], item["digest"], item["size"]))
        skills.append(Skill(entry["uri"], frontmatter, tuple(parsed)))
    return skills


def content_bytes(result: dict[str, Any], uri: str) -> bytes:
    """The bytes a resources/read result carries for `uri` (text as UTF-8, a blob decoded)."""
    contents = result.get("contents")
    if not isinstance(contents, list):
        raise SkillRejected(f"reading {uri}: the result has no contents")
    for item in contents:
        if not isinstance(item, dict) or item.get("uri") != uri:
            continue
        if isinstance(item.get("text"), str):
            if len(item["text"]) > MAX_FILE_BYTES:
                raise SkillRejected(f"reading {uri}: over {MAX_FILE_BYTES} bytes")
            return item["text"].encode("utf-8")
        if isinstance(item.get("blob"), str) and len(item["blob"]) <= MAX_FILE_BYTES * 4 // 3 + 4:
            try:
                return base64.b64decode(item["blob"], validate=True)
            except (binascii.Error, ValueError):
                raise SkillRejected(f"reading {uri}: the blob is not base64") from None
    raise SkillRejected(f"reading {uri}: the result carries no content for it")


def verify(entry: SkillFile, data: bytes) -> None:
    """Size first (a different length is a failure whatever the digest), then the digest."""
    if len(data) != entry.size:
        raise SkillRejected(f"{entry.uri}: {len(data)} bytes, the listing says {entry.size}")
    algorithm, _, expected = entry.digest.partition(":")
    if algorithm != "sha256" or not expected:
        raise SkillRejected(f"{entry.uri}: digest {entry.digest!r} is not sha256:<hex>")
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected.lower():
        raise SkillRejected(f"{entry.uri}: the content's sha256 is {actual}, the listing says {expected}")


def frontmatter_of(text: str, uri: str) -> dict[str, Any]:
    """The YAML frontmatter of a SKILL.md (between the leading `---` lines), as a mapping."""
    try:
        return parse_frontmatter(text)
    except FrontmatterError as exc:
        raise SkillRejected(f"{uri}: {exc}") from None


def compare_frontmatter(listed: dict[str, Any], found: dict[str, Any], uri: str) -> None:
    """Field by field: any field that differs, or is in one and not the other, rejects the skill."""
    for key in sorted(set(listed) | set(found), key=str):
        if listed.get(key) != found.get(key) or (key in listed) != (key in found):
            raise SkillRejected(f"{uri}: frontmatter field {key!r} is {found.get(key)!r} in the file, "
                                f"{listed.get(key)!r} in the listing; not loading the skill")


class SkillsClient:
    """Skills over one session (anything with `request(method, params)`)."""

    def __init__(self, session: Requester) -> None:
        self.session = session

    async def list(self) -> list[Skill]:
        return parse_listing(await self.session.request("skills/list"))

    async def read(self, skill: Skill, uri: str) -> bytes:
        """One of the skill's files, verified against its entry (nothing unverified is returned)."""
        entry = skill.file(uri)
        data = content_bytes(await self.session.request("resources/read", {"uri": uri}), uri)
        verify(entry, data)
        return data

    async def load(self, skill: Skill) -> LoadedSkill:
        """SKILL.md, verified and its frontmatter matching the listing's; its other files stay unread."""
        data = await self.read(skill, skill.uri)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SkillRejected(f"{skill.uri}: not UTF-8 text") from None
        found = frontmatter_of(text, skill.uri)
        compare_frontmatter(skill.frontmatter, found, skill.uri)
        return LoadedSkill(skill, text, found)

