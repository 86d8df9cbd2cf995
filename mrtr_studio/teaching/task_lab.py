"""The lab's attacks on tasks (SEP-2663): another principal's task id, a key answered twice or never asked.

Each attack starts its own task (a tool that becomes a task and asks for input, `confirm_delete` on
the demo server), waits until it asks, then does the one wrong thing and judges what the server did
against the extension's text. A task left waiting is cancelled at the end of its attack.
"""

import asyncio
from dataclasses import replace
from typing import Any

from ..client.auto_answers import auto_respond
from ..client.driver import Message, Respond
from ..client.settings import ClientSettings
from ..protocol import jsonrpc
from ..protocol.roundtrip import result_type_of
from ..trace import TraceStore
from ..transport.base import ClientTransport
from .lab import Attack, AttackResult, Lab, LabRun, LabTarget, Status, finish_attack, judge

TASKS = "https://modelcontextprotocol.io/extensions/tasks/overview"
TASK_ATTACKS: tuple[Attack, ...] = (
    Attack("task-other-identity", "Poll, answer and cancel another principal's task",
           "MUST check on each task request that the caller may access the task", "MUST",
           TASKS + "#security-implications"),
    Attack("task-key-twice", "Answer a task's key twice",
           "SHOULD ignore inputResponses for keys already answered (keys are unique over a task's life)", "SHOULD",
           TASKS + "#task-update-requests"),
    Attack("task-key-unknown", "Answer a key the task never asked",
           "SHOULD ignore inputResponses for keys that are not outstanding", "SHOULD",
           TASKS + "#task-update-requests"),
)
#: How many polls an attack waits for the task to ask or finish before giving up on it.
MAX_POLLS = 200


