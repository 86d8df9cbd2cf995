"""Links into the MCP specification the studio teaches from, and how a link is named for people.

A lesson step, an attack and an exported flow all point at a section of the same specification
version; the base URL and the way a link's visible name is made live here once.
"""

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28/"
MRTR = SPEC + "basic/patterns/mrtr"


def spec_section(url: str) -> str:
    """The part of a specification link after `/specification/` (`2026-07-28/basic/patterns/mrtr#...`):
    what a link shows; any other URL whole."""
    return url.split("/specification/")[-1]
