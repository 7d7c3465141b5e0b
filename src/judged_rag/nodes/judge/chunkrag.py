"""ChunkRAG's judge (`judge="chunkrag"`): three scores a document, labelled at the join.

A relevance score, the model's reconsidered score and a critic's score: three calls per
document.

A task cannot label its document: the threshold is computed from the scores of the
whole round, which the parallel tasks never see together. Each task records its scores
(a `scored` event) and a provisional label by `judge_cutoff`; the join (`assess`) asks
the strategy to label the round (`label_round`), by its threshold (`core.relevance`),
which writes the `threshold` event and each document's `judged` event.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.configuration import Configuration
from judged_rag.core.documents import titled
from judged_rag.core.relevance import (
    CALLS,
    RoundThreshold,
    dynamic_threshold,
    final_score,
    fixed_threshold,
    relevance_label,
)
from judged_rag.core.trace import event
from judged_rag.nodes.judge.common import (
    FALLBACK,
    Judging,
    OneDocumentJudge,
    judged_event,
    unaligned,
    written,
)
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import RelevanceScore
from judged_rag.state import (
    Cost,
    Judgment,
    Label,
    RelevanceScores,
    TraceEvent,
    add_costs,
    zero_cost,
)


class ChunkRAG(OneDocumentJudge):
    """Three calls a document; the round labelled at the join, by its scores' threshold."""

    batches = False

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """Score, reconsider, critic."""
        return len(CALLS)

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """Score the document three ways; its label is provisional until the join."""
        return _chunkrag(j)

    def label_round(
        self, judgments: list[Judgment], iteration: int, cfg: Configuration
    ) -> tuple[list[Judgment], list[TraceEvent]]:
        """The round's labels by its threshold (`label_round`)."""
        return label_round(judgments, iteration, cfg)


CHUNKRAG = ChunkRAG()


def _chunkrag(j: Judging) -> dict[str, Any]:
    """ChunkRAG's scores of one document: first, reconsidered, and the critic's.

    The calls run in the paper's order, each with the attempts the task's share of the
    budget allows after keeping one for every call after it. A call the budget leaves
    nothing for is skipped (recorded), and its score is the one before it, as for a
    reply that cannot be read (recorded too). An unreadable first score ends the task
    with the recorded safe default: there is nothing to reconsider.
    """
    task, doc, base, cfg, config, deps = j
    calls = task.get("calls")
    question, document = task["question"], titled(doc)
    scores: list[float] = []
    made: list[str] = []
    cost: Cost = zero_cost()
    events: list[Any] = []
    for n, name in enumerate(CALLS):
        left = None if calls is None else calls - cost["llm_calls"]
        if scores and left is not None and left < 1:
            events.append(event("judge", "budget", doc_id=doc["id"], skipped=name))
            scores.append(scores[-1])
            continue
        system, user = _CHUNKRAG_PROMPTS[name]
        step = deps.step("judge", task, config, cfg, calls=_share(left, len(CALLS) - n - 1))
        shown = [f"{s:.2f}" for s in scores] + ["", ""]
        text = user.format(
            question=question, document=document, initial=shown[0], reflected=shown[1]
        )
        with deps.components.judge_slots(cfg.judge_concurrency):
            outcome = step.structured(
                RelevanceScore,
                [SystemMessage(system), HumanMessage(text)],
                default=RelevanceScore(score=scores[-1] if scores else 0.0),
                count_round=False,  # the join counts the rounds of the whole fan-out
            )
        cost = add_costs(cost, outcome.cost)
        events.extend(outcome.events)
        made.append(name)
        if not scores and outcome.fallback:
            judgment = unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
            return written(judgment, cfg, cost, events)
        scores.append(round(outcome.value.score, 4))
    judgment = _scored(base, scores, made, cfg.judge_cutoff)
    events.append(event("judge", "scored", doc_id=doc["id"], **judgment["relevance"]))
    return {"judgments": [judgment], "cost": cost, "trace": events}


def _scored(base: dict[str, Any], scores: list[float], made: list[str], cutoff: float) -> Judgment:
    """The judgment of a document's three scores, labelled by `cutoff` until the join.

    `made`: the calls the task made (a skipped call's score is the one before it);
    a reconsidered score marks the judgment reflected, the critic's critiqued.
    """
    initial, reflected, critic = scores
    relevance = RelevanceScores(
        initial=initial,
        reflected=reflected,
        critic=critic,
        final=final_score(initial, reflected, critic),
    )
    label, reason = _relevance_label(relevance, cutoff)
    judgment = unaligned(base, label, reason, by="llm")
    judgment["relevance"] = relevance
    judgment["p_highly"] = judgment["judge_score"] = relevance["final"]
    if "reconsider" in made:
        judgment["reflected"] = True
    if "critic" in made:
        judgment["critiqued"] = True
    return judgment


_CHUNKRAG_PROMPTS = {
    "score": (prompt.RELEVANCE_SYSTEM, prompt.RELEVANCE_USER),
    "reconsider": (prompt.RECONSIDER_SYSTEM, prompt.RECONSIDER_USER),
    "critic": (prompt.CRITIC_SYSTEM, prompt.CRITIC_USER),
}
"""The system and user prompts of each of ChunkRAG's calls (`core.relevance.CALLS`)."""


def _share(left: int | None, later: int) -> int | None:
    """Attempts for one of a task's calls: what is left, less one for each call after it."""
    return None if left is None else max(1, left - later)


def _relevance_label(relevance: RelevanceScores, threshold: float) -> tuple[Label, str]:
    """The label of a ChunkRAG judgment against `threshold`, and the reason that says why."""
    score = relevance["final"]
    reason = (
        f"scores {relevance['initial']} / {relevance['reflected']} / {relevance['critic']} "
        f"(first / reconsidered / critic), final {score}, threshold {threshold}"
    )
    return relevance_label(score, threshold), reason


def label_round(
    judgments: list[Judgment], iteration: int, cfg: Configuration
) -> tuple[list[Judgment], list[TraceEvent]]:
    """ChunkRAG's labels of round `iteration`, by the threshold of its scores (the join).

    The round's scored judgments are labelled against `judge_threshold` when it is set,
    otherwise against the round's dynamic threshold (at least `judge_cutoff`); the
    others (earlier rounds, the pre-filter's, fallbacks) are returned unchanged, in
    order. Events: the threshold with the score distribution behind it, then each
    scored document's `judged` event. Nothing to label: the judgments as given, no event.
    """
    scored = [j for j in judgments if j["iteration"] == iteration and "relevance" in j]
    if not scored:
        return judgments, []
    finals = [j["relevance"]["final"] for j in scored]
    threshold: RoundThreshold = (
        fixed_threshold(finals, cfg.judge_threshold)
        if cfg.judge_threshold is not None
        else dynamic_threshold(finals, floor=cfg.judge_cutoff)
    )
    labelled: list[Judgment] = []
    events: list[TraceEvent] = [
        event(
            "judge",
            "threshold",
            iteration=iteration,
            threshold=threshold.value,
            rule=threshold.rule,
            count=threshold.count,
            mean=threshold.mean,
            std=threshold.std,
            floor=threshold.floor,
            scores={j["doc_id"]: j["relevance"]["final"] for j in scored},
        )
    ]
    for judgment in judgments:
        if judgment["iteration"] == iteration and "relevance" in judgment:
            judgment = judgment.copy()
            judgment["label"], judgment["reason"] = _relevance_label(
                judgment["relevance"], threshold.value
            )
            events.append(judged_event(judgment, cfg, threshold=threshold.value))
        labelled.append(judgment)
    return labelled, events
