"""Running one saved call (client/collection.py), the parts `mrtr-studio run` and the window's Run
collection share: the client settings the call asks for, how its rounds are answered (from the
call's answers only; sampling echoes and roots/list offers the working folder when the file has no
answer, as `call` does), what happened as an `Outcome`, and the verdicts of its assertions (a call
without assertions is asserted to complete). The caller makes the call (a session of its own, or the
window's runner so it is an operation in the list). No I/O here.
"""

from pathlib import Path
from typing import Any

from . import responders as R
from .collection import Outcome, SavedCall, Verdict, judge
from .driver import Respond
from .session import RunResult
from .settings import ClientSettings


def respond_for(call: SavedCall) -> Respond:
    """The call's answers by input key (then method, then "*"); nothing is asked of a person."""
    answers = R.AnswersFile(call.answers)
    return R.compose(elicitation=answers, url=answers, sampling=R.first_of(answers, R.echo),
                     roots=R.first_of(answers, R.RootsList.of([Path.cwd().as_uri()])), other=answers)


def settings_for(call: SavedCall, **more: Any) -> ClientSettings:
    """Era, capabilities, identity (a bearer token over HTTP, the principal for memory:) and round limit."""
    return ClientSettings(era=call.era, capabilities=frozenset(call.capabilities), bearer_token=call.identity,
                          user=call.identity or "", max_rounds=call.max_rounds, **more)


def asked_keys(rounds: list[Any]) -> list[str]:
    """The input keys every round asked, in order."""
    keys: list[str] = []
    for one in rounds:
        result = (one.response or {}).get("result") if isinstance(one.response, dict) else None
        requests = result.get("inputRequests") if isinstance(result, dict) else None
        if isinstance(requests, dict):
            keys += [str(k) for k in requests]
    return keys


def outcome_of(run: RunResult | None, duration_ms: float, problem: str | None = None) -> Outcome:
    """What a made call did (`run` None: it could not be made, `problem` says why)."""
    if run is None:
        return Outcome(False, None, None, 0, [], duration_ms, problem=problem or "the call did not run")
    drive = run.final
    return Outcome(drive.ok, drive.result if drive.ok else None, drive.error, len(drive.rounds),
                   asked_keys(drive.rounds), duration_ms,
                   problem=None if drive.ok else (drive.problem or drive.outcome))


def verdicts_for(call: SavedCall, outcome: Outcome) -> list[Verdict]:
    return [judge(assertion, outcome) for assertion in call.assertions] or [
        Verdict("completes", outcome.ok, "complete" if outcome.ok else str(outcome.problem))]
