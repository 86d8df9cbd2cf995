"""Tools that become tasks (SEP-2663): the demo's `long_report` and the suite's `tasks-*` fixtures.

The conformance suite fixes the fixture names and what each must do (`greet`, `slow_compute`,
`failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`); they
are written like any handler, with `response.start_task(body)` and a body that waits, asks and
fills `task.result`.
"""

from typing import Any

from ..engine import McpServer, Request, Response, Session
from ..engine.tasks.context import TaskContext
from ..protocol.errors import INTERNAL_ERROR, McpError

CONFIRM_SCHEMA = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _accepted(answer: dict[str, Any] | None) -> dict[str, Any] | None:
    if not answer or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, dict) else {}


def _number(arguments: dict[str, Any], key: str, default: float, top: float) -> float:
    value = arguments.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= top:
        raise McpError(-32602, f"Invalid params: {key} must be a number from 0 to {top:g}")
    return float(value)


# --- the demo ---------------------------------------------------------------------------------

async def long_report(session: Session, request: Request, response: Response) -> None:
    """Writes a report section by section in the background and asks half-way whether to go on."""
    arguments = request.params.arguments
    topic = str(arguments.get("topic") or "quarterly figures")[:200]
    sections = int(_number(arguments, "sections", 4, 12)) or 1
    pace = _number(arguments, "seconds_per_section", 1.0, 30)

    async def write(task: TaskContext) -> None:
        written: list[str] = []
        for number in range(1, sections + 1):
            if number == sections // 2 + 1 and sections > 1:
                task.input_required.add_elicitation(
                    "continue", f"Half-way: {len(written)} of {sections} sections of the report on {topic} "
                    "are written. Write the rest?", CONFIRM_SCHEMA)
                await task.set_status(f"Waiting for confirmation after section {len(written)}")
                await task.wait_for_input()
                choice = _accepted(task.input_response_value("continue"))
                if not choice or choice.get("confirm") is False:
                    task.result.content.add_text(
                        f"Report on {topic} stopped after {len(written)} of {sections} sections: "
                        + ", ".join(written))
                    return
            await task.progress(number - 1, sections, f"Writing section {number}")
            await task.sleep(pace)
            written.append(f"section {number}")
        task.result.content.add_text(f"Report on {topic}: {sections} sections written")

    response.start_task(write, status_message=f"Writing a {sections}-section report on {topic}",
                        poll_interval_ms=500)


# --- the conformance suite's fixtures ---------------------------------------------------------

def greet(session: Session, request: Request, response: Response) -> None:
    response.result.content.add_text(f"Hello, {request.params.arguments.get('name', 'World')}!")


def slow_compute(session: Session, request: Request, response: Response) -> None:
    """Sleeps `seconds` as a task; 0 answers at once (the immediate-result shortcut)."""
    seconds = _number(request.params.arguments, "seconds", 1, 3600)
    label = str(request.params.arguments.get("label", ""))[:200]
    if seconds == 0:
        response.result.content.add_text(f"Computed {label} at once")
        return

    async def compute(task: TaskContext) -> None:
        await task.set_status(f"Computing {label} for {seconds:g} s")
        await task.sleep(seconds)
        task.result.content.add_text(f"Computed {label} after {seconds:g} s")

    response.start_task(compute, poll_interval_ms=200)


def failing_job(session: Session, request: Request, response: Response) -> None:
    async def fail(task: TaskContext) -> None:
        await task.sleep(1)
        task.result.content.add_text("The job failed: the input could not be processed")
        task.result.is_error = True

    response.start_task(fail, poll_interval_ms=200)


def protocol_error_job(session: Session, request: Request, response: Response) -> None:
    async def crash(task: TaskContext) -> None:
        await task.sleep(0.2)
        raise McpError(INTERNAL_ERROR, "The job's backend went away")

    response.start_task(crash, poll_interval_ms=200)


def confirm_delete(session: Session, request: Request, response: Response) -> None:
    filename = str(request.params.arguments.get("filename", "the file"))[:200]

    async def confirm(task: TaskContext) -> None:
        task.input_required.add_elicitation("confirm", f"Delete {filename}?", CONFIRM_SCHEMA)
        await task.wait_for_input()
        choice = _accepted(task.input_response_value("confirm"))
        task.result.content.add_text(f"Deleted {filename}" if choice and choice.get("confirm") else f"Kept {filename}")

    response.start_task(confirm, poll_interval_ms=200)


def multi_input(session: Session, request: Request, response: Response) -> None:
    async def ask_both(task: TaskContext) -> None:
        task.input_required.add_elicitation("name", "What is your name?", NAME_SCHEMA)
        task.input_required.add_elicitation("confirm", "Go ahead?", CONFIRM_SCHEMA)
        await task.wait_for_input()
        name = (_accepted(task.input_response_value("name")) or {}).get("name", "stranger")
        task.result.content.add_text(f"Hello, {name}; both inputs received")

    response.start_task(ask_both, poll_interval_ms=200)


def tool_with_task(session: Session, request: Request, response: Response) -> None:
    """MRTR first (asks `user_name` synchronously), then a task whose result uses the answer."""
    if not request.has_input_response("user_name"):
        response.input_required.add_elicitation("user_name", "What is your name?", NAME_SCHEMA)
        return
    name = str((_accepted(request.input_response_value("user_name")) or {}).get("name") or "stranger")[:200]

    async def greet_later(task: TaskContext) -> None:
        await task.sleep(0.2)
        task.result.content.add_text(f"Hello, {name}! (from a task)")

    response.start_task(greet_later, poll_interval_ms=200)


def _schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


#: The tools above that exist for the conformance suite's tasks-* scenarios (the studio shows them as fixtures).
SUITE_TASK_TOOLS = frozenset({"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete",
                              "multi_input", "test_tool_with_task"})


def register_task_tools(server: McpServer) -> None:
    server.tool("long_report", "Writes a report in the background (a task) and asks half-way whether to go on.",
                _schema(topic={"type": "string"}, sections={"type": "integer", "minimum": 1, "maximum": 12},
                        seconds_per_section={"type": "number", "minimum": 0, "maximum": 30}),
                task_support="required", eras=("modern",))(long_report)
    server.tool("greet", "Says hello at once (never a task).", _schema(name={"type": "string"}))(greet)
    server.tool("slow_compute", "Sleeps `seconds` as a task (0: answers at once).",
                _schema(seconds={"type": "number"}, label={"type": "string"}), task_support="optional")(slow_compute)
    server.tool("failing_job", "A task whose tool reports an error.", task_support="required")(failing_job)
    server.tool("protocol_error_job", "A task that fails with a JSON-RPC error.",
                task_support="optional")(protocol_error_job)
    server.tool("confirm_delete", "A task that asks for confirmation.", _schema(filename={"type": "string"}),
                task_support="optional")(confirm_delete)
    server.tool("multi_input", "A task that asks two questions at once.", task_support="optional")(multi_input)
    server.tool("test_tool_with_task", "Asks for a name (MRTR), then greets from a task.",
                task_support="required")(tool_with_task)
    for name in SUITE_TASK_TOOLS:  # the suite's, not the demo's: the explorer lists them apart
        server.registry.tools[name].fixture = True
