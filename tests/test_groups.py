"""Which worker group a test runs in (tests/groups.py): read from the test files, checked on the suite's own tests."""
import subprocess
import sys

from tests.conftest import ROOT
from tests.groups import group_of, takes_mhr_graph


def test_the_multihop_rag_graph_takers_are_found_and_no_other_graphs_cases():
    paths = "tests/test_paths.py::test_paths_reach_supporting_documents_across_documents"
    assert takes_mhr_graph(f"{paths}[multihop_rag-mhr_graph]")
    assert not takes_mhr_graph(f"{paths}[hotpotqa-hotpot_graph]")  # by name, another graph
    mcq = "tests/test_mcq.py::test_every_converted_item_has_one_gold_and_distinct_options"
    assert takes_mhr_graph(f"{mcq}[multihop_rag-mhr_slice_graph]")  # by name, the slice of the split (#47)
    assert takes_mhr_graph("tests/test_graph.py::test_nodes_and_links_match_a_recomputation[mhr_slice_graph]")
    assert not takes_mhr_graph(f"{mcq}[hotpotqa-hotpot_graph]")
    assert not takes_mhr_graph("tests/test_graph.py::test_nodes_and_links_match_a_recomputation[demo_graph]")
    assert takes_mhr_graph("tests/test_budget.py::test_every_stage_reports_progress_on_a_non_terminal")
    assert group_of(f"{paths}[multihop_rag-mhr_graph]") == group_of(f"{paths}[hotpotqa-hotpot_graph]") == \
        "tests/test_paths.py"
    ray = "tests/test_ray_build.py::test_ray_engine_builds_the_same_graph_as_the_local_engine_with_an_actor_killed_mid_build"
    assert group_of(ray) == "ray" and takes_mhr_graph(ray)


def test_sandbox_tests_share_a_group_and_the_rest_go_by_module():
    assert group_of("tests/test_sandbox.py::test_an_endless_loop_is_stopped") == "sandbox"
    assert group_of("tests/test_metrics.py::test_anything") == "tests/test_metrics.py"


def test_no_worker_waits_on_the_multihop_rag_graph_build():
    """One group that takes the graph goes out first (it builds it); the others that take it are held back, while
    groups that need no graph remain, until a test that took it has finished; then the queue's order again."""
    from collections import OrderedDict

    import pytest

    pytest.importorskip("xdist")  # the dev extra's; without it conftest defines no scheduler

    from tests import conftest

    class Node:
        shutting_down = False

        def __init__(self):
            self.sent: list[list[int]] = []

        def send_runtest_some(self, indexes):
            self.sent.append(indexes)

        def shutdown(self):
            self.shutting_down = True

    class Log:
        loadscopesched = staticmethod(lambda *args: None)

    class Config:
        getvalue = staticmethod(lambda name: ["popen", "popen"] if name == "tx" else None)

    takes = "tests/test_budget.py::test_every_stage_reports_progress_on_a_non_terminal"  # the MultiHop-RAG graph
    also = "tests/test_sample.py::test_path_follows_links_and_chunks_belong_to_entities"
    collection = ["a.py::t1", "a.py::t2", "a.py::t3", "b.py::t", "c.py::t", takes, also]
    scheduler = conftest.pytest_xdist_make_scheduler(Config(), Log())
    first, second = Node(), Node()
    scheduler.registered_collections = {first: collection, second: collection}
    units = {"a.py": collection[:3], "tests/test_sample.py": [also], "tests/test_budget.py": [takes],
             "b.py": ["b.py::t"], "c.py": ["c.py::t"]}
    scheduler.workqueue = OrderedDict((scope, dict.fromkeys(ids, False)) for scope, ids in units.items())
    scheduler.assigned_work = {}
    scheduler._assign_work_unit(first)  # the builder: the first group that takes the graph
    scheduler._assign_work_unit(second)  # not test_sample's (held back): the next group with no graph
    assert list(scheduler.assigned_work[first]) == ["tests/test_sample.py"] and first.sent == [[6]]
    assert list(scheduler.assigned_work[second]) == ["a.py"] and second.sent == [[0, 1, 2]]
    scheduler.mark_test_complete(second, 0)  # no graph taken yet: test_budget's group is still held back
    assert list(scheduler.assigned_work[second]) == ["a.py", "b.py"] and second.sent[-1] == [3]
    scheduler.mark_test_complete(first, 6)  # a taker finished: the graph is built, the queue's order again
    assert list(scheduler.assigned_work[first]) == ["tests/test_sample.py", "tests/test_budget.py"]
    assert first.sent[-1] == [5] and list(scheduler.workqueue) == ["c.py"]


def test_held_groups_go_out_when_nothing_else_is_left():
    import pytest

    pytest.importorskip("xdist")
    from collections import OrderedDict

    from tests.schedule import ByGroup

    scheduler = ByGroup.__new__(ByGroup)
    scheduler.graph_built, scheduler.builder_out = False, True
    scheduler.workqueue = OrderedDict([("tests/test_budget.py", {
        "tests/test_budget.py::test_every_stage_reports_progress_on_a_non_terminal": False})])
    assert scheduler.next_scope() == "tests/test_budget.py"


def test_the_suite_runs_without_xdist():
    """`-p no:xdist` (or no xdist installed): the conftest's scheduler hook is optional, so pytest runs the tests
    instead of stopping at collection with an INTERNALERROR (unknown hook `pytest_xdist_make_scheduler`)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "tests/test_groups.py", "-k", "sandbox_tests_share"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert done.returncode == 0 and "1 passed" in done.stdout