class TaskLab(Lab):
    """The lab's recording and transports, driving tasks instead of MRTR retries."""

    def __init__(self, target: LabTarget, store: TraceStore, settings: ClientSettings | None = None,
                 respond: Respond = auto_respond) -> None:
        base = settings or ClientSettings(era="modern")
        super().__init__(target, store, replace(base, capabilities=base.capabilities | {"tasks"}), respond)

    def _task_request(self, method: str, params: dict[str, Any]) -> Message:
        return jsonrpc.request(self.ids(), method, {**params, "_meta": self.settings.request_meta()})

    async def run_tasks(self, target: str = "confirm_delete", arguments: dict[str, Any] | None = None,
                        attacks: tuple[Attack, ...] = TASK_ATTACKS) -> LabRun:
        run = LabRun("tools/call", target, dict(arguments or {"filename": "lab.txt"}))
        try:
            for attack in attacks:
                run.results.append(await self._task_attack(attack, target, run.arguments))
        finally:
            for transport in self._transports.values():
                await transport.close()
            self._transports.clear()
        return run

    async def _task_attack(self, attack: Attack, target: str, arguments: dict[str, Any]) -> AttackResult:
        owner, other = self.target.identities
        if attack.id == "task-other-identity" and other is None:
            return AttackResult(attack, "skipped", "skipped", "—", detail="configure a second identity "
                                "(bearer token) for this server to run it")
        op = self.store.begin_operation("tools/call", target, arguments, "modern", self.target.label,
                                        label=f"lab: {attack.title}")
        transport = self._transport(owner)
        started = await self._start(transport, target, arguments, op.id)
        if isinstance(started, str):
            self.store.finish_operation(op.id, "protocol_error", started)
            return AttackResult(attack, "broken", "skipped", started, op.id, "the tool did not become a task "
                                "that asks for input")
        task_id, asked = started
        self.store.note_task(op.id, task_id, "input_required", 1)
        try:
            status, answer, detail = await self._strike(attack, transport, task_id, asked, target, arguments, op.id)
        finally:
            await self._send(transport, self._task_request("tasks/cancel", {"taskId": task_id}), op.id, 3)
        finish_attack(self.store, op.id, attack, status, answer)
        return AttackResult(attack, status, judge(attack, status), answer, op.id, detail)

    async def _start(self, transport: ClientTransport, target: str, arguments: dict[str, Any],
                     op_id: str) -> tuple[str, dict[str, Any]] | str:
        """Create a task and wait until it asks: (task id, its inputRequests), or why not."""
        reply = await self._send(transport, self._first("tools/call", target, arguments), op_id, 1)
        body = reply.get("result") if isinstance(reply, dict) else None
        if not isinstance(body, dict) or result_type_of(body) != "task" or not isinstance(body.get("taskId"), str):
            return "no task was created (resultType is not task)"
        task = await self._until(transport, body["taskId"], op_id, lambda t: t.get("status") != "working")
        if task.get("status") != "input_required" or not isinstance(task.get("inputRequests"), dict):
            return f"the task never asked for input (status {task.get('status')!r})"
        return body["taskId"], task["inputRequests"]

    async def _until(self, transport: ClientTransport, task_id: str, op_id: str, done: Any,
                     round_number: int = 2) -> dict[str, Any]:
        task: dict[str, Any] = {}
        for _ in range(MAX_POLLS):
            reply = await self._send(transport, self._task_request("tasks/get", {"taskId": task_id}), op_id,
                                     round_number)
            found = reply.get("result") if isinstance(reply, dict) else None
            if not isinstance(found, dict):
                return {"status": "error", "reply": reply}
            task = found
            if done(task):
                return task
            interval = task.get("pollIntervalMs")
            wait = interval / 1000 if isinstance(interval, int | float) and not isinstance(interval, bool) else 1
            await asyncio.sleep(min(max(wait, 0.05), 2.0))
        return task

    async def _update(self, transport: ClientTransport, task_id: str, answers: dict[str, Any], op_id: str) -> Any:
        params = {"taskId": task_id, "inputResponses": answers}
        return await self._send(transport, self._task_request("tasks/update", params), op_id, 3)

    async def _strike(self, attack: Attack, transport: ClientTransport, task_id: str, asked: dict[str, Any],
                      target: str, arguments: dict[str, Any], op_id: str) -> tuple[Status, str, str]:
        terminal = ("completed", "failed", "cancelled")
        if attack.id == "task-other-identity":
            intruder = self._transport(str(self.target.identities[1]))
            answers = await self.respond(asked, 1)
            tries = [("tasks/get", {}), ("tasks/update", {"inputResponses": answers}), ("tasks/cancel", {})]
            got = []
            for method, extra in tries:
                reply = await self._send(intruder, self._task_request(method, {"taskId": task_id, **extra}), op_id, 3)
                error = reply.get("error") if isinstance(reply, dict) else None
                got.append(f"{method}: " + (f"{error.get('code')} {error.get('message')}" if isinstance(error, dict)
                                            else "answered"))
            refused = all(part.split(": ", 1)[1] != "answered" for part in got)
            task = await self._until(transport, task_id, op_id, lambda t: True, 3)
            untouched = task.get("status") == "input_required"
            status: Status = "rejected" if refused and untouched else "accepted"
            return status, "; ".join(got), f"as {self.target.identities[1]!r}; the owner then saw " \
                                           f"{task.get('status')!r}"
        if attack.id == "task-key-unknown":
            await self._update(transport, task_id, {"lab-never-asked": {"action": "accept", "content": {}}}, op_id)
            task = await self._until(transport, task_id, op_id, lambda t: True, 3)
            ignored = task.get("status") == "input_required" and set(task.get("inputRequests") or {}) >= set(asked)
            return ("rejected" if ignored else "accepted",
                    f"status {task.get('status')!r} after answering only an unknown key",
                    "the answer to a key nobody asked must change nothing")
        # task-key-twice: a control task answered "decline" once, then this one answered decline, then accept
        decline = {key: {"action": "decline"} for key in asked}
        control = await self._start(transport, target, arguments, op_id)
        if isinstance(control, str):
            return "skipped", "—", f"a second task for comparison could not start: {control}"
        await self._update(transport, control[0], {key: {"action": "decline"} for key in control[1]}, op_id)
        expected = await self._until(transport, control[0], op_id, lambda t: t.get("status") in terminal, 3)
        await self._update(transport, task_id, decline, op_id)
        await self._update(transport, task_id, await self.respond(asked, 1), op_id)
        task = await self._until(transport, task_id, op_id, lambda t: t.get("status") in terminal, 3)
        same = task.get("result") == expected.get("result") and task.get("status") == expected.get("status")
        return ("rejected" if same else "accepted", f"the task ended {task.get('status')!r}",
                "the second answer was ignored (the result is the one a single decline gives)" if same
                else "the second answer changed the outcome")
