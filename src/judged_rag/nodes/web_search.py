"""web_search: keyword query to the injected search backend (RJAG).

Reached only when the combination strategy needs K_W. The question is rewritten into
keywords; results become documents with their source and reliability grade, the most
authoritative first. Web results are not judged (RJAG combines them as they come), so
with `subject_check` a result that does not name what the question asks about is
dropped here, without an LLM: a page on "Longevity" or "Ulaanbaatar" is no evidence about
a person or a company the question names. With `judge_web`, the run's judge judges them
as it judges retrieved chunks, and K_W keeps those it did not find Not Relevant, best
first (results the call budget leaves unjudged follow, as they came). A missing or
failing backend is recorded and the run goes on without web knowledge.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.budget import ANSWERING, charged, spare
from judged_rag.core.documents import to_doc
from judged_rag.core.judgments import judged_score
from judged_rag.core.quotes import names_subject, subject_names
from judged_rag.core.scores import GRADES
from judged_rag.core.screen import screen_found
from judged_rag.core.trace import event
from judged_rag.errors import error_detail
from judged_rag.nodes.judge.strategies import affordable_documents, judge_tasks, strategy
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import web_search as prompt
from judged_rag.schemas import SearchQuery
from judged_rag.state import (
    Cost,
    Doc,
    Judgment,
    State,
    TraceEvent,
    add_costs,
    zero_cost,
)

MAX_LISTED = 10
"""Dropped results and subjects named in the trace (a backend may return many)."""


def web_search(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Search the web for the question and keep the results as K_W."""
    cfg = deps.configuration(config, runtime)
    question = state["question"]
    events: list[TraceEvent] = []
    out: dict[str, Any] = {"web_searched": True, "web_results": [], "needs_web": False}
    redact = deps.settings.remote
    try:
        backend = deps.components.web(cfg)
    except Exception as exc:
        events.append(
            event("web_search", "error", **error_detail(exc, redact=redact, where="web_search"))
        )
        return {**out, "trace": events}
    if backend is None:
        events.append(event("web_search", "skipped", why="no web-search backend configured"))
        return {**out, "trace": events}
    query, cost = _keywords(state, config, cfg, deps, events)
    try:
        found = backend.invoke(query, config)
    except Exception as exc:
        failure = error_detail(exc, redact=redact, where="web_search")
        events.append(event("web_search", "error", query=query, **failure))
        return {**out, "cost": cost, "trace": events}
    iteration = state.get("iteration", 0)
    docs = [
        to_doc(d, origin="web", iteration=iteration, reliability="F", served=redact) for d in found
    ]
    if cfg.screen_instructions:
        docs = screen_found(docs, "web_search", query, events)
    docs = [d for d in docs if d["content"].strip()]
    if cfg.subject_check:
        docs = _about_the_subject(question, docs, events)
    docs = docs[: cfg.web_k]
    docs, scale = _on_the_knowledge_base_scale(question, docs, deps, cfg, events)
    docs.sort(key=lambda d: -GRADES[d["reliability"]])  # stable: backend rank within a grade
    events.append(
        event(
            "web_search",
            "searched",
            query=query,
            results=len(docs),
            sources=[d["source"] for d in docs],
            similarity=scale,
        )
    )
    if not (cfg.judge_web and docs):
        return {**out, "web_results": docs, "cost": cost, "trace": events}
    judged = _judged(state, config, cfg, deps, docs, spent=cost)
    return {
        **out,
        "web_results": judged.docs,
        "judgments": judged.judgments,
        "cost": add_costs(cost, judged.cost),
        "trace": [*events, *judged.events],
    }


class _Judged(NamedTuple):
    """Web results after the judge: those kept, the judgments, their cost and events."""

    docs: list[Doc]
    judgments: list[Judgment]
    cost: Cost
    events: list[TraceEvent]


