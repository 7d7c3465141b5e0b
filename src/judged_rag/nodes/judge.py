"""judge: one parallel task per (question, document) (RJAG, GGatrieval, SRA).

With the list judge, one task per window of documents instead. Each document gets one
`Judgment`: RJAG's three-level label with a reason, the question
components the document grounds (Full / Partial / No alignment), and SRA's composite
score. With the pre-filter on, clear cases are labelled from the score alone.

Setting `judge` chooses how the LLM is asked: `structured` (a JSON judgment with quoted
evidence and aligned components), `letter` (one output token A/B/C whose probabilities
give the label; no alignment), `extract` (the model copies the answer from the document
or replies NONE; a copy that really is in the document is the evidence), `list` (one
call grades a window of `judge_window` documents, one letter each, read as the letter
judge reads its one), `chunkrag` (ChunkRAG's scoring: a relevance score, the model's
reconsidered score and a critic's score, three calls per document; see below), or `off`
(every document kept unjudged: plain RAG).

The letter, list and extracting judges give a probability that the document states the
answer; it is combined with the retriever's cosine into the judge's score (`judge_score`
= (1 - w) * p + w * cosine, w = `judge_similarity_weight`), which `judge_threshold` cuts
(unset: the judge's own value, `JUDGE_THRESHOLDS`).

The ChunkRAG judge's task cannot label its document: the threshold is computed from the
scores of the whole round, which the parallel tasks never see together. Each task
records its scores (a `scored` event) and a provisional label by `judge_cutoff`; the
join (`assess`) calls `label_round`, which labels the round by its threshold
(`core.relevance`) and writes the `threshold` event and each document's `judged` event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import Extraction, LetterChoice
from judged_rag.configuration import Configuration
from judged_rag.core.alignment import SegmentCheck, segment_alignment
from judged_rag.core.comparison import compared
from judged_rag.core.documents import fence
from judged_rag.core.quotes import grounded, named, names_subject, subject_coverage, words
from judged_rag.core.relevance import (
    CALLS,
    RoundThreshold,
    dynamic_threshold,
    final_score,
    fixed_threshold,
    relevance_label,
)
from judged_rag.core.scores import composite_score
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag.schemas import (
    AlignedPart,
    ReflectedAlignment,
    RelevanceJudgment,
    RelevanceScore,
    SegmentJudgment,
)
from judged_rag.state import (
    Alignment,
    Cost,
    Doc,
    JudgeTask,
    JudgeWindow,
    Judgment,
    Label,
    RelevanceScores,
    TraceEvent,
    add_costs,
    zero_cost,
)

FALLBACK = RelevanceJudgment(label="somewhat_relevant", reason="unreadable judgment; safe default")
"""Recorded when no judgment could be read: kept as background, never as evidence."""
SEGMENT_FALLBACK = SegmentJudgment(label=FALLBACK.label, reason=FALLBACK.reason)
"""The same default for the segment-aligning judge."""


def judge(
    task: JudgeTask | JudgeWindow,
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    deps: NodeDeps,
) -> dict[str, Any]:
    """Judge one document against the question, or a window of them with the list judge.

    Also callable outside the graph; the list judge takes a single document's task as
    a window of one, and the ChunkRAG judge's label is then the provisional one, by
    `judge_cutoff` (what the join gives a round of one document).
    """
    cfg = deps.configuration(config, runtime)
    if "documents" in task:
        if cfg.judge != "list":
            raise ValueError(f"a window of documents needs judge='list', not {cfg.judge!r}")
        return judge_window(task, config, cfg, deps=deps)
    if cfg.judge == "list":
        window = JudgeWindow(
            question=task["question"],
            documents=[task["document"]],
            iteration=task["iteration"],
            window=0,
        )
        if "calls" in task:
            window["calls"] = task["calls"]
        return judge_window(window, config, cfg, deps=deps)
    doc = task["document"]
    score = composite_score(doc, cfg)
    base = {"doc_id": doc["id"], "composite_score": score, "iteration": task["iteration"]}
    if cfg.judge == "off":
        return _written(_unaligned(base, "highly_relevant", "judging off", by="unjudged"), cfg)
    prefiltered = _prefiltered(base, doc, score, cfg)
    if prefiltered is not None:
        return _written(prefiltered, cfg)
    if cfg.judge == "chunkrag":
        return _chunkrag(task, doc, base, cfg, config, deps)
    if cfg.judge not in ("letter", "extract"):
        return _structured(task, doc, base, cfg, config, deps)
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
        judged = _from_letter(base, letter.value, cfg, doc["similarity"])
        return _written(judged, cfg, letter.cost, letter.events)
    coverage = subject_coverage(task["question"], doc["title"], doc["content"])
    if cfg.subject_check and not named(coverage):
        # About another subject (another person, a namesake, a sibling company): nothing
        # copied from it can be evidence, so the model is not asked.
        return _written(_off_subject(base, doc, cfg, coverage), cfg)
    alternatives = compared(task["question"]) if cfg.splits_alternatives else []
    focus = alternative_named(alternatives, doc)
    asked = focus and prompt.EXTRACT_CHOICE.format(question=task["question"], subject=focus)
    with deps.components.judge_slots(cfg.judge_concurrency):
        found = step.extract(
            extract_messages(asked or task["question"], document),
            max_tokens=prompt.EXTRACT_MAX_TOKENS,
            default=FALLBACK.model_dump(),
            count_round=False,  # the join counts the rounds of the whole fan-out
        )
    judged = _from_extraction(base, found.value, doc, cfg, alternatives=alternatives)
    if alternatives:
        judged = _for_alternative(judged, alternatives, focus)
    return _written(judged, cfg, found.cost, found.events)


def alternative_named(alternatives: list[str], doc: Doc) -> str | None:
    """The first of a question's alternatives that the document names in full, or None."""
    return next((a for a in alternatives if names_subject(a, doc["title"], doc["content"])), None)


