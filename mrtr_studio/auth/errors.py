"""`AuthError`, the one error of an authorization flow, in a module of its own so that what only
names it (the token stores, the studio's auth log at launch) does not load httpx with `exchanges`."""

from ..protocol.peer_text import printable

#: The longest message an AuthError keeps (what servers sent is quoted in it).
MAX_MESSAGE = 2000


class AuthError(Exception):
    """The flow cannot go on; the message says which step and why. Messages quote what servers sent (issuers,
    URLs, error descriptions), so the message is made one printable line here, whoever composed it: it is
    printed to terminals and shown in the window."""

    def __init__(self, message: str) -> None:
        super().__init__(printable(message, MAX_MESSAGE))
