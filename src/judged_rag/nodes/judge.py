"""judge: one parallel task per (question, document) (RJAG, GGatrieval, SRA).

Each task writes one `Judgment`: RJAG's three-level label with a reason, the question
components the document grounds (Full / Partial / No alignment), and SRA's composite
score. With the pre-filter on, clear cases are labelled from the score alone.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import Components
from judged_rag.components.llm import structured_call
from judged_rag.configuration import Configuration
from judged_rag.nodes._shared import (
    call_context,
    composite_score,
    event,
    fence,
    settings,
    structured_method,
)
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import RelevanceJudgment
from judged_rag.state import Alignment, JudgeTask, Judgment, zero_cost

FALLBACK = RelevanceJudgment(label="somewhat_relevant", reason="unreadable judgment; safe default")
"""Recorded when no judgment could be read: kept as background, never as evidence."""


def judge(
    task: JudgeTask,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    max_attempts: int = 1,
) -> dict[str, Any]:
    """Judge one document against the question."""
    cfg = settings(config, runtime)
    doc = task["document"]
    score = composite_score(doc, cfg)
    base = {"doc_id": doc["id"], "composite_score": score, "iteration": task["iteration"]}
    clear = score >= cfg.prefilter_high or score <= cfg.prefilter_low
    if cfg.prefilter and doc["similarity"] is not None and clear:
        label = "highly_relevant" if score >= cfg.prefilter_high else "not_relevant"
        judgment = Judgment(
            **base,  # type: ignore[typeddict-item]
            label=label,
            reason=f"composite score {score} past the pre-filter bound",
            evidence="",
            aligned_components=[],
            alignment="unchecked",
            alignment_ratio=0.0,
            by="prefilter",
        )
        return {"judgments": [judgment], "trace": [_judged(judgment)], "cost": zero_cost()}
    model = components.judge(cfg)
    parts = task["components"]
    messages = [
        SystemMessage(prompt.SYSTEM),
        HumanMessage(
            prompt.USER.format(
                question=task["question"],
                components="; ".join(parts) if parts else "(not parsed)",
                document=fence(doc["content"]),
            )
        ),
    ]
    with components.judge_slots(cfg.judge_concurrency):
        outcome = structured_call(
            model,
            RelevanceJudgment,
            messages,
            config=config,
            ctx=call_context("judge", runtime, max_attempts, calls=task.get("calls")),
            default=FALLBACK,
            method=structured_method(model, cfg),
            count_round=False,  # the join counts the rounds of the whole fan-out
        )
    value = outcome.value
    aligned, alignment, ratio = align(parts, value.aligned, cfg, fallback=outcome.fallback)
    judgment = Judgment(
        **base,  # type: ignore[typeddict-item]
        label=value.label,
        reason=value.reason[:300],
        evidence=value.evidence,
        aligned_components=aligned,
        alignment=alignment,
        alignment_ratio=ratio,
        by="fallback" if outcome.fallback else "llm",
    )
    return {
        "judgments": [judgment],
        "cost": outcome.cost,
        "trace": [*outcome.events, _judged(judgment)],
    }


def align(
    parts: list[str], claimed: list[str], cfg: Configuration, *, fallback: bool = False
) -> tuple[list[str], Alignment, float]:
    """Which question components the judge says the document states, and the label.

    Only components of the question count: a judge cannot invent new ones.
    """
    if not cfg.alignment or not parts:
        return [], "unchecked", 0.0
    if fallback:
        return [], "none", 0.0
    said = [c.strip().lower() for c in claimed if c.strip()]
    aligned = [p for p in parts if any(p.lower() in c or c in p.lower() for c in said)]
    ratio = round(len(aligned) / len(parts), 4)
    alignment: Alignment = "full" if ratio >= 1.0 else "partial" if aligned else "none"
    return aligned, alignment, ratio


def _judged(judgment: Judgment) -> Any:
    return event(
        "judge",
        "judged",
        doc_id=judgment["doc_id"],
        label=judgment["label"],
        alignment=judgment["alignment"],
        score=judgment["composite_score"],
        by=judgment["by"],
        evidence=judgment["evidence"][:120],
    )
