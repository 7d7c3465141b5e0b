"""combine: RJAG's task-adaptive knowledge combination.

The task type picks the strategy (open- or closed-ended); the strategy, evaluated
lazily over the labelled sets (`core.strategies`), picks the knowledge. When it reaches
K_W before the web was searched, the node asks for a web search instead of answering;
with no web backend (`web_search="none"`) K_W is empty and no search is asked for, so
the run's route says the web was not searched.

With progressive selection (`sufficiency="progressive"`), a supporting set D that
Verify(q, D) accepted is the knowledge, exactly (GGatrieval's output); when no round
verified its D, the strategy decides as above.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.conflicts import disagreement
from judged_rag.core.judgments import alternatives_asked, labelled_sets, latest_judgments
from judged_rag.core.strategies import NeedsWeb, cap, evaluate, parse_strategy, within_chars
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import Doc, State, TraceEvent


def combine(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Build the reference knowledge for the generator, or ask for the web first."""
    cfg = deps.configuration(config, runtime)
    task = state.get("resolved_task", "open")
    if cfg.sufficiency == "progressive" and state.get("sufficient") and state.get("selected"):
        return _verified(state, cfg, task)
    strategy = cfg.closed_strategy if task == "closed" else cfg.open_strategy
    labelled = labelled_sets(state)
    sets = {
        "D_H": labelled["highly_relevant"],
        "D_S": labelled["somewhat_relevant"],
        "D_N": labelled["not_relevant"],
        "K_W": state.get("web_results") or [],
    }
    web_searched = state.get("web_searched", False)
    web_off = cfg.web_search == "none"
    try:
        chosen = evaluate(parse_strategy(strategy), sets, web_searched=web_searched or web_off)
    except NeedsWeb:
        return {
            "needs_web": True,
            "combination": strategy,
            "trace": [event("combine", "needs_web", strategy=strategy, task_type=task)],
        }
    by_count = cap(
        _with_hop(state, chosen), cfg.max_knowledge, highly=frozenset(d["id"] for d in sets["D_H"])
    )
    knowledge = within_chars(by_count, cfg.max_knowledge_chars)
    sizes = {name: len(docs) for name, docs in sets.items() if name != "K_W" or web_searched}
    return _compared(
        state,
        cfg,
        {
            "needs_web": False,
            "combination": strategy,
            "knowledge": knowledge,
            "trace": [
                event(
                    "combine",
                    "combined",
                    strategy=strategy,
                    task_type=task,
                    sets=sizes,
                    chosen=[d["id"] for d in knowledge],
                    dropped=len(chosen) - len(knowledge),
                    dropped_by_count=len(chosen) - len(by_count),
                    dropped_by_chars=len(by_count) - len(knowledge),
                    **({"web": "off"} if web_off else {}),
                )
            ],
        },
    )


def _with_hop(state: State, chosen: list[Doc]) -> list[Doc]:
    """`chosen`, headed by the document that named what the question now names.

    Only when something else was chosen: the names alone answer nothing. Of a nested
    description's naming pages only the last heads it ("Project Solan is sponsored by
    Vukonak Drineik" for "When is Project Solan planned to go live?"); the earlier ones
    name what the question no longer holds, and with them ahead of it the bundled
    generator cited the page that named the head of finance for the go-live date.
    """
    naming = hops.naming_documents(state)
    if not chosen or not naming:
        return chosen
    docs = {d["id"]: d for d in state.get("documents") or []}
    named = [docs[i] for i in naming[-1:] if i in docs]
    return [*named, *(d for d in chosen if d["id"] not in naming)]


VERIFIED = "D (verified)"
"""The combination named in the route when the generator reads GGatrieval's verified D."""


def _verified(state: State, cfg: Configuration, task: str) -> dict[str, Any]:
    """The supporting set D that Verify(q, D) accepted, in its selection order, as it is."""
    docs = {d["id"]: d for d in state.get("documents") or []}
    knowledge = [docs[i] for i in state.get("selected") or [] if i in docs]
    return _compared(
        state,
        cfg,
        {
            "needs_web": False,
            "combination": VERIFIED,
            "knowledge": knowledge,
            "trace": [
                event(
                    "combine",
                    "combined",
                    strategy=VERIFIED,
                    task_type=task,
                    sets={"D": len(knowledge)},
                    chosen=[d["id"] for d in knowledge],
                    dropped=0,
                )
            ],
        },
    )


def _compared(state: State, cfg: Configuration, update: dict[str, Any]) -> dict[str, Any]:
    """The combination's update with its knowledge's conflict (`core.conflicts`).

    A conflict is also an event of the trace, after the combination's. A question that
    offers names to choose between has none (each page answers for its own name), nor
    does a closed-ended task: its answer is one of its options, which the generator
    picks and the verifier reads as such. The pages that named what the question
    describes (`core.hops`) state the bridge, not the answer: they are left out.
    """
    knowledge: list[Doc] = update["knowledge"]
    closed = state.get("resolved_task") == "closed"
    asked = closed or alternatives_asked(state, cfg)
    judged = latest_judgments(state)
    for naming in hops.naming_documents(state):
        judged.pop(naming, None)
    conflict = None if asked else disagreement(knowledge, judged, state["question"])
    if conflict is None:
        return {**update, "conflict": None}
    found: TraceEvent = event(
        "combine",
        "conflict",
        kind=conflict["kind"],
        values=[
            {"value": v["value"][:120], "documents": v["numbers"], "date": v["date"]}
            for v in conflict["values"]
        ],
    )
    return {**update, "conflict": conflict, "trace": [*update["trace"], found]}
