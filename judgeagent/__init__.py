"""judgeagent: interviewer-style LLM evaluation on a knowledge graph (the JudgeAgent method).

Heavy libraries (torch, spaCy, FAISS) load inside the functions that need them, so importing this
package and `judgeagent --help` stay fast.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .threads import passive_openmp
from .version import __version__  # noqa: F401  (re-exported)

passive_openmp()  # before torch loads: it reads the setting once

_LAZY = {
    "build_graph": "judgeagent.graph.build",
    "load_graph": "judgeagent.graph.store",
    "save_graph": "judgeagent.graph.store",
    "sample_path": "judgeagent.graph.sample",
    "PathSampler": "judgeagent.graph.sample",
    "KnowledgePath": "judgeagent.graph.sample",
    "ContextGraph": "judgeagent.graph.model",
    "read_corpus": "judgeagent.corpus",
    "GraphConfig": "judgeagent.config",
    "ChunkConfig": "judgeagent.config",
    "EntityConfig": "judgeagent.config",
    "IndexConfig": "judgeagent.config",
    "FieldMap": "judgeagent.config",
    "EvalConfig": "judgeagent.protocols.judgeagent.config",
    "evaluate": "judgeagent.protocols.judgeagent.evaluate",
    "evaluate_async": "judgeagent.protocols.judgeagent.evaluate",
    "run_protocol": "judgeagent.protocols",
    "run_protocol_async": "judgeagent.protocols",
    "load_benchmark": "judgeagent.benchmark",
    "load_run": "judgeagent.runs",
    "JudgeAgentError": "judgeagent.errors",
}

if TYPE_CHECKING:  # for type checkers: the names `__getattr__` serves (`__all__` is computed, so ruff sees no use)
    from .config import ChunkConfig, EntityConfig, FieldMap, GraphConfig, IndexConfig  # noqa: F401
    from .corpus import read_corpus  # noqa: F401
    from .errors import JudgeAgentError  # noqa: F401
    from .graph import (  # noqa: F401
        ContextGraph,
        KnowledgePath,
        PathSampler,
        build_graph,
        load_graph,
        sample_path,
        save_graph,
    )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = sorted(_LAZY)
