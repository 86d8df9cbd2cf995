"""The skills extension (SEP-2640), served: a catalogue of skills beside the tools' registry.

A skill is a directory of files with a SKILL.md at its root. Each file is an ordinary resource (read
with `resources/read`, as the SEP says: no skill-specific read), so `McpServer.skill` registers them in
the server's resource registry; this module keeps what only skills have: the entry `skills/list` and
`skills/get` publish (the frontmatter verbatim, every file with its sha256 digest and byte size, all
computed here from the very bytes served, so the entry cannot drift from the content) and the directory
tree `resources/directory/read` walks. Everything a skill declares is checked when it is added, so a
server cannot publish an entry the SEP forbids (a name that is not the URI's last segment, a file
outside the skill, over the limits).
"""

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..protocol.errors import INVALID_PARAMS, McpError
from ..protocol.skill_format import (
    DIRECTORY_MIME,
    MAX_RESOURCES_PER_SKILL,
    MAX_SKILL_BYTES,
    NAME_RULE,
    SKILL_FILE,
    FrontmatterError,
    digest_of,
    parse_frontmatter,
)
from .handler_api import Request, Response
from .registry import ResourceEntry
from .server_session import Session

SKILL_METHODS = frozenset({"skills/list", "skills/get", "resources/directory/read"})
#: Skills (and directory children) per page; an entry is never split across pages.
DEFAULT_PAGE_SIZE = 50
_MIME_BY_SUFFIX = {".md": "text/markdown", ".py": "text/x-python", ".json": "application/json",
                   ".txt": "text/plain", ".sh": "text/x-shellscript", ".yaml": "application/yaml"}


def _mime_for(path: str) -> str:
    for suffix, mime in _MIME_BY_SUFFIX.items():
        if path.endswith(suffix):
            return mime
    return "application/octet-stream"


@dataclass(frozen=True)
class SkillFile:
    """One served file: its URI, its bytes, and what the entry says of them."""

    uri: str
    data: bytes
    mime_type: str

    @property
    def size(self) -> int:
        return len(self.data)

    @cached_property
    def digest(self) -> str:
        """Hashed once: a file is frozen once added, and every skills/list and skills/get names it."""
        return digest_of(self.data)

    @property
    def name(self) -> str:
        return self.uri.rsplit("/", 1)[-1]

    def manifest(self) -> dict[str, Any]:
        return {"uri": self.uri, "digest": self.digest, "size": self.size}


@dataclass(frozen=True)
class ServedSkill:
    """A skill as published: SKILL.md's URI, its frontmatter (verbatim, as JSON) and every file."""

    uri: str
    root: str
    frontmatter: dict[str, Any]
    files: tuple[SkillFile, ...]
    #: False: served and retrievable by `skills/get`, but left out of `skills/list` (a partial listing).
    listed: bool = True

    @property
    def name(self) -> str:
        return str(self.frontmatter["name"])

    def entry(self) -> dict[str, Any]:
        return {"uri": self.uri, "frontmatter": self.frontmatter, "resources": [f.manifest() for f in self.files]}

    def resource_entries(self) -> list[ResourceEntry]:
        """A resource per file; SKILL.md's carries the frontmatter's name and description (the SEP's SHOULD)."""
        entries = []
        for file in self.files:
            is_manifest = file.uri == self.uri
            entries.append(ResourceEntry(
                file.uri, _reader(file), self.name if is_manifest else file.name,
                str(self.frontmatter.get("description", "")) if is_manifest else "", file.mime_type))
        return entries


def _reader(file: SkillFile) -> Any:
    def read(session: Session, request: Request, response: Response) -> None:
        try:
            response.result.contents.add_text(file.uri, file.data.decode("utf-8"), file.mime_type)
        except UnicodeDecodeError:
            response.result.contents.add_blob(file.uri, base64.b64encode(file.data).decode(), file.mime_type)
    return read


def _check_relative(path: str, skill: str) -> None:
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"skill {skill!r}: {path!r} is not a relative path inside the skill")