def _judged(
    state: State,
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    docs: list[Doc],
    *,
    spent: Cost,
) -> _Judged:
    """The web results judged against the question (`judge_web`): Not Relevant ones dropped.

    As a round of retrieved chunks is judged (`graph.routing.route_after_retrieve`):
    against the question the round asks, the answer's calls kept back from the budget,
    one task a document (a window with the list judge), then the strategy's join. Judged
    results come first, best judge score first; those the budget left unjudged follow.
    """
    chosen = strategy(cfg)
    # `spent`: this node's own calls (the keywords), not yet in the run's cost.
    affordable = spare(charged(state, spent), cfg, *ANSWERING)
    parts = state.get("query_parts") or []
    judging = affordable_documents(chosen, cfg, docs, affordable, parsed=bool(parts))
    iteration = state.get("iteration", 0)
    tasks = judge_tasks(
        chosen,
        cfg,
        judging,
        question=hops.for_judge(state),
        iteration=iteration,
        calls=max(chosen.calls_per_task(cfg, parsed=bool(parts)), 1),
        parts=parts,
        roles={},
        hop=False,
    )
    judgments: list[Judgment] = []
    cost: Cost = zero_cost()
    events: list[TraceEvent] = []
    for task in tasks:
        update = chosen.judge(task, config, cfg, deps)
        judgments += update.get("judgments") or []
        cost = add_costs(cost, update.get("cost"))
        events += update.get("trace") or []
    judgments, joined = chosen.label_round(judgments, iteration, cfg)
    events += joined
    by_id = {j["doc_id"]: j for j in judgments}
    rejected = [d["source"] for d in judging if _label(by_id, d) == "not_relevant"]
    ranked = sorted(
        (d for d in judging if d["id"] in by_id and _label(by_id, d) != "not_relevant"),
        key=lambda d: -judged_score(by_id[d["id"]]),
    )
    unjudged = [d for d in docs if d["id"] not in by_id]
    events.append(
        event(
            "web_search",
            "results_judged",
            kept=len(ranked),
            rejected=rejected[:MAX_LISTED],
            unjudged=len(unjudged),
        )
    )
    return _Judged([*ranked, *unjudged], judgments, cost, events)


def _label(judgments: dict[str, Judgment], doc: Doc) -> str | None:
    """The label the judge gave `doc`, or None when it was not judged."""
    found = judgments.get(doc["id"])
    return None if found is None else found["label"]


def _keywords(
    state: State,
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    events: list[TraceEvent],
) -> tuple[str, Cost]:
    """The question rewritten into a keyword query, and the call's cost.

    With the budget spent there is no rewrite: the question itself is the query. An
    unreadable or empty reply gives the question too (recorded).
    """
    question = state["question"]
    step = deps.step("web_search", state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        events.append(event("web_search", "budget", exhausted=step.exhausted))
        return question, zero_cost()
    outcome = step.structured(
        SearchQuery,
        [SystemMessage(prompt.SYSTEM), HumanMessage(prompt.USER.format(question=question))],
        default=SearchQuery(query=question),
    )
    events.extend(outcome.events)
    return outcome.value.query.strip() or question, outcome.cost


def _about_the_subject(question: str, docs: list[Doc], events: list[TraceEvent]) -> list[Doc]:
    """The results that name the question's subject; the others are recorded as dropped."""
    kept: list[Doc] = []
    dropped: list[str] = []
    for d in docs:
        if names_subject(question, d["title"], d["content"]):
            kept.append(d)
        else:
            dropped.append(d["source"])
    if dropped:
        events.append(
            event(
                "web_search",
                "off_subject",
                dropped=dropped[:MAX_LISTED],
                count=len(dropped),
                subjects=[" ".join(name) for name in subject_names(question)][:MAX_LISTED],
            )
        )
    return kept


def _on_the_knowledge_base_scale(
    question: str, docs: list[Doc], deps: NodeDeps, cfg: Configuration, events: list[TraceEvent]
) -> tuple[list[Doc], str]:
    """Web results with the knowledge base's cosine as their similarity (SRA's one scale).

    A backend's own score (BM25, a search engine's relevance) is not a cosine of the
    knowledge base's model: it stays in `scores`, and without that model the results
    are left unscored rather than given a stand-in value.
    """
    try:
        embedder = deps.components.embedder(cfg)
    except Exception as exc:
        failure = error_detail(exc, redact=deps.settings.remote, where="web_search")
        events.append(event("web_search", "error", step="similarity", **failure))
        embedder = None
    if embedder is None or not docs:
        return [_with_similarity(d, None) for d in docs], "unscored"
    query = np.asarray(embedder.embed_query(question), dtype=np.float64)
    texts = np.asarray(embedder.embed_documents([d["content"] for d in docs]), dtype=np.float64)
    norms = np.linalg.norm(texts, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = texts @ query / np.where(norms > 0, norms, 1.0)
    scored = [
        _with_similarity(d, round(min(1.0, max(0.0, float(c))), 4))
        for d, c in zip(docs, cosines, strict=True)
    ]
    return scored, "knowledge-base cosine"


def _with_similarity(doc: Doc, similarity: float | None) -> Doc:
    copy = doc.copy()
    copy["similarity"] = similarity
    return copy
