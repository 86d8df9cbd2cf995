"""Text a peer chose (an authorization server's `error_description`, a WWW-Authenticate value, a token type)
made safe to put in a one-line message for a terminal.

A peer's text is input: an ESC would drive the terminal (colours, cursor moves, a retitled window, OSC 8
links), a newline would forge a second line of output, and a bidi override would make the line read
differently from what it holds. So every character Python calls unprintable (Unicode's "Other" categories:
controls, format characters such as bidi overrides, unassigned ones; and separators other than the
ASCII space, such as U+2028) is shown as a Python-style escape (`\\x1b`, `\\u202e`),
and the text is cut to a length that keeps the message one readable line.
"""

#: Longer peer text is cut (with "…"): a message names the server's reason, not its essay.
MAX_PEER_TEXT = 300


def printable(text: object, limit: int = MAX_PEER_TEXT) -> str:
    """`text` (anything; a non-string is shown with `str`) with control and format characters escaped, at
    most `limit` characters of it kept."""
    value = text if isinstance(text, str) else str(text)
    cut = len(value) > limit
    value = value[:limit]
    shown = "".join(ch if ch.isprintable() else _escape(ch) for ch in value)
    return shown + ("…" if cut else "")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
