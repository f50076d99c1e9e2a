"""Which worker group a test runs in (tests/groups.py): read from the test files, checked on the suite's own tests."""
import subprocess
import sys

from tests.conftest import ROOT
from tests.groups import group_of


def test_the_multihop_rag_graph_group_holds_its_takers_and_no_other_graphs_cases():
    paths = "tests/test_paths.py::test_paths_reach_supporting_documents_across_documents"
    assert group_of(f"{paths}[multihop_rag-mhr_graph]") == "mhr_graph"
    assert group_of(f"{paths}[hotpotqa-hotpot_graph]") == "tests/test_paths.py"  # by name, another graph
    mcq = "tests/test_mcq.py::test_every_converted_item_has_one_gold_and_distinct_options"
    assert group_of(f"{mcq}[multihop_rag-mhr_graph]") == "mhr_graph"
    assert group_of(f"{mcq}[hotpotqa-hotpot_graph]") == "tests/test_mcq.py"
    assert group_of("tests/test_graph.py::test_nodes_and_links_match_a_recomputation[demo_graph]") == \
        "tests/test_graph.py"
    assert group_of("tests/test_ray_build.py::test_ray_engine_builds_the_same_graph_as_the_local_engine_with_an_actor_killed_mid_build") == \
        "mhr_graph"


def test_sandbox_tests_share_a_group_and_the_rest_go_by_module():
    assert group_of("tests/test_sandbox.py::test_an_endless_loop_is_stopped") == "sandbox"
    assert group_of("tests/test_metrics.py::test_anything") == "tests/test_metrics.py"


def test_the_scheduler_hands_out_the_multihop_rag_group_first():
    from collections import OrderedDict

    import pytest

    pytest.importorskip("xdist")  # the dev extra's; without it conftest defines no scheduler

    import tests.conftest as conftest

    class Node:
        sent: list[list[int]] = []

        def send_runtest_some(self, indexes):
            self.sent.append(indexes)

    class Log:
        loadscopesched = staticmethod(lambda *args: None)

    class Config:
        getvalue = staticmethod(lambda name: ["popen", "popen"] if name == "tx" else None)

    scheduler = conftest.pytest_xdist_make_scheduler(Config(), Log())
    node = Node()
    scheduler.registered_collections = {node: ["a.py::t1", "a.py::t2", "m.py::t"]}
    scheduler.workqueue = OrderedDict([("a.py", {"a.py::t1": False, "a.py::t2": False}),
                                       (conftest.FIRST_GROUP, {"m.py::t": False})])
    scheduler.assigned_work = {}
    scheduler._assign_work_unit(node)
    assert list(scheduler.assigned_work[node]) == [conftest.FIRST_GROUP] and node.sent == [[2]]


def test_the_suite_runs_without_xdist():
    """`-p no:xdist` (or no xdist installed): the conftest's scheduler hook is optional, so pytest runs the tests
    instead of stopping at collection with an INTERNALERROR (unknown hook `pytest_xdist_make_scheduler`)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "tests/test_groups.py", "-k", "sandbox_tests_share"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert done.returncode == 0 and "1 passed" in done.stdout
