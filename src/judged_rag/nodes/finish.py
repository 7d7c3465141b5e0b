"""finish: where every run ends — the verdict becomes the output, the accounting closes.

The route summary, the run's wall time and the final trace entry are written here; an
abstention's answer becomes "Unknown". The inputs are cleared, because on a server
thread the next run must not inherit this run's options or task type.
"""

from __future__ import annotations

import time
from typing import Any

from judged_rag.core import hops
from judged_rag.core.trace import event
from judged_rag.state import UNKNOWN, RouteSummary, State, zero_cost


def finish(state: State) -> dict[str, Any]:
    """Close the run: its output, route summary and cost."""
    return close_run(state)


def close_run(state: Any) -> dict[str, Any]:
    """The update that ends a run, from its verdict, basis and reason in state."""
    abstained = state.get("verdict") != "accept"
    basis = state.get("basis") or "none"
    reason = state.get("reason")
    started = state.get("started_at") or time.time()
    retrieved = state.get("gate_route") == "retrieve"
    route = RouteSummary(
        task_type=state.get("resolved_task", "open"),
        gate=_gate(state),
        iterations=state.get("iteration", 0) + 1 if retrieved else 0,
        web_searched=state.get("web_searched", False),
        combination=state.get("combination", "") if retrieved else "",
        knowledge=len(state.get("knowledge") or []),
        regenerations=state.get("regenerations", 0),
    )
    hop = hops.summary(state.get("hop"))
    if hop is not None:
        route["hop"] = hop
    conflict = state.get("conflict")
    if conflict:
        route["conflict"] = conflict["kind"]
    if state.get("reopened"):
        route["reopened"] = True
    closing = event("finish", "abstained" if abstained else "accepted", reason=reason, basis=basis)
    update: dict[str, Any] = {
        "abstained": abstained,
        "basis": "none" if abstained else basis,
        "route": route,
        "cost": {**zero_cost(), "seconds": round(time.time() - started, 3)},
        "trace": [closing],
        # Inputs belong to one run: a thread's next run must not inherit these.
        "options": None,
        "task_type": None,
    }
    if abstained:
        update["answer"] = UNKNOWN
        update["citations"] = []
    return update


def _gate(state: Any) -> str:
    """The gate's route as the summary gives it: "retrieve", "direct" or "direct→retrieve".

    "direct→retrieve": the model declined a question the gate sent to it, and the run
    retrieved after all.
    """
    if state.get("gate_fallback", "no") != "no":
        return "direct→retrieve"
    return str(state.get("gate_route", "retrieve"))