def substantive(quote: str, alternatives: Sequence[str]) -> bool:
    """Whether a quote says more than the alternatives' own names.

    "Iskmere Ship Repair" copied from Iskmere Ship Repair's page answers nothing about
    which was founded earlier; "1904" does.
    """
    named_words = {w for a in alternatives for w in words(a).split()}
    return any(w not in named_words for w in words(quote).split())


def _for_alternative(judgment: Judgment, alternatives: list[str], focus: str | None) -> Judgment:
    """An extracting judgment of a question with alternatives, as GGatrieval's alignment.

    The document was asked about the one alternative it names (`focus`); a Highly
    Relevant judgment aligns that alternative, one of the question's parts (Partial
    while others remain: `assess` asks the Highly Relevant documents to cover them all).
    """
    if judgment["label"] != "highly_relevant" or focus is None:
        return judgment
    share = 1.0 / len(alternatives)
    return {
        **judgment,
        "reason": f"{judgment['reason']}; answers for {focus}",
        "aligned_components": [focus],
        "alignment": "full" if share >= 1.0 else "partial",
        "alignment_ratio": round(share, 4),
    }


def _structured(
    task: JudgeTask,
    doc: Doc,
    base: dict[str, Any],
    cfg: Configuration,
    config: RunnableConfig,
    deps: NodeDeps,
) -> dict[str, Any]:
    """RJAG's labelled judgment and the components the document grounds (FGA).

    With `alignment_check="segment"` the judge copies each component's segment and
    `core.alignment` checks it; with `reflection` a second call reviews the list
    (M'(Q, D)) and the alignment label follows the reviewed list.
    """
    parts = task["query_parts"]
    roles = task.get("roles") or {}
    segment = cfg.checks_alignment and cfg.alignment_check == "segment"
    reflecting = cfg.reflects and bool(parts)
    calls = task.get("calls")
    # The reflection's call is kept back from the judgment's retries.
    first_calls = calls if calls is None or not reflecting else max(1, calls - 1)
    step = deps.step("judge", task, config, cfg, calls=first_calls)
    components = listed(parts, roles)
    document = fence(doc["content"])
    user = prompt.USER.format(question=task["question"], components=components, document=document)
    schema: type[RelevanceJudgment | SegmentJudgment] = (
        SegmentJudgment if segment else RelevanceJudgment
    )
    with deps.components.judge_slots(cfg.judge_concurrency):
        outcome = step.structured(
            schema,
            [
                SystemMessage(prompt.SEGMENT_SYSTEM if segment else prompt.SYSTEM),
                HumanMessage(user),
            ],
            default=SEGMENT_FALLBACK if segment else FALLBACK,
            count_round=False,  # the join counts the rounds of the whole fan-out
        )
    value = outcome.value
    check = _checked(parts, claims(value), cfg, task, doc, fallback=outcome.fallback)
    cost, events = outcome.cost, list(outcome.events)
    reflected = False
    if reflecting and not outcome.fallback:
        left = None if calls is None else calls - cost["llm_calls"]
        if left is not None and left < 1:
            events.append(event("judge", "budget", doc_id=doc["id"], skipped="reflection"))
        else:
            second = deps.step("judge", task, config, cfg, calls=left)
            first = [AlignedPart(part=p, segment=check.segments.get(p, "")) for p in check.aligned]
            user = prompt.REFLECT_USER.format(
                question=task["question"],
                components=components,
                document=document,
                listed="; ".join(f'{a.part} = "{a.segment}"' for a in first) or "(none)",
            )
            with deps.components.judge_slots(cfg.judge_concurrency):
                review = second.structured(
                    ReflectedAlignment,
                    [SystemMessage(prompt.REFLECT_SYSTEM), HumanMessage(user)],
                    default=ReflectedAlignment(aligned=first),
                    count_round=False,  # the join counts the reflection round
                )
            reviewed = _checked(parts, claims(review.value), cfg, task, doc, fallback=False)
            cost, reflected = add_costs(cost, review.cost), True
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
            check = reviewed
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
    judgment = Judgment(
        **base,  # type: ignore[typeddict-item]
        label=value.label,
        reason=value.reason[:300],
        evidence=value.evidence,
        aligned_components=check.aligned,
        alignment=check.alignment,
        alignment_ratio=check.ratio,
        by="fallback" if outcome.fallback else "llm",
    )
    if segment:
        judgment["segments"] = check.segments
    if reflected:
        judgment["reflected"] = True
    return _written(judgment, cfg, cost, events)


