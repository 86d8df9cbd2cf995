"""Trace format versions and the fields a newer studio wrote that this one does not know.

A trace names its format version: `1` (that is 1.0, what this studio writes) or `"MAJOR.MINOR"`.
A newer MINOR version only adds fields, so this studio reads what it understands and keeps the rest:
each record's unknown fields ride along on its model object (`extra`) and are written back on save,
at every level (the file, an operation, a message, a finding), so opening and saving a colleague's
newer trace loses nothing. A file of this version or older may not carry unknown fields (nothing
but damage or a hand edit puts them there), and another MAJOR version is refused whole: its records
may mean something else. `Newer` says what was written by whom, for the note the views show.
"""

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

MAJOR = 1
MINOR = 0
_DOTTED = re.compile(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})")


class VersionError(ValueError):
    """A version this studio must not read (another major), or not a version at all."""


def parse(value: Any, source: str) -> tuple[int, int]:
    """`1` or `"1.3"` -> (major, minor); VersionError naming both versions otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**9:
        version = (value, 0)
    elif isinstance(value, str) and (match := _DOTTED.fullmatch(value)):
        version = (int(match.group(1)), int(match.group(2)))
    else:
        shown = repr(value) if len(repr(value)) <= 40 else f"a {type(value).__name__}"
        raise VersionError(f"{source} has trace format version {shown}, which is not a version "
                           f"(1, or \"MAJOR.MINOR\" like \"1.2\"); this studio reads {MAJOR}")
    if version[0] != MAJOR:
        shown = value if isinstance(value, str) else text(version)  # as the file writes it
        raise VersionError(f"{source} has trace format version {shown}; this studio reads {MAJOR}")
    return version


def text(version: tuple[int, int]) -> str:
    """(1, 0) -> "1", (1, 3) -> "1.3": how a version is shown and written."""
    return str(version[0]) if version[1] == 0 else f"{version[0]}.{version[1]}"


def written(version: tuple[int, int]) -> int | str:
    """The `version` value of a file: an integer for x.0 (what older studios read), else "x.y"."""
    return version[0] if version[1] == 0 else text(version)


def is_newer(version: tuple[int, int]) -> bool:
    return version > (MAJOR, MINOR)


@dataclass
class Newer:
    """A trace written by a newer studio: its version, its own unknown top-level fields (kept for
    saving), and how many unknown fields each level had (`operations[].tags` -> 2), for the note."""

    version: tuple[int, int]
    document: dict[str, Any] = field(default_factory=dict)
    fields: Counter[str] = field(default_factory=Counter)

    def note(self, source: str) -> str:
        """One line for the status bar, the Problems panel and stderr."""
        head = (f"{source} was written by a newer MRTR Studio (trace format {text(self.version)}; "
                f"this one reads {text((MAJOR, MINOR))})")
        if not self.fields:
            return head + "; it holds nothing this version does not show."
        places = sorted(self.fields.items())
        listed = ", ".join(_shown(where) + (f" ({count})" if count > 1 else "") for where, count in places[:_LISTED])
        more = f" and {len(places) - _LISTED} more" if len(places) > _LISTED else ""
        return head + f": not shown here, kept when saved: {listed}{more}."


#: A note names at most this many places, each at most _NAME characters: field names come from the file.
_LISTED = 12
_NAME = 80
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(name: str) -> str:
    """A field name from a file, safe for a terminal or a status bar: control characters escaped, bounded."""
    name = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}",
                        name)
    return name if len(name) <= _NAME else name[:_NAME - 1] + "…"


def split(record: dict[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    """Take the unknown fields out of a validated record (pydantic kept them: extra="allow")."""
    if known.issuperset(record):
        return None
    return {key: record.pop(key) for key in [key for key in record if key not in known]}


def first_unknown(record: dict[str, Any], known: frozenset[str]) -> str | None:
    return next((key for key in record if key not in known), None)
