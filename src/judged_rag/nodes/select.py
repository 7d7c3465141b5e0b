"""select: GGatrieval's re-ranking, LLatrieval's progressive selection, then Verify(q, D).

Algorithm 1, lines 13-18, once per retrieve-judge round (`sufficiency="progressive"`):

- D_o: the round's judged documents re-ranked by alignment label (Full > Partial > No),
  then by SRA's composite score S (`core.selection.rerank`);
- for each sliding window D_o* of `selection_window` documents of D_o, the LLM selects
  `max_knowledge` documents from D ∪ D_o* (shown re-ranked); the supporting set D
  carries over from round to round. When D ∪ D_o* holds no more than that, all of it
  is kept without a call: there is nothing to choose;
- Verify(q, D): whether D supports an answer. Yes ends the loop, and D, in its
  selection order, is exactly the knowledge `combine` hands the generator.

An unreadable selection keeps the re-ranking's best (recorded); an unreadable Verify
says no (recorded); a spent budget stops the selection where it is and skips Verify. A
round that leaves D as an earlier round's Verify refused it is not verified again.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import Outcome
from judged_rag.configuration import Configuration
from judged_rag.core.budget import ANSWERING, charged, exhausted
from judged_rag.core.documents import numbered
from judged_rag.core.judgments import latest_judgments
from judged_rag.core.selection import picks, rerank, windows
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import select as prompt
from judged_rag.schemas import DocumentSelection, SupportCheck
from judged_rag.state import Cost, Doc, State, TraceEvent, add_costs, zero_cost


def select(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Select the supporting set D from this round's documents, and verify it."""
    cfg = deps.configuration(config, runtime)
    iteration = state.get("iteration", 0)
    judged = latest_judgments(state)
    docs = {d["id"]: d for d in state.get("documents") or []}
    chosen = before = [i for i in state.get("selected") or [] if i in docs]
    this_round = [
        d for d in docs.values() if d["id"] in judged and judged[d["id"]]["iteration"] == iteration
    ]
    ranked = rerank(this_round, judged)
    events: list[TraceEvent] = [
        event(
            "select",
            "reranked",
            iteration=iteration,
            order=[d["id"] for d in ranked],
            alignment=[judged[d["id"]]["alignment"] for d in ranked],
            scores=[judged[d["id"]]["composite_score"] for d in ranked],
        )
    ]
    cost: Cost = zero_cost()
    for number, window in enumerate(windows(ranked, cfg.selection_window)):
        pool = rerank([*(docs[i] for i in chosen), *window], judged)
        picked = _from_window(charged(state, cost), config, cfg, deps, pool, number, events)
        if picked is None:
            break  # the budget is spent: the selection stops where it is
        chosen, window_cost = picked
        cost = add_costs(cost, window_cost)
    sufficient = False
    if chosen and chosen == before:
        # The set an earlier round's Verify refused, unchanged: the same question, the same
        # documents, the same answer; no call.
        events.append(event("select", "unchanged", selected=chosen))
    elif chosen:
        supporting = [docs[i] for i in chosen]
        verdict = _verify(charged(state, cost), config, cfg, deps, supporting, events)
        if verdict is not None:
            events.extend(verdict.events)
            cost, sufficient = add_costs(cost, verdict.cost), verdict.value.sufficient
    events.append(
        event("select", "verified", iteration=iteration, selected=chosen, sufficient=sufficient)
    )
    out_of_budget = exhausted(charged(state, cost), cfg, keep=(*ANSWERING, "rewrite"))
    if out_of_budget:
        events.append(event("select", "budget", exhausted=out_of_budget, stops="the rewrite loop"))
    return {
        "selected": chosen,
        "sufficient": sufficient,
        "budget_exhausted": out_of_budget,
        "cost": cost,
        "trace": events,
    }


def _from_window(
    spent: dict[str, Any],
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    pool: list[Doc],
    number: int,
    events: list[TraceEvent],
) -> tuple[list[str], Cost] | None:
    """D chosen from D ∪ D_o* (`pool`, re-ranked), and the cost of choosing.

    All of the pool when it holds no more than `max_knowledge` (no call); else the
    LLM's selection, or the re-ranking's best when the reply is unreadable or unusable.
    None: the budget is spent before the call.
    """
    offered = [d["id"] for d in pool]
    shown = {"window": number, "offered": offered}
    if len(offered) <= cfg.max_knowledge:
        events.append(event("select", "window", **shown, selected=offered, by="all"))
        return offered, zero_cost()
    step = deps.step("select", spent, config, cfg, keep=ANSWERING)
    if step.exhausted:
        events.append(event("select", "budget", exhausted=step.exhausted, window=number))
        return None
    user = prompt.USER.format(
        question=spent["question"], documents=numbered(pool), count=cfg.max_knowledge
    )
    best = list(range(1, cfg.max_knowledge + 1))
    outcome = step.structured(
        DocumentSelection,
        [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
        default=DocumentSelection(selected=best),
    )
    events.extend(outcome.events)
    by = "rank" if outcome.fallback else "llm"
    chosen = picks(outcome.value.selected, offered, cfg.max_knowledge)
    if not chosen:
        events.append(event("select", "unusable", window=number, reply=outcome.value.selected))
        chosen, by = offered[: cfg.max_knowledge], "rank"
    events.append(event("select", "window", **shown, selected=chosen, by=by))
    return chosen, outcome.cost


def _verify(
    spent: dict[str, Any],
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    supporting: list[Doc],
    events: list[TraceEvent],
) -> Outcome[SupportCheck] | None:
    """Verify(q, D): the LLM's word on whether the supporting set answers the question.

    None: the budget is spent, and the call skipped (recorded). An unreadable reply
    says no (recorded in the outcome's events).
    """
    step = deps.step("select", spent, config, cfg, keep=ANSWERING)
    if step.exhausted:
        events.append(event("select", "budget", exhausted=step.exhausted, skipped="verify"))
        return None
    user = prompt.VERIFY_USER.format(question=spent["question"], documents=numbered(supporting))
    return step.structured(
        SupportCheck,
        [SystemMessage(prompt.VERIFY_SYSTEM), HumanMessage(user)],
        default=SupportCheck(sufficient=False),
    )
