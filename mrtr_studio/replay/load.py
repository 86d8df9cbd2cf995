"""Real MRTR flows under load: each flow runs all its rounds through the one round-trip machine, the
answers from an answers file (or the studio's automatic answers), over one lean keep-alive HTTP/1.1
connection per worker (https: one httpx.AsyncClient with a connection pool; see `Poster`).

Measured: flows per second, p50/p90/p99 per round and for the whole flow (milliseconds from sending
a round to having its answer parsed), errors by JSON-RPC code and `data.reason` (expired, replayed,
signature ...) or by what went wrong on the way (HTTP status, transport), and, when responses carry
`x-served-by` (a cluster's nodes), the same per node. Every answer is read within a size bound and
a time bound. `--rate` paces the starts; `--duration` ends the starting, in-flight flows finish.
"""

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import defaults
from ..client.forms import auto_responses
from ..client.responders import AnswersFile
from ..protocol import wire_json
from ..protocol.roundtrip import Failed, NeedInput, RoundTrip, Send
from ..protocol.versions import MODERN_VERSION
from ..transport.mcp_headers import modern_headers
from ..transport.raw_http import RawConnection
from ..transport.sse import dumps

if TYPE_CHECKING:  # httpx loads with the first https Poster (the window's Cluster tab is built without it)
    import httpx

Message = dict[str, Any]
META = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "mrtr-studio-load", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {},
                                                       "roots": {}}}
LOAD_ROOTS = [{"uri": "file:///load", "name": "load"}]
NODE_HEADER = "x-served-by"


@dataclass(frozen=True)
class Workload:
    """What a load run starts, wherever it runs (one server, each node of a cluster, a balancer): the
    tool and its arguments, how many flows at once, for how long, how fast. The Cluster view's plan is
    one (studio/cluster_load.py); each node's run gets its share of it as its own."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    concurrency: int = defaults.LOAD_CONCURRENCY
    duration: float = defaults.LOAD_DURATION
    #: Flows started per second at most (None: as fast as the workers go).
    rate: float | None = None


@dataclass(frozen=True)
class LoadPlan:
    """A workload against one URL, with what the answers and requests carry and each request's bounds."""

    url: str
    work: Workload
    answers: AnswersFile | None = None
    bearer: str | None = None
    timeout: float = defaults.REPLAY_TIMEOUT
    max_body_bytes: int = defaults.PEER_MAX_BODY_BYTES


class HttpProblem(Exception):
    """An answer that is no JSON-RPC response: `label` is how the error table counts it (`http 503`)."""

    def __init__(self, label: str, detail: str) -> None:
        super().__init__(detail)
        self.label = label


def percentiles(values: list[float]) -> dict[str, float]:
    """count, p50, p90, p99 (nearest rank: each figure is a latency that was measured), in ms."""
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.999999) - 1))], 3)

    return {"count": len(ordered), "p50": rank(0.50), "p90": rank(0.90), "p99": rank(0.99)}


@dataclass
class Tally:
    """Latencies and errors of one scope (the whole run, or one node)."""

    rounds: dict[int, list[float]] = field(default_factory=dict)
    flows: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, label: str) -> None:
        self.errors[label] = self.errors.get(label, 0) + 1

    def to_json(self) -> dict[str, Any]:
        return {"rounds": {str(k): percentiles(v) for k, v in sorted(self.rounds.items())},
                "flow": percentiles(self.flows), "errors": dict(sorted(self.errors.items()))}


@dataclass
class LoadReport:
    plan: LoadPlan
    seconds: float = 0.0
    completed: int = 0
    failed: int = 0
    total: Tally = field(default_factory=Tally)
    nodes: dict[str, Tally] = field(default_factory=dict)

    @property
    def flows_per_second(self) -> float:
        return self.completed / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        work = self.plan.work
        return {"url": self.plan.url, "tool": work.tool, "concurrency": work.concurrency,
                "duration": work.duration, "rate": work.rate, "seconds": round(self.seconds, 3),
                "completed": self.completed, "failed": self.failed,
                "flows_per_second": round(self.flows_per_second, 2), **self.total.to_json(),
                "nodes": {name: tally.to_json() for name, tally in sorted(self.nodes.items())}}


def error_label(error: Any) -> str:
    """`-32602 expired`: the code, and the data's reason when the server gives one."""
    if not isinstance(error, dict):
        return "malformed error"
    data = error.get("data")
    reason = data.get("reason") if isinstance(data, dict) else None
    return f"{error.get('code')}" + (f" {reason}" if isinstance(reason, str) else "")


def decode_answer(status: int, content_type: str, body: bytes, msg_id: Any, limit: int) -> Message:
    """The JSON-RPC response in a POST's answer: the JSON body, or the event stream's `data:` that answers
    `msg_id` (notifications before it are skipped)."""
    kind = content_type.split(";")[0].strip().lower()
    texts = [line[5:].strip() for line in body.splitlines() if line.startswith(b"data:")] \
        if kind == "text/event-stream" else [body]
    for text in texts:
        try:
            message = wire_json.loads(text, max_bytes=limit)
        except wire_json.WireJsonError as exc:
            if kind != "text/event-stream":
                raise HttpProblem(f"http {status}", f"not JSON: {exc}") from None
            continue
        if isinstance(message, dict) and "method" not in message and (kind != "text/event-stream"
                                                                      or message.get("id") == msg_id):
            return message
    raise HttpProblem(f"http {status}", "the answer holds no JSON-RPC response")


def _pooled_client(flows: int, timeout: float) -> "httpx.AsyncClient":
    import httpx

    limits = httpx.Limits(max_connections=flows, max_keepalive_connections=flows)
    return httpx.AsyncClient(limits=limits, timeout=timeout)


