"""The skills extension (SEP-2640), client side: listing reads nothing, SKILL.md is verified (size, digest,
frontmatter field by field) before it is used, supporting files only when asked for and verified too, and
hostile listings or files are refused with the reason."""

import asyncio
import base64
import hashlib
from typing import Any

import pytest

from mrtr_studio.client.skills import SkillRejected, SkillsClient, frontmatter_of, parse_listing

SKILL = "skill://pdf/SKILL.md"
FORMS = "skill://pdf/references/FORMS.md"
BODY = "---\nname: pdf\ndescription: Fill PDF forms\ntags: [pdf, forms]\n---\n\nUse the form filler.\n"
FORMS_TEXT = "Supporting notes.\n"


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def entry(body: str = BODY, frontmatter: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"uri": SKILL, "frontmatter": frontmatter or {"name": "pdf", "description": "Fill PDF forms",
                                                         "tags": ["pdf", "forms"]},
            "resources": [{"uri": SKILL, "digest": digest(body), "size": len(body.encode())},
                          {"uri": FORMS, "digest": digest(FORMS_TEXT), "size": len(FORMS_TEXT.encode())}]}


class Server:
    """What a skills server answers; `served` replaces SKILL.md's content (a tampered file)."""

    def __init__(self, listing: dict[str, Any], served: str = BODY, blob: bool = False) -> None:
        self.listing, self.served, self.blob = listing, served, blob
        self.reads: list[str] = []

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if method == "skills/list":
            return {"skills": [self.listing]}
        uri = (params or {})["uri"]
        self.reads.append(uri)
        text = FORMS_TEXT if uri == FORMS else self.served
        if self.blob:
            return {"contents": [{"uri": uri, "blob": base64.b64encode(text.encode()).decode()}]}
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}


def run(server: Server, *steps: str) -> Any:
    async def go() -> Any:
        client = SkillsClient(server)
        [skill] = await client.list()
        result: Any = skill
        if "load" in steps:
            result = await client.load(skill)
        if "forms" in steps:
            result = await client.read(skill, FORMS)
        return result

    return asyncio.run(go())


def test_listing_reads_no_file_and_loading_reads_only_skill_md() -> None:
    server = Server(entry())
    skill = run(server)
    assert skill.name == "pdf" and server.reads == []
    loaded = run(server, "load")
    assert server.reads == [SKILL] and loaded.frontmatter["tags"] == ["pdf", "forms"]
    assert run(Server(entry(), blob=True), "load").text == BODY  # a blob is decoded, then verified alike
    assert run(server, "load", "forms") == FORMS_TEXT.encode()


@pytest.mark.parametrize(("served", "listed", "reason"), [
    (BODY.replace("Use the form", "Run the form"), None, "sha256"),  # same length, other bytes
    (BODY + "more\n", None, "bytes, the listing says"),
    (BODY.replace("Fill PDF forms", "Steal PDF forms"), BODY.replace("Fill PDF forms", "Steal PDF forms"),
     "frontmatter field 'description'"),
    (BODY.replace("tags: [pdf, forms]\n", ""), BODY.replace("tags: [pdf, forms]\n", ""), "frontmatter field 'tags'"),
    ("no frontmatter\n", "no frontmatter\n", "no YAML frontmatter"),
    ("---\na: &x [1]\nb: *x\n---\n", "---\na: &x [1]\nb: *x\n---\n", "not YAML"),
])
def test_a_file_that_fails_verification_is_rejected_before_use(served: str, listed: str | None,
                                                               reason: str) -> None:
    server = Server(entry(listed or BODY), served)
    with pytest.raises(SkillRejected, match=reason):
        run(server, "load")
    assert FORMS not in server.reads  # nothing more read from a rejected skill


def test_hostile_listings_are_refused_with_the_reason() -> None:
    for listing, reason in [({"skills": "x"}, "not a list"), ({"skills": [{"frontmatter": {}}]}, "no uri"),
                            ({"skills": [{"uri": SKILL, "frontmatter": [], "resources": []}]}, "must be an object"),
                            ({"skills": [{"uri": SKILL, "frontmatter": {}, "resources": [{"uri": SKILL}]}]},
                             "needs a uri, a digest and a size"),
                            ({"skills": [{"uri": SKILL, "frontmatter": {}, "resources": [
                                {"uri": SKILL, "digest": "md5:x", "size": True}]}]}, "needs a uri")]:
        with pytest.raises(SkillRejected, match=reason):
            parse_listing(listing)
    with pytest.raises(SkillRejected, match="not one of the files"):
        asyncio.run(SkillsClient(Server(entry())).read(parse_listing({"skills": [entry()]})[0], "skill://other"))
    assert frontmatter_of(BODY, SKILL)["name"] == "pdf"
