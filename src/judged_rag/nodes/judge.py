"""judge: one parallel task per (question, document) (RJAG, GGatrieval, SRA).

Each task writes one `Judgment`: RJAG's three-level label with a reason, the question
components the document grounds (Full / Partial / No alignment), and SRA's composite
score. With the pre-filter on, clear cases are labelled from the score alone.

Setting `judge` chooses how the LLM is asked: `structured` (a JSON judgment with quoted
evidence and aligned components), `letter` (one output token A/B/C whose probabilities
give the label; no alignment), or `off` (every document kept unjudged: plain RAG).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import LetterChoice
from judged_rag.configuration import Configuration
from judged_rag.core.documents import fence
from judged_rag.core.scores import composite_score
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import RelevanceJudgment
from judged_rag.state import Alignment, Cost, JudgeTask, Judgment, Label, zero_cost

FALLBACK = RelevanceJudgment(label="somewhat_relevant", reason="unreadable judgment; safe default")
"""Recorded when no judgment could be read: kept as background, never as evidence."""


def judge(
    task: JudgeTask, config: RunnableConfig, runtime: Runtime[Any] | None, *, deps: NodeDeps
) -> dict[str, Any]:
    """Judge one document against the question (also callable outside the graph)."""
    cfg = deps.configuration(config, runtime)
    doc = task["document"]
    score = composite_score(doc, cfg)
    base = {"doc_id": doc["id"], "composite_score": score, "iteration": task["iteration"]}
    if cfg.judge == "off":
        return _written(_unaligned(base, "highly_relevant", "judging off", by="unjudged"))
    clear = score >= cfg.prefilter_high or score <= cfg.prefilter_low
    if cfg.prefilter and doc["similarity"] is not None and clear:
        label: Label = "highly_relevant" if score >= cfg.prefilter_high else "not_relevant"
        reason = f"composite score {score} past the pre-filter bound"
        return _written(_unaligned(base, label, reason, by="prefilter"))
    step = deps.step("judge", task, config, cfg, calls=task.get("calls"))
    document = fence(doc["content"])
    if cfg.judge == "letter":
        user = prompt.LETTER_USER.format(question=task["question"], document=document)
        with deps.components.judge_slots(cfg.judge_concurrency):
            letter = step.letter(
                [SystemMessage(prompt.LETTER_SYSTEM), HumanMessage(user)],
                list(prompt.LETTERS),
                default=FALLBACK.model_dump(),
                count_round=False,  # the join counts the rounds of the whole fan-out
            )
        return _written(_from_letter(base, letter.value, cfg), letter.cost, letter.events)
    parts = task["query_parts"]
    user = prompt.USER.format(
        question=task["question"],
        components="; ".join(parts) if parts else "(not parsed)",
        document=document,
    )
    with deps.components.judge_slots(cfg.judge_concurrency):
        outcome = step.structured(
            RelevanceJudgment,
            [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
            default=FALLBACK,
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
    return _written(judgment, outcome.cost, outcome.events)


def letter_label(choice: LetterChoice, threshold: float) -> Label:
    """The label of a letter judgment.

    With probabilities: Highly Relevant when P(A) reaches `threshold`, otherwise the
    likelier of B and C. Without (the backend reports none): the letter answered.
    """
    if choice.probabilities is None:
        answered: Label = prompt.LETTERS[choice.letter]  # type: ignore[assignment]
        return answered
    p = choice.probabilities
    if p["A"] >= threshold:
        return "highly_relevant"
    return "somewhat_relevant" if p["B"] >= p["C"] else "not_relevant"


def align(
    parts: list[str], claimed: list[str], cfg: Configuration, *, fallback: bool = False
) -> tuple[list[str], Alignment, float]:
    """Which question components the judge says the document states, and the label.

    Only components of the question count: a judge cannot invent new ones.
    """
    if not cfg.checks_alignment or not parts:
        return [], "unchecked", 0.0
    if fallback:
        return [], "none", 0.0
    said = [c.strip().lower() for c in claimed if c.strip()]
    aligned = [p for p in parts if any(p.lower() in c or c in p.lower() for c in said)]
    ratio = round(len(aligned) / len(parts), 4)
    alignment: Alignment = "full" if ratio >= 1.0 else "partial" if aligned else "none"
    return aligned, alignment, ratio


def _from_letter(base: dict[str, Any], choice: LetterChoice | None, cfg: Configuration) -> Judgment:
    if choice is None:
        return _unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
    label = letter_label(choice, cfg.judge_threshold)
    if choice.probabilities is None:
        reason = f"letter {choice.letter} (the backend gave no probabilities)"
        return _unaligned(base, label, reason, by="llm")
    shares = " ".join(f"P({k})={v:.2f}" for k, v in choice.probabilities.items())
    reason = f"letter {choice.letter}, {shares}, threshold {cfg.judge_threshold}"
    judgment = _unaligned(base, label, reason, by="llm")
    judgment["p_highly"] = choice.probabilities["A"]
    return judgment


def _unaligned(base: dict[str, Any], label: Label, reason: str, *, by: Any) -> Judgment:
    """A judgment that checked no alignment (pre-filter, letter judge, judging off)."""
    judgment: Judgment = Judgment(
        **base,  # type: ignore[typeddict-item]
        label=label,
        reason=reason,
        evidence="",
        aligned_components=[],
        alignment="unchecked",
        alignment_ratio=0.0,
        by=by,
    )
    return judgment


def _written(
    judgment: Judgment, cost: Cost | None = None, events: list[Any] | None = None
) -> dict[str, Any]:
    return {
        "judgments": [judgment],
        "cost": cost or zero_cost(),
        "trace": [*(events or []), _judged(judgment)],
    }


def _judged(judgment: Judgment) -> Any:
    detail: dict[str, Any] = {
        "doc_id": judgment["doc_id"],
        "label": judgment["label"],
        "alignment": judgment["alignment"],
        "score": judgment["composite_score"],
        "by": judgment["by"],
        "evidence": judgment["evidence"][:120],
    }
    if judgment.get("p_highly") is not None:
        detail["p_highly"] = judgment["p_highly"]
    return event("judge", "judged", **detail)
