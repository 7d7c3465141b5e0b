"""Small helpers every node uses: settings, attempts, trace events, documents."""

from __future__ import annotations

import hashlib
import math
import re
import time
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import CallContext, Method
from judged_rag.configuration import TRUSTED, Configuration, RunSettings
from judged_rag.state import Doc, TraceEvent

GRADES = {"A": 1.0, "B": 0.8, "C": 0.6, "D": 0.4, "E": 0.2, "F": 0.5}
"""SRA reliability grades as numbers; F (cannot judge) is neutral."""

NEUTRAL_SIMILARITY = 0.5
"""Stand-in similarity for documents whose retriever reports none."""


def settings(
    config: RunnableConfig | None, runtime: Runtime[Any] | None, run_settings: RunSettings = TRUSTED
) -> Configuration:
    """The run's configuration (from `context=` and `configurable`, under `run_settings`)."""
    context = runtime.context if runtime is not None else None
    return run_settings.resolve(config, context)


def call_context(
    node: str,
    runtime: Runtime[Any] | None,
    max_attempts: int,
    *,
    calls: int | None = None,
    redact: bool = False,
) -> CallContext:
    """Which attempt of the node this is, for retry-or-default decisions.

    `calls` is how many LLM calls the budget still lets this node make: a retry never
    takes the run past `max_llm_calls`; the last affordable attempt uses the default.
    """
    info = getattr(runtime, "execution_info", None) if runtime is not None else None
    attempt = getattr(info, "node_attempt", 1) or 1
    if calls is not None:
        max_attempts = max(1, min(max_attempts, calls))
    return CallContext(node=node, attempt=attempt, max_attempts=max_attempts, redact=redact)


def event(node: str, name: str, **detail: Any) -> TraceEvent:
    """One trace entry."""
    return TraceEvent(node=node, event=name, detail=detail)


def fence(text: str, limit: int = 2000) -> str:
    """Untrusted text made safe to put between <document> tags.

    Every tag named ``document``, opening or closing, with or without attributes, is
    removed: the text can neither close its fence nor open a fake numbered document
    the generator might cite.
    """
    cleaned = re.sub(r"<\s*/?\s*document\b[^>]*>", " ", text, flags=re.IGNORECASE)
    return cleaned[:limit]


def numbered(docs: list[Doc], limit: int = 1200) -> str:
    """Documents as the numbered, fenced block the generator and verifier read."""
    if not docs:
        return ""
    parts = [
        f'<document n="{i}" title="{fence(d["title"], 120)}">\n'
        f"{fence(d['content'], limit)}\n</document>"
        for i, d in enumerate(docs, start=1)
    ]
    return "\n".join(parts) + "\n"


def structured_method(model: BaseChatModel, cfg: Configuration) -> Method:
    """How to ask this model for structured output."""
    if cfg.structured_output != "auto":
        return cfg.structured_output
    try:
        from judged_rag.components.models import structured_output_method
    except ImportError:
        return "function_calling"
    return structured_output_method(model)


def composite_score(doc: Doc, cfg: Configuration) -> float:
    """SRA's S = alpha * similarity + beta * reliability, in [0, 1]."""
    sim = doc["similarity"] if doc["similarity"] is not None else NEUTRAL_SIMILARITY
    reliability = GRADES.get(doc["reliability"].upper(), GRADES["F"])
    return round(cfg.alpha * sim + cfg.beta * reliability, 4)


_SCORE_KEYS = ("similarity", "score", "bm25", "keyword", "dense", "rank", "relevance_score")


def to_doc(document: Document, *, origin: str, iteration: int, reliability: str) -> Doc:
    """A LangChain `Document` as the plain-JSON `Doc` kept in state."""
    meta = document.metadata or {}
    content = document.page_content or ""
    doc_id = str(
        document.id
        or meta.get("chunk_id")
        or meta.get("id")
        or hashlib.sha1(content.encode("utf-8")).hexdigest()[:16]
    )
    source = str(meta.get("source") or meta.get("url") or "")
    title = str(meta.get("title") or (source.rsplit("/", 1)[-1] if source else doc_id))
    scores = {
        key: float(meta[key])
        for key in _SCORE_KEYS
        if isinstance(meta.get(key), int | float) and math.isfinite(float(meta[key]))
    }
    similarity = scores.get("similarity")
    if similarity is None and 0.0 <= scores.get("score", -1.0) <= 1.0:
        similarity = scores["score"]
    grade = str(meta.get("reliability") or reliability).upper()[:1]
    return Doc(
        id=doc_id,
        content=content,
        title=title,
        source=source,
        origin="web" if origin == "web" else "kb",
        reliability=grade if grade in GRADES else "F",
        similarity=None if similarity is None else min(1.0, max(0.0, similarity)),
        scores=scores,
        iteration=iteration,
    )


def content_key(doc: Doc) -> str:
    """Identity of a document's text, to merge the same chunk found twice."""
    text = re.sub(r"\s+", " ", doc["content"]).strip().lower()
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def reserve(cfg: Configuration) -> int:
    """LLM calls kept back for the answer: generate, and verify when it is on."""
    return 2 if cfg.verify else 1


def calls_left(state: Any, cfg: Configuration) -> int:
    """LLM calls this question may still make."""
    spent = (state.get("cost") or {}).get("llm_calls", 0)
    return max(0, cfg.max_llm_calls - int(spent))


def exhausted(state: Any, cfg: Configuration, *, keep: int = 0) -> str | None:
    """The budget that has run out (keeping `keep` calls back), or None.

    Computed from the run's cost and clock; the `budget_exhausted` flag in state only
    tells the routers that the optional work (judging, rewriting) has to stop.
    """
    if calls_left(state, cfg) <= keep:
        return "llm_calls"
    cost = state.get("cost") or {}
    if (
        cfg.max_tokens
        and cost.get("input_tokens", 0) + cost.get("output_tokens", 0) >= cfg.max_tokens
    ):
        return "tokens"
    started = state.get("started_at")
    if cfg.max_seconds and started is not None and time.time() - started >= cfg.max_seconds:
        return "seconds"
    return None
