"""What every judge shares: the protocol the graph asks of one, and the judgments' plumbing.

A judge strategy (one module each in this package) tells the graph what a task costs
and how its round is labelled, and judges a task. Routers, `assess` and the node ask the
strategy (`strategies.strategy(cfg)`) instead of testing `cfg.judge`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from langchain_core.runnables import RunnableConfig

from judged_rag.configuration import Configuration
from judged_rag.core.scores import composite_score
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.schemas import RelevanceJudgment, SegmentJudgment
from judged_rag.state import (
    Cost,
    Doc,
    JudgeTask,
    JudgeWindow,
    Judgment,
    Label,
    TraceEvent,
    zero_cost,
)

FALLBACK = RelevanceJudgment(label="somewhat_relevant", reason="unreadable judgment; safe default")
"""Recorded when no judgment could be read: kept as background, never as evidence."""
SEGMENT_FALLBACK = SegmentJudgment(label=FALLBACK.label, reason=FALLBACK.reason)
"""The same default for the segment-aligning judge."""


class JudgeStrategy(Protocol):
    """How one judge is asked, what it costs, and how its round is labelled.

    Attributes:
        windowed: Its tasks are windows of documents (`JudgeWindow`), one call each.
        batches: A round's documents may be judged `judge_batch` at a time (not when
            its labels or its calls span the whole round, nor when it makes no call).
    """

    windowed: bool
    batches: bool

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """LLM calls one task makes (0: none); `parsed`: the question has components."""
        ...

    def documents_per_task(self, cfg: Configuration) -> int:
        """Documents one task judges."""
        ...

    def judge(
        self,
        task: JudgeTask | JudgeWindow,
        config: RunnableConfig,
        cfg: Configuration,
        deps: NodeDeps,
    ) -> dict[str, Any]:
        """The state update of one task: its judgments, cost and trace."""
        ...

    def label_round(
        self, judgments: list[Judgment], iteration: int, cfg: Configuration
    ) -> tuple[list[Judgment], list[TraceEvent]]:
        """The judgments with round `iteration` labelled (the join's part), and its events."""
        ...


class Judging(NamedTuple):
    """One document a judge is asked about.

    Its task, the document, the judgment's first fields (`base_of`), and the run's
    settings, config and dependencies.
    """

    task: JudgeTask
    doc: Doc
    base: dict[str, Any]
    cfg: Configuration
    config: RunnableConfig
    deps: NodeDeps


class OneDocumentJudge:
    """A judge whose task is one document, labelled by the task itself.

    `judge` gives the pre-filter its clear cases (unless `prefilters` is off); a
    subclass judges the rest (`judge_document`).
    """

    windowed = False
    batches = True
    prefilters = True

    def judge(
        self,
        task: JudgeTask | JudgeWindow,
        config: RunnableConfig,
        cfg: Configuration,
        deps: NodeDeps,
    ) -> dict[str, Any]:
        """The pre-filter's judgment of a clear case, else `judge_document`'s."""
        one = single(task)
        doc = one["document"]
        base = base_of(doc, one["iteration"], cfg)
        decided = prefiltered(base, doc, cfg) if self.prefilters else None
        if decided is not None:
            return written(decided, cfg)
        return self.judge_document(Judging(one, doc, base, cfg, config, deps))

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """Judge a document the pre-filter left to the LLM."""
        raise NotImplementedError

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """One call per document."""
        return 1

    def documents_per_task(self, cfg: Configuration) -> int:
        """One document per task."""
        return 1

    def label_round(
        self, judgments: list[Judgment], iteration: int, cfg: Configuration
    ) -> tuple[list[Judgment], list[TraceEvent]]:
        """Nothing to do: each task labelled its document."""
        return judgments, []


def single(task: JudgeTask | JudgeWindow) -> JudgeTask:
    """A one-document task.

    Raises:
        ValueError: It is a window of documents (only the list judge takes those).
    """
    if "documents" in task:
        raise ValueError("a window of documents needs judge='list'")
    return task


def base_of(doc: Doc, iteration: int, cfg: Configuration) -> dict[str, Any]:
    """The fields every judgment of `doc` starts from: its id, SRA's score, the round."""
    return {
        "doc_id": doc["id"],
        "composite_score": composite_score(doc, cfg),
        "iteration": iteration,
    }


def judge_score(p: float, similarity: float | None, weight: float) -> float:
    """The judge's score: the LLM's probability, combined with the retriever's cosine.

    (1 - weight) * p + weight * similarity; p alone when the document has no cosine.
    """
    if similarity is None:
        return round(p, 4)
    return round((1.0 - weight) * p + weight * similarity, 4)


def prefiltered(base: dict[str, Any], doc: Doc, cfg: Configuration) -> Judgment | None:
    """The pre-filter's judgment of a clear case (no LLM call), or None."""
    score = base["composite_score"]
    clear = score >= cfg.prefilter_high or score <= cfg.prefilter_low
    if not (cfg.prefilter and doc["similarity"] is not None and clear):
        return None
    label: Label = "highly_relevant" if score >= cfg.prefilter_high else "not_relevant"
    reason = f"composite score {score} past the pre-filter bound"
    return unaligned(base, label, reason, by="prefilter")


def unaligned(base: dict[str, Any], label: Label, reason: str, *, by: Any) -> Judgment:
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


def written(
    judgment: Judgment,
    cfg: Configuration,
    cost: Cost | None = None,
    events: list[Any] | None = None,
) -> dict[str, Any]:
    """The state update of one task that judged one document."""
    return {
        "judgments": [judgment],
        "cost": cost or zero_cost(),
        "trace": [*(events or []), judged_event(judgment, cfg)],
    }


def judged_event(judgment: Judgment, cfg: Configuration, *, threshold: float | None = None) -> Any:
    """The trace event of one judgment."""
    detail: dict[str, Any] = {
        "doc_id": judgment["doc_id"],
        "judge": cfg.judge,
        "label": judgment["label"],
        "alignment": judgment["alignment"],
        "score": judgment["composite_score"],
        "by": judgment["by"],
        "evidence": judgment["evidence"][:120],
    }
    if judgment.get("p_highly") is not None:
        detail["p_highly"] = judgment["p_highly"]
    if judgment.get("judge_score") is not None:
        detail["judge_score"] = judgment["judge_score"]
        detail["threshold"] = cfg.judge_cutoff if threshold is None else threshold
    if "relevance" in judgment:
        detail["relevance"] = judgment["relevance"]
    return event("judge", "judged", **detail)
