"""The cluster's replay comparison: the same replay against per-node memory and against a shared Redis.

Starts what it needs for one comparison and stops it at the end (or at once, from `terminate`, when
the studio closes the view): two 3-node `serve` clusters sharing a secret, one with each node's own
memory, one with `--store` naming a throw-away redis-server, optionally each behind a real HAProxy.
Where redis-server or haproxy is missing, that part is skipped with the package to install; the
rest still runs.
"""

import contextlib
from dataclasses import dataclass, field

from . import processes
from .cluster import Cluster, start_cluster
from .cluster_services import Service, free_port, install_hint, missing_programs, start_haproxy, start_redis
from .replay_across import ReplayReport, replay_across
from .task_across import TaskAcrossReport, task_across


@dataclass
class LabOutcome:
    memory: ReplayReport | None = None
    shared: ReplayReport | None = None
    #: What was skipped and why, with the package to install.
    notes: list[str] = field(default_factory=list)


class ReplayLab:
    """One comparison at a time; every process it starts is stopped when it ends or is terminated."""

    def __init__(self) -> None:
        self.clusters: list[Cluster] = []
        self.services: list[Service] = []

    async def compare(self, size: int = 3, through_balancer: bool = False) -> LabOutcome:
        with processes.tracked(self):  # whatever the app does, what this starts is stopped at exit
            return await self._compare(size, through_balancer)

    async def _compare(self, size: int, through_balancer: bool) -> LabOutcome:
        outcome = LabOutcome()
        missing = missing_programs()
        balancer = through_balancer and "haproxy" not in missing
        if through_balancer and not balancer:
            outcome.notes.append(f"haproxy is not installed ({install_hint({'haproxy': 'haproxy'})}): "
                                 "the replays go straight to each node instead.")
        try:
            outcome.memory = await self._one(size, "memory", balancer)
            if "redis-server" in missing:
                outcome.notes.append(f"redis-server is not installed ({install_hint({'r': 'redis-server'})}): "
                                     "the shared-store side is skipped.")
                return outcome
            redis = await start_redis()
            self.services.append(redis)
            outcome.shared = await self._one(size, redis.url, balancer, redis.shown_url)
        finally:
            await self.stop()
        return outcome

    async def task_across(self, size: int = 3, through_balancer: bool = False) -> tuple[TaskAcrossReport | None, str]:
        """`long_report` across a cluster sharing one redis-server; (None, why) when it cannot run here."""
        with processes.tracked(self):
            return await self._task_across(size, through_balancer)

    async def _task_across(self, size: int, through_balancer: bool) -> tuple[TaskAcrossReport | None, str]:
        missing = missing_programs()
        if "redis-server" in missing:
            return None, (f"redis-server is not installed ({install_hint({'r': 'redis-server'})}): "
                          "a task across nodes needs the shared store.")
        balancer = through_balancer and "haproxy" not in missing
        note = "" if balancer or not through_balancer else \
            f"haproxy is not installed ({install_hint({'haproxy': 'haproxy'})}): the requests go to each node."
        try:
            redis = await start_redis()
            self.services.append(redis)
            port = free_port() if balancer else None
            cluster = await start_cluster(size, shared_secret=True, store=redis.url, balancer_port=port)
            self.clusters.append(cluster)
            if not balancer:  # the report names the store without its password
                return await task_across(cluster.urls, redis.shown_url), note
            proxy = await start_haproxy(cluster.urls, port=port)
            self.services.append(proxy)
            return await task_across([proxy.url], redis.shown_url), note
        finally:
            await self.stop()

    async def _one(self, size: int, store: str, balancer: bool, shown: str | None = None) -> ReplayReport:
        """`store` as the nodes get it (its password too); `shown`: how the report names it."""
        port = free_port() if balancer else None
        cluster = await start_cluster(size, shared_secret=True, store=store, balancer_port=port)
        self.clusters.append(cluster)
        if not balancer:
            return await replay_across(cluster.urls, shown or store)
        proxy = await start_haproxy(cluster.urls, port=port)
        self.services.append(proxy)
        return await replay_across([proxy.url], shown or store, replays=size)

    @property
    def processes(self) -> list[int]:
        """Pids of everything running now (nodes, tethers), for the view's list."""
        pids = [node.process.pid for c in self.clusters for node in c.nodes if node.process.returncode is None]
        return pids + [s.process.pid for s in self.services if s.running]

    async def stop(self) -> None:
        clusters, self.clusters = self.clusters, []
        services, self.services = self.services, []
        for service in reversed(services):
            with contextlib.suppress(Exception):
                await service.stop()
        for cluster in clusters:
            await cluster.stop()

    def terminate(self) -> None:
        """SIGTERM everything at once, without waiting (the view is closing); tethers stop their programs."""
        for service in self.services:
            service.terminate()
        for cluster in self.clusters:
            for node in cluster.nodes:
                if node.process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        node.process.terminate()
