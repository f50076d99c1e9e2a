"""The context graph: build (Algorithm 3), store, load and sample knowledge paths (Algorithm 4)."""
from .build import build_graph
from .model import ContextGraph, Link
from .sample import KnowledgePath, PathSampler, sample_path
from .store import load_graph, save_graph

__all__ = ["ContextGraph", "KnowledgePath", "Link", "PathSampler", "build_graph", "load_graph",
           "sample_path", "save_graph"]
