"""The Cluster view's load, Qt-free: workers shared out among the nodes, the per-node runs merged into one
report whose whole-cluster figures come from every node's samples, and settings that cannot run refused."""

import pytest

from mrtr_studio.replay.load import LoadPlan, LoadRun, Workload, percentiles
from mrtr_studio.studio.cluster_load import ClusterLoad, ClusterLoadPlan, merged, share
from mrtr_studio.teaching.cluster import Cluster


def test_workers_are_shared_out_as_evenly_as_whole_workers_go() -> None:
    assert share(4, 2) == [2, 2]
    assert share(5, 3) == [2, 2, 1]
    assert share(1, 3) == [1, 0, 0]


def test_per_node_runs_merge_into_one_report() -> None:
    plan = LoadPlan("http://127.0.0.1:1/mcp", Workload("delete_file", {}, 2, 1.0))
    runs = {"node0": LoadRun(plan), "node1": LoadRun(plan)}
    for run, flows in zip(runs.values(), ([10.0, 20.0], [30.0]), strict=True):
        run.report.completed = len(flows)
        run.report.total.flows = list(flows)
        run.report.total.rounds = {1: [f / 2 for f in flows], 2: [f / 2 for f in flows]}
    runs["node1"].report.failed = 1
    runs["node1"].report.total.errors = {"-32602 signature": 1}
    report = merged(plan, runs, seconds=2.0)
    document = report.to_json()
    assert document["completed"] == 3 and document["failed"] == 1 and document["flows_per_second"] == 1.5
    assert document["flow"] == percentiles([10.0, 20.0, 30.0])
    assert document["rounds"]["2"] == percentiles([5.0, 10.0, 15.0])
    assert document["errors"] == {"-32602 signature": 1}
    assert document["nodes"]["node0"]["flow"] == percentiles([10.0, 20.0])
    assert document["nodes"]["node1"]["errors"] == {"-32602 signature": 1}


@pytest.mark.parametrize(("plan", "says"), [
    (ClusterLoadPlan(" "), "name the tool"),
    (ClusterLoadPlan("t", concurrency=0), "concurrency must be at least 1"),
    (ClusterLoadPlan("t", duration=0), "duration must be over 0"),
    (ClusterLoadPlan("t", duration=10_000), "at most 600 s"),
    (ClusterLoadPlan("t", rate=-1), "rate must be over 0"),
])
def test_settings_that_cannot_run_are_refused(plan: ClusterLoadPlan, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        plan.check()


def test_a_cluster_without_nodes_is_refused() -> None:
    with pytest.raises(ValueError, match="no node"):
        ClusterLoad(Cluster(), ClusterLoadPlan("delete_file"))
