"""The Cluster view's load: `mrtr-studio load`'s flows (replay/load.py, every flow all its rounds)
against the running cluster, with the figures per node.

Two ways in. Directly: one load run per node, the workers (and the rate) shared out among the
nodes, so each node's figures are its own run's. Through a balancer: a real HAProxy started in
front of the nodes for the length of the run (its port is the one the nodes were started to accept
as a Host), one load run against it, and the node of each answer read from its `x-served-by` header;
HAProxy balances each request on its own, so a flow's rounds land on different nodes, as they would
behind a real one. Either way the report is one `LoadReport`, the same object `load --json` prints.

The run ends by itself at its duration (flows in flight finish, each bounded by the per-request
timeout); Stop ends it at once and keeps the figures so far. A balancer started here is stopped
when the run ends, however it ends.
"""

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import defaults
from ..replay.load import LoadPlan, LoadReport, LoadRun, Tally, Workload
from ..teaching.cluster import Cluster
from ..teaching.cluster_services import Service, start_haproxy


@dataclass(frozen=True)
class ClusterLoadPlan(Workload):
    """The workload over the whole cluster (its rate the cluster's), each request's time bound, and
    whether it goes through a balancer or to each node directly."""

    timeout: float = defaults.REPLAY_TIMEOUT
    through_balancer: bool = False

    def check(self) -> None:
        """ValueError naming the setting that cannot be run."""
        if not self.tool.strip():
            raise ValueError("name the tool to call under load")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if not 0 < self.duration <= defaults.LOAD_MAX_DURATION:
            raise ValueError(f"duration must be over 0 and at most {defaults.LOAD_MAX_DURATION:g} s, "
                             f"not {self.duration:g}")
        if self.rate is not None and self.rate <= 0:
            raise ValueError(f"rate must be over 0 flows/s, not {self.rate:g}")


@dataclass(frozen=True)
class LoadProgress:
    elapsed: float
    duration: float
    completed: int
    failed: int


@dataclass
class ClusterLoadResult:
    report: LoadReport
    #: "3 nodes directly" or "HAProxy at http://…".
    via: str
    stopped: bool = False


def share(total: int, parts: int) -> list[int]:
    """`total` workers over `parts` nodes, as evenly as whole workers go (the first nodes get the rest)."""
    return [total // parts + (1 if index < total % parts else 0) for index in range(parts)]


def merged(plan: LoadPlan, runs: dict[str, LoadRun], seconds: float) -> LoadReport:
    """One report of per-node runs: the whole cluster's figures from every sample, each node's its own."""
    report = LoadReport(plan, seconds=seconds)
    for node, run in runs.items():
        part = run.report
        report.completed += part.completed
        report.failed += part.failed
        tally = part.total
        for number, values in tally.rounds.items():
            report.total.rounds.setdefault(number, []).extend(values)
        report.total.flows.extend(tally.flows)
        for label, count in tally.errors.items():
            report.total.errors[label] = report.total.errors.get(label, 0) + count
        report.nodes[node] = Tally({k: list(v) for k, v in tally.rounds.items()}, list(tally.flows),
                                   dict(tally.errors))
    return report


class ClusterLoad:
    """One load run against a cluster; `progress()` may be read while it runs (the view's live figures)."""

    def __init__(self, cluster: Cluster, plan: ClusterLoadPlan, balancer_port: int | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        plan.check()
        if not cluster.nodes:
            raise ValueError("the cluster has no node to load")
        if plan.through_balancer and balancer_port is None:
            raise ValueError("this cluster was started without a balancer port: load its nodes directly")
        self.cluster = cluster
        self.plan = plan
        self.balancer_port = balancer_port
        self.clock = clock
        self.runs: dict[str, LoadRun] = {}
        self.balancer: Service | None = None
        self._began: float | None = None
        self._inner: asyncio.Future[Any] | None = None
        self._stopping = False

    def _load_plan(self, url: str, concurrency: int, rate: float | None) -> LoadPlan:
        """One run's plan: its share of the workload (its workers, its part of the rate) against `url`."""
        part = Workload(self.plan.tool, self.plan.arguments, concurrency, self.plan.duration, rate)
        return LoadPlan(url, part, timeout=self.plan.timeout)

    def progress(self) -> LoadProgress:
        elapsed = 0.0 if self._began is None else self.clock() - self._began
        return LoadProgress(min(elapsed, self.plan.duration), self.plan.duration,
                            sum(r.report.completed for r in self.runs.values()),
                            sum(r.report.failed for r in self.runs.values()))

    def stop(self) -> None:
        """End the run now; `run()` returns the figures so far."""
        self._stopping = True
        if self._inner is not None and not self._inner.done():
            self._inner.cancel()

    async def run(self) -> ClusterLoadResult:
        p = self.plan
        # what the whole run is reported against: the balancer, or every node
        target = ", ".join(self.cluster.urls)
        try:
            if p.through_balancer:
                assert self.balancer_port is not None
                self.balancer = await start_haproxy(self.cluster.urls, port=self.balancer_port)
                balancer_url = target = f"http://127.0.0.1:{self.balancer_port}/mcp"
                via = f"HAProxy at {balancer_url}"
                self.runs = {"": LoadRun(self._load_plan(balancer_url, p.concurrency, p.rate), self.clock)}
            else:
                via = f"{len(self.cluster.nodes)} node(s) directly"
                workers = share(p.concurrency, len(self.cluster.nodes))
                self.runs = {f"node{node.index}": LoadRun(self._load_plan(
                    node.url, count, None if p.rate is None else p.rate * count / p.concurrency), self.clock)
                    for node, count in zip(self.cluster.nodes, workers, strict=True) if count}
            self._began = self.clock()
            self._inner = asyncio.gather(*(run.run() for run in self.runs.values()))
            try:
                await self._inner
            except asyncio.CancelledError:
                if not self._stopping:
                    raise
            seconds = self.clock() - self._began
        finally:
            if self.balancer is not None:
                await self.balancer.stop()
        whole = self._load_plan(target, p.concurrency, p.rate)
        if p.through_balancer:
            report = self.runs[""].report
            report.plan, report.seconds = whole, seconds
        else:
            report = merged(whole, self.runs, seconds)
        return ClusterLoadResult(report, via, stopped=self._stopping)
