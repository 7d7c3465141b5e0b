"""rewrite: GGatrieval's Semantic Compensation Query Update, bounded by `max_iterations`.

For documents whose alignment ratio reaches tau, the next query is Q + D (the document
itself pulls in its neighbours). Below tau, the LLM gives synonyms for the components
no document covered plus a pseudo-document, and the next query is Q' + D_pseudo.
Documents already found stay in state; only new ones are judged next round.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.core.budget import reserve
from judged_rag.core.judgments import latest_judgments
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import rewrite as prompt
from judged_rag.schemas import QueryRewrite
from judged_rag.state import Judgment, State, TraceEvent

LABEL_RATIO = {"highly_relevant": 1.0, "somewhat_relevant": 0.5, "not_relevant": 0.0}
"""Stand-in alignment ratio from the label when alignment was not checked."""

DOC_CHARS = 400


def ratio(judgment: Judgment) -> float:
    """Alignment ratio |M'(Q, D)| / |C|, or the label's stand-in when unchecked."""
    if judgment["alignment"] == "unchecked":
        return LABEL_RATIO[judgment["label"]]
    return judgment["alignment_ratio"]


def rewrite(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Build the next round's queries and advance the iteration counter."""
    cfg = deps.configuration(config, runtime)
    question = state["question"]
    iteration = state.get("iteration", 0)
    judged = latest_judgments(state)
    docs = {d["id"]: d for d in state.get("documents") or []}
    recent = sorted(
        (j for j in judged.values() if j["iteration"] == iteration and j["doc_id"] in docs),
        key=lambda j: (-ratio(j), -j["composite_score"]),
    )
    well = [j for j in recent if ratio(j) >= cfg.align_tau and j["label"] != "not_relevant"]
    queries = [f"{question}\n{docs[j['doc_id']]['content'][:DOC_CHARS]}" for j in well]
    queries = queries[: max(1, cfg.rewrite_max_queries - 1)]
    events: list[TraceEvent] = []
    out: dict[str, Any] = {}
    step = deps.step("rewrite", state, config, cfg, keep=reserve(cfg))
    if step.exhausted:
        events.append(event("rewrite", "budget", exhausted=step.exhausted))
    if (len(well) < len(recent) or not queries) and not step.exhausted:
        parts = state.get("query_parts") or [question]
        covered = {c.lower() for j in judged.values() for c in j["aligned_components"]}
        missing = [p for p in parts if p.lower() not in covered] or parts
        user = prompt.USER.format(question=question, missing="; ".join(missing))
        outcome = step.structured(
            QueryRewrite,
            [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
            default=QueryRewrite(),
        )
        synonyms = " ".join(s for s in outcome.value.synonyms if s.strip())
        compensated = f"{question} {synonyms}".strip()
        pseudo = outcome.value.pseudo_document.strip()
        queries.append(f"{compensated}\n{pseudo}".strip())
        events.extend(outcome.events)
        out["cost"] = outcome.cost
        events.append(
            event(
                "rewrite",
                "compensated",
                missing=missing,
                synonyms=outcome.value.synonyms,
                pseudo_document=pseudo[:300],
            )
        )
    queries = queries[: cfg.rewrite_max_queries] or [question]
    events.append(
        event(
            "rewrite",
            "queries",
            iteration=iteration + 1,
            from_documents=len(well),
            queries=[q[:200] for q in queries],
        )
    )
    return {**out, "queries": queries, "iteration": iteration + 1, "trace": events}