class SkillCatalogue:
    """The skills one server serves, and the three methods the extension adds."""

    def __init__(self, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        if type(page_size) is not int or page_size < 1:
            raise ValueError(f"the skills page size must be a whole number above 0, got {page_size!r}")
        self.page_size = page_size
        self.skills: dict[str, ServedSkill] = {}

    def __bool__(self) -> bool:
        return bool(self.skills)

    def settings(self) -> dict[str, Any]:
        """The extension's settings, inline under its identifier (SEP-2133): this server reads directories."""
        return {"directoryRead": True}

    def add(self, skill_path: str, skill_md: str, files: Mapping[str, bytes | str] | None = None,
            scheme: str = "skill", listed: bool = True) -> ServedSkill:
        """Publish `skill_md` (and `files`, relative paths) at `<scheme>://<skill_path>/SKILL.md`."""
        segments = skill_path.split("/")
        if not skill_path or any(not s or s in (".", "..") for s in segments):
            raise ValueError(f"{skill_path!r} is not a skill path (one or more /-separated segments)")
        try:
            frontmatter = parse_frontmatter(skill_md)
        except FrontmatterError as exc:
            raise ValueError(f"skill {skill_path!r}: {exc}") from None
        for field in ("name", "description"):
            if not isinstance(frontmatter.get(field), str) or not frontmatter[field]:
                raise ValueError(f"skill {skill_path!r}: the frontmatter needs a non-empty {field!r}")
        if frontmatter["name"] != segments[-1] or not NAME_RULE.match(segments[-1]):
            raise ValueError(f"skill {skill_path!r}: the last segment must be the frontmatter name "
                             f"{frontmatter['name']!r} and follow the Agent Skills naming rules")
        try:
            json.dumps(frontmatter, allow_nan=False)
        except (TypeError, ValueError):
            raise ValueError(f"skill {skill_path!r}: the frontmatter must render as JSON (quote dates)") from None
        root = f"{scheme}://{skill_path}"
        served = [SkillFile(f"{root}/{SKILL_FILE}", skill_md.encode("utf-8"), "text/markdown")]
        for path, content in (files or {}).items():
            _check_relative(path, skill_path)
            if path == SKILL_FILE:
                raise ValueError(f"skill {skill_path!r}: SKILL.md is given as skill_md, not among the files")
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            served.append(SkillFile(f"{root}/{path}", data, _mime_for(path)))
        if len(served) > MAX_RESOURCES_PER_SKILL or sum(f.size for f in served) > MAX_SKILL_BYTES:
            raise ValueError(f"skill {skill_path!r} is over the SEP's limits ({MAX_RESOURCES_PER_SKILL} files, "
                             f"{MAX_SKILL_BYTES} bytes)")
        skill = ServedSkill(served[0].uri, root, frontmatter, tuple(served), listed)
        if skill.uri in self.skills:
            raise ValueError(f"a skill is already served at {skill.uri}")
        self.skills[skill.uri] = skill
        return skill

    # --- the methods ------------------------------------------------------------------------

    def serve(self, method: str, params: dict[str, Any], modern: bool, ttl_ms: int) -> dict[str, Any]:
        caching = {"resultType": "complete", "ttlMs": ttl_ms, "cacheScope": "public"} if modern else {}
        if method == "skills/list":
            listed = [s.entry() for s in self.skills.values() if s.listed]
            page, cursor = self._page(listed, params)
            return {**caching, "skills": page, **({"nextCursor": cursor} if cursor else {})}
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "Invalid params: uri must be a string")
        if method == "skills/get":
            skill = self.skills.get(uri)
            if skill is None:
                raise McpError(INVALID_PARAMS, f"Invalid params: no skill is served at {uri}", {"uri": uri})
            return {**caching, "skill": skill.entry()}
        children = self.children(uri)
        if children is None:
            raise McpError(INVALID_PARAMS, f"Invalid params: {uri} is not a directory this server serves",
                           {"uri": uri})
        page, cursor = self._page(children, params)
        return {**caching, "resources": page, **({"nextCursor": cursor} if cursor else {})}

    def _page(self, items: list[dict[str, Any]], params: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """One page from the opaque cursor (an offset); a cursor this server never gave is Invalid params."""
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not isinstance(cursor, str) or not cursor.isdigit() or int(cursor) > len(items):
                raise McpError(INVALID_PARAMS, "Invalid params: unknown cursor")
            start = int(cursor)
        end = start + self.page_size
        return items[start:end], (str(end) if end < len(items) else "")

    def children(self, uri: str) -> list[dict[str, Any]] | None:
        """The direct children of directory `uri` (files, then subdirectories), or None when it is none."""
        if "://" not in uri or uri.endswith("/") or not uri.split("://", 1)[1]:
            return None
        prefix = uri + "/"
        files: dict[str, dict[str, Any]] = {}
        directories: dict[str, dict[str, Any]] = {}
        found = False
        for skill in self.skills.values():
            for file in skill.files:
                if not file.uri.startswith(prefix):
                    continue
                found = True
                rest = file.uri[len(prefix):]
                head, sep, _ = rest.partition("/")
                if sep:
                    child = prefix + head
                    directories.setdefault(child, {"uri": child, "name": head, "mimeType": DIRECTORY_MIME})
                else:
                    name = skill.name if file.uri == skill.uri else file.name
                    files.setdefault(file.uri, {"uri": file.uri, "name": name, "mimeType": file.mime_type})
        if not found:
            return None
        return [*files.values(), *(d for d in directories.values() if d["uri"] not in files)]
