"""Which lines of a handler ran in each round: what the lesson view highlights beside the wire.

A tracer is installed only while the wrapped handler runs (for `async def` handlers, only while
its coroutine is being stepped), and it records lines of that handler's own code object alone,
so the cost stays inside the lesson and other code is never traced.
"""

import inspect
import sys
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any


@dataclass
class HandlerRun:
    round: int
    lines: list[int] = field(default_factory=list)


@dataclass
class LineRecorder:
    runs: list[HandlerRun] = field(default_factory=list)

    def lines_for_round(self, round_number: int) -> list[int]:
        """Source lines (absolute, in the handler's file) executed for `round_number`, in order, once each."""
        seen: dict[int, None] = {}
        for run in self.runs:
            if run.round == round_number:
                seen.update(dict.fromkeys(run.lines))
        return list(seen)

    def wrap(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        code = handler.__code__

        def tracer_for(run: HandlerRun) -> Callable[[FrameType, str, Any], Any]:
            def local(frame: FrameType, event: str, arg: Any) -> Any:
                if event == "line":
                    run.lines.append(frame.f_lineno)
                return local

            def global_(frame: FrameType, event: str, arg: Any) -> Any:
                return local if frame.f_code is code else None

            return global_

        if inspect.iscoroutinefunction(handler):
            async def traced_async(session: Any, request: Any, response: Any) -> Any:
                run = HandlerRun(request.round)
                self.runs.append(run)
                return await _TracedCoroutine(handler(session, request, response), tracer_for(run))

            traced_async.__wrapped__ = handler  # type: ignore[attr-defined]
            return traced_async

        def traced(session: Any, request: Any, response: Any) -> Any:
            run = HandlerRun(request.round)
            self.runs.append(run)
            previous = sys.gettrace()
            sys.settrace(tracer_for(run))
            try:
                return handler(session, request, response)
            finally:
                sys.settrace(previous)

        traced.__wrapped__ = handler  # type: ignore[attr-defined]
        return traced


class _TracedCoroutine:
    """Steps a coroutine with the tracer on, and off again whenever it yields to the event loop."""

    def __init__(self, coroutine: Coroutine[Any, Any, Any], tracer: Callable[..., Any]) -> None:
        self._coroutine = coroutine
        self._tracer = tracer

    def __await__(self) -> Generator[Any, Any, Any]:
        to_send: Any = None
        to_throw: BaseException | None = None
        while True:
            previous = sys.gettrace()
            sys.settrace(self._tracer)
            try:
                if to_throw is not None:
                    yielded = self._coroutine.throw(to_throw)
                else:
                    yielded = self._coroutine.send(to_send)
            except StopIteration as done:
                return done.value
            finally:
                sys.settrace(previous)
            to_throw = None
            try:
                to_send = yield yielded
            except BaseException as exc:  # delivered into the coroutine on the next step
                to_throw = exc


def handler_source(handler: Callable[..., Any]) -> tuple[list[str], int]:
    """The handler's source lines and the absolute line number of the first one."""
    original = getattr(handler, "__wrapped__", handler)
    lines, start = inspect.getsourcelines(original)
    return [line.rstrip("\n") for line in lines], start
