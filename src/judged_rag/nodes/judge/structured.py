"""The structured judge (`judge="structured"`): RJAG's labelled judgment with quoted evidence.

The reply is a JSON judgment: the label, a reason, the evidence, and the question's
components the document states (GGatrieval's fine-grained alignment). With
`alignment_check="segment"` the judge copies each component's segment and
`core.alignment` checks it; with `reflection` a second call reviews the list
(M'(Q, D)) and the alignment label follows the reviewed list.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from judged_rag.configuration import Configuration
from judged_rag.core.alignment import SegmentCheck, segment_alignment
from judged_rag.core.documents import titled
from judged_rag.core.trace import event
from judged_rag.nodes.judge.common import (
    FALLBACK,
    SEGMENT_FALLBACK,
    Judging,
    OneDocumentJudge,
    written,
)
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import (
    AlignedPart,
    ReflectedAlignment,
    RelevanceJudgment,
    SegmentJudgment,
)
from judged_rag.state import Alignment, Cost, Doc, JudgeTask, Judgment, TraceEvent, add_costs


class Structured(OneDocumentJudge):
    """One call a document; two when its alignment is reviewed (reflection)."""

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """The judgment, and its review when the run reflects and the question was parsed."""
        return 2 if cfg.reflects and parsed else 1

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """RJAG's judgment of the document and the components it grounds."""
        return _structured(j)


STRUCTURED = Structured()


def _structured(j: Judging) -> dict[str, Any]:
    """RJAG's labelled judgment and the components the document grounds (FGA).

    With `alignment_check="segment"` the judge copies each component's segment and
    `core.alignment` checks it; with `reflection` a second call reviews the list
    (M'(Q, D)) and the alignment label follows the reviewed list.
    """
    task, doc, base, cfg, config, deps = j
    parts = task["query_parts"]
    segment = cfg.checks_alignment and cfg.alignment_check == "segment"
    reflecting = cfg.reflects and bool(parts)
    calls = task.get("calls")
    # The reflection's call is kept back from the judgment's retries.
    first_calls = calls if calls is None or not reflecting else max(1, calls - 1)
    step = deps.step("judge", task, config, cfg, calls=first_calls)
    shown = {
        "question": task["question"],
        "components": listed(parts, task.get("roles") or {}),
        "document": titled(doc),
    }
    schema: type[RelevanceJudgment | SegmentJudgment] = (
        SegmentJudgment if segment else RelevanceJudgment
    )
    with deps.components.judge_slots(cfg.judge_concurrency):
        outcome = step.structured(
            schema,
            [
                SystemMessage(prompt.SEGMENT_SYSTEM if segment else prompt.SYSTEM),
                HumanMessage(prompt.USER.format(**shown)),
            ],
            default=SEGMENT_FALLBACK if segment else FALLBACK,
            count_round=False,  # the join counts the rounds of the whole fan-out
        )
    check = _checked(parts, claims(outcome.value), cfg, task, doc, fallback=outcome.fallback)
    cost, events = outcome.cost, list(outcome.events)
    reflected = False
    if reflecting and not outcome.fallback:
        check, cost, reflected = _reflect(task, doc, check, shown, cfg, config, deps, cost, events)
    if segment:
        events.append(
            event(
                "judge",
                "aligned",
                doc_id=doc["id"],
                segments=check.segments,
                rejected=check.rejected,
                span=check.span,
            )
        )
    by: Literal["llm", "fallback"] = "fallback" if outcome.fallback else "llm"
    judgment = _judgment(base, outcome.value, check, by, segment=segment, reflected=reflected)
    return written(judgment, cfg, cost, events)


def _reflect(
    task: JudgeTask,
    doc: Doc,
    check: SegmentCheck,
    shown: dict[str, str],
    cfg: Configuration,
    config: RunnableConfig,
    deps: NodeDeps,
    cost: Cost,
    events: list[TraceEvent],
) -> tuple[SegmentCheck, Cost, bool]:
    """M'(Q, D): the judge's review of the components it aligned, checked like its claims.

    Returns the alignment, the task's cost so far (`cost`) with the review's, and
    whether the review was made: not when the judgment spent the task's share of the
    budget (recorded). An unreadable review keeps the first list (recorded).
    """
    calls = task.get("calls")
    left = None if calls is None else calls - cost["llm_calls"]
    if left is not None and left < 1:
        events.append(event("judge", "budget", doc_id=doc["id"], skipped="reflection"))
        return check, cost, False
    step = deps.step("judge", task, config, cfg, calls=left)
    first = [AlignedPart(part=p, segment=check.segments.get(p, "")) for p in check.aligned]
    user = prompt.REFLECT_USER.format(
        **shown, listed="; ".join(f'{a.part} = "{a.segment}"' for a in first) or "(none)"
    )
    with deps.components.judge_slots(cfg.judge_concurrency):
        review = step.structured(
            ReflectedAlignment,
            [SystemMessage(prompt.REFLECT_SYSTEM), HumanMessage(user)],
            default=ReflectedAlignment(aligned=first),
            count_round=False,  # the join counts the reflection round
        )
    parts = task["query_parts"]
    reviewed = _checked(parts, claims(review.value), cfg, task, doc, fallback=False)
    events.extend(review.events)
    events.append(
        event(
            "judge",
            "reflected",
            doc_id=doc["id"],
            before=check.aligned,
            after=reviewed.aligned,
            alignment_before=check.alignment,
            alignment=reviewed.alignment,
        )
    )
    return reviewed, add_costs(cost, review.cost), True


def _judgment(
    base: dict[str, Any],
    value: RelevanceJudgment | SegmentJudgment,
    check: SegmentCheck,
    by: Literal["llm", "fallback"],
    *,
    segment: bool,
    reflected: bool,
) -> Judgment:
    """The judgment of the reply's label, reason and evidence, and its checked alignment."""
    judgment: Judgment = Judgment(
        **base,  # type: ignore[typeddict-item]
        label=value.label,
        reason=value.reason[:300],
        evidence=value.evidence,
        aligned_components=check.aligned,
        alignment=check.alignment,
        alignment_ratio=check.ratio,
        by=by,
    )
    if segment:
        judgment["segments"] = check.segments
    if reflected:
        judgment["reflected"] = True
    return judgment


def claims(
    value: RelevanceJudgment | SegmentJudgment | ReflectedAlignment,
) -> list[tuple[str, str]]:
    """The (component, segment) pairs a judgment claims; no segment from the plain judge."""
    if isinstance(value, RelevanceJudgment):
        return [(part, "") for part in value.aligned]
    return [(a.part, a.segment) for a in value.aligned]


def _checked(
    parts: list[str],
    claimed: list[tuple[str, str]],
    cfg: Configuration,
    task: JudgeTask,
    doc: Doc,
    *,
    fallback: bool,
) -> SegmentCheck:
    """The components a judgment aligns, checked as `alignment_check` says."""
    if cfg.checks_alignment and parts and not fallback and cfg.alignment_check == "segment":
        return segment_alignment(
            parts,
            claimed,
            document=doc["content"],
            question=task["question"],
            roles=task.get("roles") or {},
            max_span=cfg.segment_words,
        )
    aligned, alignment, ratio = align(parts, [c for c, _ in claimed], cfg, fallback=fallback)
    return SegmentCheck(aligned=aligned, alignment=alignment, ratio=ratio)


def listed(parts: list[str], roles: dict[str, str]) -> str:
    """The question's components as the judge reads them ("subject: Apollo 11; ...")."""
    if not parts:
        return "(not parsed)"
    return "; ".join(f"{roles[p]}: {p}" if p in roles else p for p in parts)


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
