"""Any other requestState: nothing can be decoded, so say what can be measured.

Length, alphabet and Shannon entropy hint at what a state is (a random handle into server storage
is short and high-entropy; readable JSON is not), and, given the states of several rounds, whether
the server mints a fresh one each round and whether the client echoed it byte for byte.
"""

import math
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .result import Check, Decoded

NAME = "opaque"
_ALPHABETS = (
    ("hex", frozenset(string.hexdigits)),
    ("base64url", frozenset(string.ascii_letters + string.digits + "-_=")),
    ("base64", frozenset(string.ascii_letters + string.digits + "+/=")),
    ("base64url with dots", frozenset(string.ascii_letters + string.digits + "-_=.")),
    ("printable ASCII", frozenset(string.printable) - frozenset("\t\n\r\x0b\x0c")),
)

LABELS = {
    "length": "length (characters)",
    "alphabet": "alphabet",
    "distinct characters": "distinct characters",
    "entropy bits per character": "Shannon entropy (bits per character)",
    "entropy bits": "Shannon entropy of the whole state (bits, an upper bound on its randomness)",
}


def alphabet_of(token: str) -> str:
    chars = set(token)
    return next((name for name, allowed in _ALPHABETS if chars <= allowed), "other (non-ASCII or control)")


def entropy_per_char(token: str) -> float:
    if not token:
        return 0.0
    counts = Counter(token)
    total = len(token)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def decode(token: str, rounds: Sequence[str] = (), echoes: Sequence[tuple[str, str]] = ()) -> Decoded:
    """`rounds`: the states the server issued, oldest first (this one among them or not);
    `echoes`: (issued, sent back by the client) pairs."""
    per_char = entropy_per_char(token)
    stats: dict[str, Any] = {
        "length": len(token),
        "alphabet": alphabet_of(token),
        "distinct characters": len(set(token)),
        "entropy bits per character": round(per_char, 3),
        "entropy bits": round(per_char * len(token), 1),
    }
    checks = [Check("readable", "cannot-check", "not a format this studio knows: only its statistics are shown")]
    if token.startswith("v1."):
        checks.insert(0, Check("shape", "fail", "starts with v1. like the studio's and the SDKs' states but fits none "
                                                "of them: truncated or altered?"))
    history = [t for t in rounds if isinstance(t, str)]
    if token not in history:
        history.append(token)
    if len(history) >= 2:
        repeated = [i + 1 for i in range(1, len(history)) if history[i] == history[i - 1]]
        if repeated:
            checks.append(Check("changes between rounds", "fail",
                                f"round {repeated[0]} issued the same state as the round before"))
        else:
            checks.append(Check("changes between rounds", "pass", f"a new state in each of {len(history)} rounds"))
    else:
        checks.append(Check("changes between rounds", "cannot-check", "one round only: give the others to compare"))
    if echoes:
        altered = [i + 1 for i, (issued, sent) in enumerate(echoes) if issued != sent]
        if altered:
            checks.append(Check("echoed", "fail", f"round {altered[0]}: the client sent back a different state"))
        else:
            checks.append(Check("echoed", "pass", "the client echoed every state byte for byte"))
    return Decoded(NAME, stats, checks, labels=LABELS)
