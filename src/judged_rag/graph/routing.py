"""Pure routing functions: they read state (and configuration), never call anything.

Each returns the names of nodes (`Literal`), so the server and `draw_mermaid()` can
draw every edge. Loops are bounded here by counters that nodes keep in state.

A router that needs the run's settings reads them as every node does, through
`NodeDeps.configuration` (`build_graph` hands routers and nodes the same `NodeDeps`):
one resolver, so a router budgets with the judge the nodes really run (`judge="auto"`
resolved by the judge's model, an unset `t_m` by its measured value).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Send

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.budget import ANSWERING, rounds_left, spare
from judged_rag.nodes.judge.strategies import (
    affordable_documents,
    batched,
    judge_tasks,
    strategy,
)
from judged_rag.nodes.step import DEFAULT_DEPS, NodeDeps
from judged_rag.state import State


def route_after_gate(state: State) -> Literal["parse", "integrate"]:
    """Retrieve (through parse) when the gate says the question needs the knowledge base."""
    return "parse" if state.get("gate_route") == "retrieve" else "integrate"


def route_after_retrieve(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any] | None = None,
    *,
    deps: NodeDeps = DEFAULT_DEPS,
) -> list[Send] | Literal["assess"]:
    """One judge task per new document; straight to the join when there is none.

    With the list judge, one task per window of up to `judge_window` documents (one
    call each). Only as many documents are judged as the LLM-call budget allows after
    keeping the answer's calls back (the best-ranked first); with `judge_batch`, at most
    that many, the rest staying pending for `route_after_assess`. An empty list of
    `Send`s would silently end the run, hence the explicit join.
    """
    cfg = deps.configuration(config, runtime)
    pending = set(state.get("pending") or [])
    docs = [d for d in state.get("documents") or [] if d["id"] in pending]
    affordable = spare(state, cfg, *ANSWERING)
    judge = strategy(cfg)
    parts = state.get("query_parts") or []
    # A reflecting judgment is followed by its review (two calls); ChunkRAG's judge
    # scores, reconsiders and has a critic score again (three); judging off makes none.
    made = judge.calls_per_task(cfg, parsed=bool(parts))
    docs = affordable_documents(judge, cfg, docs, affordable, parsed=bool(parts))
    if batched(cfg):
        docs = docs[: cfg.judge_batch]
    if not docs or state.get("budget_exhausted"):
        return "assess"
    tasks = math.ceil(len(docs) / judge.documents_per_task(cfg))
    # Calls left over after those every task needs are shared out for retries.
    per_task = max(made, 1)
    calls = max(per_task, per_task + (affordable - per_task * tasks) // tasks)
    return [
        Send("judge", task)
        for task in judge_tasks(
            judge,
            cfg,
            docs,
            question=hops.for_judge(state),
            iteration=state.get("iteration", 0),
            calls=calls,
            parts=parts,
            roles=state.get("query_roles") or {},
            hop=hops.pending(state),
        )
    ]


def route_after_assess(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any] | None = None,
    *,
    deps: NodeDeps = DEFAULT_DEPS,
) -> list[Send] | Literal["select", "rewrite", "combine"]:
    """Rewrite while the support is insufficient and the iteration budget allows.

    With `judge_batch`, the round's next batch is judged first, while the support is
    insufficient and documents of the round are still pending (each batch judges at
    least one, so the round ends). With `stop_when_stalled`, a rewrite happens only
    while the last one found something better than the rounds before it (a stalled
    loop goes to combine). With progressive selection, every round goes through
    `select` first (while the budget lasts).
    """
    cfg = deps.configuration(config, runtime)
    if cfg.sufficiency == "progressive" and not state.get("budget_exhausted"):
        return "select"
    waiting = state.get("pending") and not state.get("budget_exhausted")
    if batched(cfg) and waiting and not state.get("sufficient"):
        batch = route_after_retrieve(state, config, runtime, deps=deps)
        if batch != "assess":
            return batch
    return _next_round(state, cfg)


def route_after_select(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any] | None = None,
    *,
    deps: NodeDeps = DEFAULT_DEPS,
) -> Literal["rewrite", "combine"]:
    """Combine once Verify(q, D) said yes; otherwise rewrite, as after assess."""
    return _next_round(state, deps.configuration(config, runtime))


def _next_round(state: State, cfg: Configuration) -> Literal["rewrite", "combine"]:
    """Another round (rewrite) or the answer (combine): GGatrieval's loop, bounded."""
    if state.get("sufficient") or state.get("budget_exhausted"):
        return "combine"
    if state.get("verdict") == "reopen":
        return "combine"  # judging reopened after a decline: no new round
    if cfg.stop_when_stalled and state.get("stalled"):
        return "combine"
    if rounds_left(state, cfg) > 0:
        return "rewrite"
    return "combine"


def route_after_combine(state: State) -> Literal["web_search", "integrate", "finish"]:
    """Search the web only when the strategy reached K_W and it was not searched yet.

    After a decline reopened the judging, a combination that gives the generator the
    documents it declined on ends the run: the decline stands, with no second draft.
    """
    if state.get("verdict") == "reopen":
        declined = state.get("declined_knowledge") or []
        if [d["id"] for d in state.get("knowledge") or []] == declined:
            return "finish"
    if state.get("needs_web") and not state.get("web_searched"):
        return "web_search"
    return "integrate"


def route_after_integrate(state: State) -> Literal["generate", "finish", "parse"]:
    """Generate R_R, R_C or R_M; SRA's "Unknown" ends the run without a generation call.

    A question the gate sent to the model, which the model is not confident of, goes to
    retrieval instead (`integrate` marks it `gate_fallback`, once a run).
    """
    if state.get("gate_fallback") == "retrieving":
        return "parse"
    return "finish" if state.get("basis") == "none" else "generate"


def route_after_verify(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any] | None = None,
    *,
    deps: NodeDeps = DEFAULT_DEPS,
) -> list[Send] | Literal["assess", "generate", "finish"]:
    """Regenerate when verify asked for it and the regeneration budget allows.

    After a decline verify may reopen the judging (`judge_after_decline`): the next
    unjudged documents go to the judge as a round's pending batch would.
    """
    if state.get("verdict") == "reopen":
        return route_after_retrieve(state, config, runtime, deps=deps)
    budget = deps.configuration(config, runtime).max_regenerations
    if state.get("verdict") == "regenerate" and state.get("regenerations", 0) <= budget:
        return "generate"
    return "finish"