def _chunkrag(
    task: JudgeTask,
    doc: Doc,
    base: dict[str, Any],
    cfg: Configuration,
    config: RunnableConfig,
    deps: NodeDeps,
) -> dict[str, Any]:
    """ChunkRAG's scores of one document: first, reconsidered, and the critic's.

    The calls run in the paper's order, each with the attempts the task's share of the
    budget allows after keeping one for every call after it. A call the budget leaves
    nothing for is skipped (recorded), and its score is the one before it, as for a
    reply that cannot be read (recorded too). An unreadable first score ends the task
    with the recorded safe default: there is nothing to reconsider.
    """
    calls = task.get("calls")
    question, document = task["question"], fence(doc["content"])
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
            judgment = _unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
            return _written(judgment, cfg, cost, events)
        scores.append(round(outcome.value.score, 4))
    initial, reflected, critic = scores
    relevance = RelevanceScores(
        initial=initial,
        reflected=reflected,
        critic=critic,
        final=final_score(initial, reflected, critic),
    )
    label, reason = _relevance_label(relevance, cfg.judge_cutoff)
    judgment = _unaligned(base, label, reason, by="llm")
    judgment["relevance"] = relevance
    judgment["p_highly"] = judgment["judge_score"] = relevance["final"]
    if "reconsider" in made:
        judgment["reflected"] = True
    if "critic" in made:
        judgment["critiqued"] = True
    events.append(event("judge", "scored", doc_id=doc["id"], **relevance))
    return {"judgments": [judgment], "cost": cost, "trace": events}


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
            events.append(_judged(judgment, cfg, threshold=threshold.value))
        labelled.append(judgment)
    return labelled, events


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


