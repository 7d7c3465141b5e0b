"""The workflow's wiring: `build_graph` and the pure routing functions."""

from judged_rag.graph.builder import build_graph

__all__ = ["build_graph"]