class Poster:
    """POSTs one JSON-RPC message; the answer read within the size and time bounds. Plain http goes on
    lean keep-alive connections, one per worker (transport/raw_http: httpx would be the bottleneck);
    https, or `client="httpx"`, on one shared httpx.AsyncClient with a connection pool."""

    def __init__(self, plan: LoadPlan, client: str = "auto") -> None:
        self.plan = plan
        self.base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if plan.bearer:
            self.base["Authorization"] = f"Bearer {plan.bearer}"
        self.raw = client == "raw" or (client == "auto" and plan.url.startswith("http://"))
        self.http: httpx.AsyncClient | None = None
        self.pool: asyncio.Queue[RawConnection] = asyncio.Queue()
        if self.raw:
            for _ in range(plan.work.concurrency):
                self.pool.put_nowait(RawConnection(plan.url, plan.max_body_bytes))
        else:
            self.http = _pooled_client(plan.work.concurrency, plan.timeout)

    async def __call__(self, message: Message) -> tuple[Message, str | None]:
        headers = {**self.base, **modern_headers(message)}
        async with asyncio.timeout(self.plan.timeout):
            status, answer_headers, body = await (self._raw(message, headers) if self.raw
                                                  else self._httpx(message, headers))
        answer = decode_answer(status, answer_headers.get("content-type", ""), body, message.get("id"),
                               self.plan.max_body_bytes)
        return answer, answer_headers.get(NODE_HEADER)

    async def _raw(self, message: Message, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        connection = await self.pool.get()
        try:
            response = await connection.post(dumps(message), headers)
        finally:
            self.pool.put_nowait(connection)
        return response.status, response.headers, response.body

    async def _httpx(self, message: Message, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        assert self.http is not None
        async with self.http.stream("POST", self.plan.url, content=dumps(message), headers=headers) as response:
            data = bytearray()
            async for chunk in response.aiter_raw():
                data += chunk
                if len(data) > self.plan.max_body_bytes:
                    raise HttpProblem("too large", f"an answer over {self.plan.max_body_bytes} bytes")
            return response.status_code, dict(response.headers), bytes(data)

    async def aclose(self) -> None:
        if self.http is not None:
            await self.http.aclose()
        while not self.pool.empty():
            await self.pool.get_nowait().close()


def transport_errors() -> tuple[type[BaseException], ...]:
    """What a flow's POST may raise on the way (httpx's errors only from an https Poster, which imported it)."""
    httpx = sys.modules.get("httpx")
    errors: tuple[type[BaseException], ...] = (TimeoutError, OSError, asyncio.IncompleteReadError)
    return errors if httpx is None else (httpx.HTTPError, *errors)


class LoadRun:
    def __init__(self, plan: LoadPlan, clock: Callable[[], float] = time.perf_counter, client: str = "auto") -> None:
        self.plan = plan
        self.client = client
        self.clock = clock
        self.report = LoadReport(plan)
        self._started = 0
        self._ids = 0

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _first(self) -> Message:
        return {"jsonrpc": "2.0", "id": self._next_id(), "method": "tools/call",
                "params": {"name": self.plan.work.tool, "arguments": self.plan.work.arguments, "_meta": META}}

    def _answers(self, requests: dict[str, Any]) -> dict[str, Any]:
        if self.plan.answers is None:
            return auto_responses(requests, LOAD_ROOTS)
        found = {}
        for key, request in requests.items():
            value = self.plan.answers.lookup(key, request if isinstance(request, dict) else {})
            if value is not None:
                found[key] = value
        return found

    async def flow(self, post: Poster) -> None:
        machine = RoundTrip(self._first())
        step: Send | Failed = machine.start()
        began = self.clock()
        node: str | None = None
        while isinstance(step, Send):
            sent = self.clock()
            try:
                response, node = await post(step.message)
            except HttpProblem as problem:
                self._failed(problem.label, node)
                return
            except transport_errors() as exc:
                self._failed(f"transport {type(exc).__name__}", node)
                return
            elapsed = (self.clock() - sent) * 1000
            self._round(node, step.round, elapsed)
            event = machine.receive(response)
            if not isinstance(event, NeedInput):
                if isinstance(event, Failed):
                    self._failed(error_label(event.error) if event.outcome == "error" else event.outcome, node)
                    return
                break
            step = machine.answer(self._answers(event.requests), self._next_id())
        if isinstance(step, Failed):
            self._failed(step.outcome, node)
            return
        total = (self.clock() - began) * 1000
        self.report.completed += 1
        self._tallies(node, lambda t: t.flows.append(total))

    def _round(self, node: str | None, number: int, elapsed: float) -> None:
        self._tallies(node, lambda tally: tally.rounds.setdefault(number, []).append(elapsed))

    def _tallies(self, node: str | None, update: Callable[[Tally], None]) -> None:
        update(self.report.total)
        if node:
            update(self.report.nodes.setdefault(node, Tally()))

    def _failed(self, label: str, node: str | None) -> None:
        self.report.failed += 1
        self._tallies(node, lambda t: t.error(label))

    async def run(self) -> LoadReport:
        plan = self.plan.work
        post = Poster(self.plan, self.client)
        try:
            began = self.clock()
            deadline = began + plan.duration

            async def worker() -> None:
                while True:
                    now = self.clock()
                    if plan.rate is not None:
                        start_at = began + self._started / plan.rate
                        self._started += 1
                        if start_at >= deadline:
                            return
                        if start_at > now:
                            await asyncio.sleep(start_at - now)
                    elif now >= deadline:
                        return
                    await self.flow(post)

            await asyncio.gather(*(worker() for _ in range(plan.concurrency)))
            self.report.seconds = self.clock() - began
        finally:
            await post.aclose()
        return self.report