def judge_window(
    task: JudgeWindow, config: RunnableConfig, cfg: Configuration, *, deps: NodeDeps
) -> dict[str, Any]:
    """The list judge: one call grades every document of the window that needs the LLM.

    Each document gets its own `Judgment` and `judged` event, labelled as the letter
    judge labels (P(A) read at its letter's token, combined with the cosine). A document
    the reply gives no readable letter for gets the recorded safe default; a failed call
    gives it to every document the call was for.
    """
    slots: list[Judgment | None] = []
    asked: list[tuple[Doc, dict[str, Any]]] = []
    for doc in task["documents"]:
        score = composite_score(doc, cfg)
        base = {"doc_id": doc["id"], "composite_score": score, "iteration": task["iteration"]}
        prefiltered = _prefiltered(base, doc, score, cfg)
        slots.append(prefiltered)
        if prefiltered is None:
            asked.append((doc, base))
    cost: Cost = zero_cost()
    events: list[Any] = []
    graded: list[Judgment] = []
    if asked:
        step = deps.step("judge", task, config, cfg, calls=task.get("calls"))
        with deps.components.judge_slots(cfg.judge_concurrency):
            outcome = step.letter_list(
                list_messages(task["question"], [doc for doc, _ in asked]),
                list(prompt.LETTERS),
                len(asked),
                max_tokens=prompt.LIST_TOKENS_PER_DOCUMENT * len(asked),
                default=FALLBACK.model_dump(),
                count_round=False,  # the join counts one round per window
            )
        cost, events = outcome.cost, list(outcome.events)
        choices = outcome.value or [None] * len(asked)
        for position, ((doc, base), choice) in enumerate(zip(asked, choices, strict=True), 1):
            judgment = _from_letter(base, choice, cfg, doc["similarity"])
            judgment["window"] = task["window"]
            judgment["reason"] = f"position {position} of {len(asked)}: {judgment['reason']}"
            if choice is None and not outcome.fallback:
                events.append(
                    event(
                        "judge",
                        "fallback",
                        doc_id=doc["id"],
                        error="no readable letter for its number in the reply",
                        position=position,
                        default=FALLBACK.model_dump(),
                    )
                )
            graded.append(judgment)
    remaining = iter(graded)
    judgments = [j if j is not None else next(remaining) for j in slots]
    return {
        "judgments": judgments,
        "cost": cost,
        "trace": [*events, *(_judged(j, cfg) for j in judgments)],
    }


def list_messages(question: str, docs: list[Doc]) -> list[BaseMessage]:
    """The list judge's messages: the instructions, then the question and numbered documents."""
    documents = "\n".join(
        prompt.LIST_DOCUMENT.format(number=n, document=fence(doc["content"]))
        for n, doc in enumerate(docs, start=1)
    )
    user = prompt.LIST_USER.format(question=question, documents=documents)
    return [SystemMessage(prompt.LIST_SYSTEM), HumanMessage(user)]


def letter_label(choice: LetterChoice, threshold: float, *, score: float | None = None) -> Label:
    """The label of a letter judgment.

    With probabilities: Highly Relevant when the judge's score (P(A) unless `score` is
    given) reaches `threshold`, otherwise the likelier of B and C. Without (the backend
    reports none): the letter answered.
    """
    if choice.probabilities is None:
        answered: Label = prompt.LETTERS[choice.letter]  # type: ignore[assignment]
        return answered
    p = choice.probabilities
    if (p["A"] if score is None else score) >= threshold:
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


def extract_messages(question: str, document: str) -> list[BaseMessage]:
    """The extracting judge's messages: the instructions, then the document and question."""
    user = prompt.EXTRACT_USER.format(question=question, document=document)
    return [SystemMessage(prompt.EXTRACT_SYSTEM), HumanMessage(user)]


def judge_score(p: float, similarity: float | None, weight: float) -> float:
    """The judge's score: the LLM's probability, combined with the retriever's cosine.

    (1 - weight) * p + weight * similarity; p alone when the document has no cosine.
    """
    if similarity is None:
        return round(p, 4)
    return round((1.0 - weight) * p + weight * similarity, 4)


def _from_letter(
    base: dict[str, Any],
    choice: LetterChoice | None,
    cfg: Configuration,
    similarity: float | None,
) -> Judgment:
    if choice is None:
        return _unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
    if choice.probabilities is None:
        label = letter_label(choice, cfg.judge_cutoff)
        reason = f"letter {choice.letter} (the backend gave no probabilities)"
        return _unaligned(base, label, reason, by="llm")
    p = choice.probabilities["A"]
    score = judge_score(p, similarity, cfg.judge_similarity_weight)
    label = letter_label(choice, cfg.judge_cutoff, score=score)
    shares = " ".join(f"P({k})={v:.2f}" for k, v in choice.probabilities.items())
    reason = f"letter {choice.letter}, {shares}, score {score}, threshold {cfg.judge_cutoff}"
    judgment = _unaligned(base, label, reason, by="llm")
    judgment["p_highly"] = p
    judgment["judge_score"] = score
    return judgment


