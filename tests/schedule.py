"""The two workers' scheduler (`make test`, `make test-fast`): xdist's load-by-scope, with tests/groups.py's
groups as the scopes, ordered so that no worker waits on the MultiHop-RAG graph's build.

The graph is the run's costliest fixture (its build was ~100 s of a 3 min 42 s cold `make test-fast`), and it is
built once a run (tests/graph_cache.py): the first worker to take it builds it, and another that asks meanwhile
waits on the lock. So one group that takes it (the "builder") goes out first, and the other groups that take it
are held back until a test that took it has finished anywhere (the graph is then built, and a worker that asks
for it copies and loads it): meanwhile the other worker runs the groups that need no graph. When only held groups
are left, they go out anyway (a worker may then wait on the lock, which is correct, only slower), so the run never
stalls. Imported by tests/conftest.py only when pytest-xdist is installed."""
from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadScopeScheduling

from tests.groups import group_of, takes_mhr_graph


class ByGroup(LoadScopeScheduling):  # type: ignore[misc]
    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self.graph_built = False
        self.builder_out = False

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)

    def _takes_graph(self, scope: str) -> bool:
        return any(takes_mhr_graph(nodeid) for nodeid in self.workqueue[scope])

    def next_scope(self) -> str:
        """The scope to hand out next (xdist's queue is ordered by test count, most first)."""
        scopes = list(self.workqueue)
        if self.graph_built:
            return scopes[0]
        if not self.builder_out:
            builder = next((s for s in scopes if self._takes_graph(s)), None)
            if builder is not None:
                self.builder_out = True
                return builder
        return next((s for s in scopes if not self._takes_graph(s)), scopes[0])

    def _assign_work_unit(self, node: Any) -> None:
        self.workqueue.move_to_end(self.next_scope(), last=False)
        super()._assign_work_unit(node)

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        if not self.graph_built and takes_mhr_graph(self.registered_collections[node][item_index]):
            self.graph_built = True  # its setup built the graph (or copied it from the edit loop's cache)
        super().mark_test_complete(node, item_index, duration)
