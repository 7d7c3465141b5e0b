"""gate: the Context Awareness Gate (CAG, Vector Candidates), LLM-free.

At index time pseudo-queries were written for a sample of chunks and their similarities
to their own chunk stored. A question goes to retrieval when its best similarity to
any chunk reaches the chosen percentile of that distribution (minus a margin); else
the model answers directly. Without a distribution the gate retrieves and says so,
naming the gate the question got: "none" (built without one), "building" (its
pseudo-queries are being written in the background) or "failed".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import ReportsGateProgress
from judged_rag.configuration import Configuration
from judged_rag.core.trace import event
from judged_rag.errors import error_detail
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import State, TraceEvent


def gate(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Decide whether the question needs the knowledge base."""
    cfg = deps.configuration(config, runtime)
    events: list[TraceEvent] = []
    route, detail = decide_route(state["question"], deps, cfg, events)
    events.append(event("gate", "route", route=route, **detail))
    return {"gate_route": route, "trace": events}


def decide_route(
    question: str, deps: NodeDeps, cfg: Configuration, events: list[TraceEvent]
) -> tuple[str, dict[str, Any]]:
    """The gate's route for a question, and what it was decided from (s_max, cut-off)."""
    if not cfg.gate:
        return "retrieve", {"why": "gate disabled"}
    try:
        index = deps.components.gate(cfg)
        distribution = index.gate_similarities if index is not None else None
        if index is None or not distribution:
            return "retrieve", without_distribution(index)
        s_max = float(index.max_similarity(question))
    except Exception as exc:
        failure = error_detail(exc, redact=deps.settings.remote, where="gate")
        events.append(event("gate", "error", **failure))
        return "retrieve", {"why": "gate failed; retrieving", "gate": "error"}
    cutoff = float(np.percentile(np.asarray(distribution, dtype=float), cfg.gate_percentile))
    cutoff -= cfg.gate_threshold
    route = "retrieve" if s_max >= cutoff else "direct"
    return route, {
        "gate": "ready",
        "s_max": round(s_max, 4),
        "cutoff": round(cutoff, 4),
        "percentile": cfg.gate_percentile,
        "threshold": cfg.gate_threshold,
        "samples": len(distribution),
    }


def without_distribution(index: object) -> dict[str, Any]:
    """Why a question is retrieved when the index has no gate yet, and which gate it got.

    "building": its pseudo-queries are being written in the background; "failed": that
    job failed (its log says why); "none": the index was built without them.
    """
    progress = index.gate_progress() if isinstance(index, ReportsGateProgress) else None
    if progress is not None and progress.state == "building":
        return {
            "why": f"the gate is being built in the background ({progress.done} of "
            f"{progress.total} pseudo-queries); retrieving",
            "gate": "building",
            "done": progress.done,
            "total": progress.total,
        }
    if progress is not None and progress.state == "failed":
        return {"why": "the gate's background build failed; retrieving", "gate": "failed"}
    return {"why": "no similarity distribution in the index; retrieving", "gate": "none"}