def extraction_label(found: Extraction, in_document: bool, score: float, threshold: float) -> Label:
    """RJAG's label of an extracting judgment.

    Highly Relevant: the quoted answer is in the document and the score reaches the
    threshold. Somewhat Relevant: a quote from the document below the threshold, or an
    answer the model gave that the document does not hold (it saw the question's topic
    there but no answer). Not Relevant: the model replied NONE.
    """
    if in_document and score >= threshold:
        return "highly_relevant"
    return "not_relevant" if found.none else "somewhat_relevant"


def _off_subject(
    base: dict[str, Any], doc: Doc, cfg: Configuration, coverage: float | None
) -> Judgment:
    """The extracting judge's verdict on a document about another subject, without a call.

    A year copied from another person's page is in that page but not about the question's
    subject, so the subject check makes any quote from it worthless: RJAG's Not Relevant
    (so that it does not reach the generator as Somewhat Relevant knowledge either), with
    the probability 0 and the score that a quote from it would have been given.
    """
    share = f"{coverage:.0%}" if coverage is not None else "none"
    reason = f"the document names {share} of the question's subject: not about it (no LLM call)"
    judgment = _unaligned(base, "not_relevant", reason, by="subject_check")
    judgment["p_highly"] = 0.0
    judgment["judge_score"] = judge_score(0.0, doc["similarity"], cfg.judge_similarity_weight)
    return judgment


def _from_extraction(
    base: dict[str, Any],
    found: Extraction | None,
    doc: Doc,
    cfg: Configuration,
    *,
    alternatives: Sequence[str] = (),
) -> Judgment:
    if found is None:
        return _unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
    in_document = not found.none and grounded(found.text, doc["content"])
    # Only a name the question offers to choose between ("Iskmere Ship Repair", copied
    # from its own page): it decides nothing, whatever the model's confidence.
    name_only = in_document and bool(alternatives) and not substantive(found.text, alternatives)
    in_document = in_document and not name_only
    if not in_document:
        p = 0.0
    elif found.p_none is None:
        p = 1.0  # no probabilities from the backend: the quote alone decides
    else:
        p = round(1.0 - found.p_none, 4)
    score = judge_score(p, doc["similarity"], cfg.judge_similarity_weight)
    label = extraction_label(found, in_document, score, cfg.judge_cutoff)
    if found.none:
        reason = "the judge found no answer in the document"
    elif name_only:
        reason = "the judge copied only a name from the question: no evidence"
    elif in_document:
        reason = f"answer quoted from the document, score {score}"
    else:
        reason = "the judge's answer is not in the document"
    reason += f", P(NONE)={found.p_none}" if found.p_none is not None else ""
    judgment = _unaligned(base, label, reason, by="llm")
    judgment["evidence"] = found.text[:300] if in_document else ""
    judgment["p_highly"] = p
    judgment["judge_score"] = score
    return judgment


def _prefiltered(
    base: dict[str, Any], doc: Doc, score: float, cfg: Configuration
) -> Judgment | None:
    """The pre-filter's judgment of a clear case (no LLM call), or None."""
    clear = score >= cfg.prefilter_high or score <= cfg.prefilter_low
    if not (cfg.prefilter and doc["similarity"] is not None and clear):
        return None
    label: Label = "highly_relevant" if score >= cfg.prefilter_high else "not_relevant"
    reason = f"composite score {score} past the pre-filter bound"
    return _unaligned(base, label, reason, by="prefilter")


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
    judgment: Judgment,
    cfg: Configuration,
    cost: Cost | None = None,
    events: list[Any] | None = None,
) -> dict[str, Any]:
    return {
        "judgments": [judgment],
        "cost": cost or zero_cost(),
        "trace": [*(events or []), _judged(judgment, cfg)],
    }


def _judged(judgment: Judgment, cfg: Configuration, *, threshold: float | None = None) -> Any:
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
