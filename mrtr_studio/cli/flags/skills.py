"""`mrtr-studio skills`'s flags (kept apart from the command so building the parser stays light)."""

from typing import Any


def add_skills_parser(commands: Any) -> None:
    skills = commands.add_parser("skills", help="list a server's skills (SEP-2640); open one, verified check by check")
    skills.add_argument("url", help="http(s)://…/mcp, stdio:COMMAND or memory:")
    skills.add_argument("--open", metavar="NAME", help="read this skill's SKILL.md (a name or its URI) and verify it")
    skills.add_argument("--read", action="append", default=[], metavar="FILE",
                        help="with --open: also read and verify this supporting file (repeatable)")
    skills.add_argument("--bearer", help="Authorization: Bearer token")
    skills.add_argument("--json", action="store_true", help="print the listing or the report as JSON")
