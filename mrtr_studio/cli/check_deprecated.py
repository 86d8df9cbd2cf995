"""`check`'s deprecated-feature result: the deprecation lint's notes over everything the check recorded.

The features 2026-07-28 deprecates still work, and new implementations SHOULD NOT build on them, so
by default a use is a SHOULD-level warning (a SARIF note); `--fail-on deprecated` makes it a failure,
for a CI that wants to keep a server free of them.
"""

from ..trace import TraceStore
from ..trace.deprecation import DEPRECATED_FEATURE
from .check_report import CheckResult, Level, verdict_for

TITLE = "no feature deprecated in 2026-07-28 is used (roots, sampling, logging, Dynamic Client Registration)"


def deprecated_check(store: TraceStore, fail: bool) -> CheckResult:
    notes = []
    for op in store.operations:
        for message in store.messages_of(op.id):
            notes += [f.message for f in message.findings if f.rule == DEPRECATED_FEATURE]
    unique = list(dict.fromkeys(notes))
    level: Level = "MUST" if fail else "SHOULD"
    return CheckResult(DEPRECATED_FEATURE, TITLE, level, verdict_for(not unique, level),
                       f"{len(unique)} use(s) of deprecated features" if unique else "", unique[:5])
