"""retrieve: hybrid retrieval from the injected retriever (ChunkRAG).

Runs every pending query, fuses the lists by reciprocal rank (so each retriever's own
order, BM25 / dense / hybrid, is kept), merges with what earlier iterations found and
marks the new documents for judging.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.documents import content_key, to_doc
from judged_rag.core.judgments import latest_judgments
from judged_rag.core.retrieval import search
from judged_rag.core.scores import RRF_K
from judged_rag.core.screen import screen_found
from judged_rag.core.trace import event
from judged_rag.errors import error_detail
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import Doc, State, TraceEvent


def retrieve(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Retrieve for the current queries and keep the top-k documents not seen before."""
    cfg = deps.configuration(config, runtime)
    iteration = state.get("iteration", 0)
    queries = state.get("queries") or [state["question"]]
    events: list[TraceEvent] = []
    rankings: list[list[Doc]] = []  # one a query
    redact = deps.settings.remote
    try:
        retriever = deps.components.knowledge_retriever(cfg)
    except Exception as exc:
        events.append(
            event("retrieve", "error", **error_detail(exc, redact=redact, where="retrieve"))
        )
        retriever = None
    for query in queries if retriever is not None else []:
        rankings.append(_search(retriever, query, config, cfg, iteration, redact, events))
    candidates = reciprocal_rank_fusion(rankings)
    known = state.get("documents") or []
    known_keys = {content_key(d) for d in known} | {d["id"] for d in known}
    unjudged = _unjudged(state, known)
    picked = [
        unjudged.get(content_key(doc)) or unjudged.get(doc["id"]) or doc
        for doc in candidates
        if (content_key(doc) not in known_keys and doc["id"] not in known_keys)
        or content_key(doc) in unjudged
        or doc["id"] in unjudged
    ][: cfg.top_k]
    known_ids = {d["id"] for d in known}
    fresh = [d for d in picked if d["id"] not in known_ids]
    events.append(
        event(
            "retrieve",
            "retrieved",
            iteration=iteration,
            queries=len(queries),
            found=len(candidates),
            new=len(fresh),
            ids=[d["id"] for d in picked],
            **({"judged_again": len(picked) - len(fresh)} if unjudged else {}),
        )
    )
    return {"documents": [*known, *fresh], "pending": [d["id"] for d in picked], "trace": events}


def _unjudged(state: State, known: list[Doc]) -> dict[str, Doc]:
    """Known documents to judge again when found again, by content key and by id.

    Only with a hop (`core.hops`). In the round that asks its first question, and in
    the round right after it when it named something, every one: they were judged
    against another question. Later, or when it named nothing, those judged against the
    first question alone.
    """
    hop = state.get("hop")
    if hop is None:
        return {}
    named = bool(hop["answer"]) and state.get("iteration", 0) == hop["iteration"] + 1
    judged = set() if named or hops.pending(state) else set(latest_judgments(state))
    out: dict[str, Doc] = {}
    for doc in known:
        if doc["id"] not in judged:
            out[content_key(doc)] = doc
            out[doc["id"]] = doc
    return out


def reciprocal_rank_fusion(rankings: list[list[Doc]]) -> list[Doc]:
    """One list of the rankings' documents, best first by their summed reciprocal ranks.

    A document is known by its content (`content_key`): found again, by another query,
    it adds 1 / (RRF_K + rank) to its score and keeps its first copy. Equal scores keep
    the order in which the documents were first found.
    """
    ranked: dict[str, tuple[float, Doc]] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            key = content_key(doc)
            fused = ranked[key][0] if key in ranked else 0.0
            ranked[key] = (fused + 1.0 / (RRF_K + rank), ranked[key][1] if key in ranked else doc)
    return [doc for _, doc in sorted(ranked.values(), key=lambda item: -item[0])]


def _search(
    retriever: Any,
    query: str,
    config: RunnableConfig,
    cfg: Configuration,
    iteration: int,
    redact: bool,
    events: list[TraceEvent],
) -> list[Doc]:
    """The knowledge base's top-k documents for one query, best first; none if it fails.

    A failure is recorded (redacted for a remote client) and the run goes on.
    """
    try:
        found = search(
            retriever,
            query,
            config,
            k=cfg.top_k,
            fusion=cfg.fusion,
            dense_weight=cfg.dense_weight,
        )
    except Exception as exc:
        failure = error_detail(exc, redact=redact, where="retrieve")
        events.append(event("retrieve", "error", query=query[:200], **failure))
        return []
    docs = [
        to_doc(d, origin="kb", iteration=iteration, reliability=cfg.kb_reliability, served=redact)
        for d in found[: cfg.top_k]
    ]
    if cfg.screen_instructions:
        docs = screen_found(docs, "retrieve", query[:200], events)
    return docs
