"""retrieve: hybrid retrieval from the injected retriever (ChunkRAG).

Runs every pending query, fuses the lists by reciprocal rank (so each retriever's own
order, BM25 / dense / hybrid, is kept), merges with what earlier iterations found and
marks the new documents for judging.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import Components
from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.errors import error_detail
from judged_rag.nodes._shared import content_key, event, settings, to_doc
from judged_rag.state import Doc, State, TraceEvent

RRF_K = 60


def retrieve(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Retrieve for the current queries and keep the top-k documents not seen before."""
    cfg = settings(config, runtime, run_settings)
    iteration = state.get("iteration", 0)
    queries = state.get("queries") or [state["question"]]
    events: list[TraceEvent] = []
    ranked: dict[str, tuple[float, Doc]] = {}
    try:
        retriever = components.knowledge_retriever(cfg)
    except Exception as exc:
        events.append(
            event(
                "retrieve",
                "error",
                **error_detail(exc, redact=run_settings.remote, where="retrieve"),
            )
        )
        retriever = None
    options = {"k": cfg.top_k, "fusion": cfg.fusion, "dense_weight": cfg.dense_weight}
    for query in queries if retriever is not None else []:
        try:
            if getattr(retriever, "accepts_run_options", False):
                found = retriever.invoke(query, config, **options)  # type: ignore[union-attr]
            else:
                found = retriever.invoke(query, config)  # type: ignore[union-attr]
        except Exception as exc:
            events.append(
                event(
                    "retrieve",
                    "error",
                    query=query[:200],
                    **error_detail(exc, redact=run_settings.remote, where="retrieve"),
                )
            )
            continue
        for rank, document in enumerate(found[: cfg.top_k]):
            doc = to_doc(document, origin="kb", iteration=iteration, reliability=cfg.kb_reliability)
            key = content_key(doc)
            fused = ranked[key][0] if key in ranked else 0.0
            ranked[key] = (fused + 1.0 / (RRF_K + rank), ranked[key][1] if key in ranked else doc)
    known = state.get("documents") or []
    known_keys = {content_key(d) for d in known} | {d["id"] for d in known}
    fresh = [
        doc
        for _, doc in sorted(ranked.values(), key=lambda item: -item[0])
        if content_key(doc) not in known_keys and doc["id"] not in known_keys
    ][: cfg.top_k]
    events.append(
        event(
            "retrieve",
            "retrieved",
            iteration=iteration,
            queries=len(queries),
            found=len(ranked),
            new=len(fresh),
            ids=[d["id"] for d in fresh],
        )
    )
    return {"documents": [*known, *fresh], "pending": [d["id"] for d in fresh], "trace": events}
