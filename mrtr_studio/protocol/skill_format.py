"""The skill format both sides of the skills extension (SEP-2640) agree on: frontmatter, digests, names, limits.

Kept I/O-free and below the engine and the client, so the server that publishes an entry and the host
that verifies it parse a SKILL.md's frontmatter with the very same rules (YAML's safe subset without
anchors or aliases, so an alias bomb cannot make either side explode) and format digests the same way.
"""

import hashlib
import re
from functools import cache
from typing import Any

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SKILL_FILE = "SKILL.md"
DIRECTORY_MIME = "inode/directory"
#: The SEP's per-skill limits (hosts MUST accept up to these; servers SHOULD NOT exceed them).
MAX_RESOURCES_PER_SKILL = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
MAX_FRONTMATTER = 64 * 1024
#: The Agent Skills naming rule for the final skill-path segment (1-64 chars, no --, no edge hyphen).
NAME_RULE = re.compile(r"^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$")
DIGEST_RULE = re.compile(r"^sha256:[0-9a-f]{64}$")


class FrontmatterError(ValueError):
    """A SKILL.md whose frontmatter is missing, unclosed, too large, not YAML or not a mapping."""


@cache
def _plain_yaml() -> Any:
    """YAML's safe subset without anchors and aliases (an alias bomb would make comparing explode). A
    class made on first use: PyYAML loads with the first SKILL.md read, not with the engine."""
    import yaml

    class PlainYaml(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise yaml.YAMLError("aliases are not allowed in a skill's frontmatter")
            return super().compose_node(parent, index)

    return PlainYaml


def digest_of(data: bytes) -> str:
    """`sha256:<64 lowercase hex>`, the SEP's digest format."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The YAML frontmatter of a SKILL.md (between the leading `---` lines), as a mapping."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("no YAML frontmatter")
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        raise FrontmatterError("the frontmatter is not closed by ---") from None
    block = "\n".join(lines[1:end])
    if len(block) > MAX_FRONTMATTER:
        raise FrontmatterError(f"the frontmatter is over {MAX_FRONTMATTER} characters")
    import yaml

    try:
        parsed = yaml.load(block, Loader=_plain_yaml())  # a SafeLoader that also refuses aliases
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"the frontmatter is not YAML ({exc.__class__.__name__})") from None
    if not isinstance(parsed, dict):
        raise FrontmatterError("the frontmatter is not a mapping")
    return parsed

