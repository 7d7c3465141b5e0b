"""assess: the join after the judge fan-out; is the support sufficient?

Gathers the judgments of every iteration into D_H / D_S / D_N and decides, from label
and alignment counts or from an LLM verification (LLatrieval's Verify(q, D)), whether
the supporting set is enough. `route_after_assess` turns that into rewrite vs combine;
with `sufficiency="progressive"` the decision is `select`'s (Algorithm 1's progressive
selection and Verify), and assess only counts. With the ChunkRAG judge, the round's
documents are labelled here first, by the threshold of the round's scores
(`JudgeStrategy.label_round`): the parallel judge tasks cannot see each other's scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.asked import answers_other, asked_cell, row_words, wrong_row
from judged_rag.core.budget import ANSWERING, charged, exhausted, rounds_left, spare
from judged_rag.core.documents import doc_date, numbered, undated
from judged_rag.core.judgments import (
    LABELS,
    alternatives_asked,
    is_supporting,
    labelled_sets,
    latest_judgments,
    uncovered,
)
from judged_rag.core.quotes import SUBJECT_COVERAGE, names_subject, subject_coverage
from judged_rag.core.trace import event
from judged_rag.nodes.judge.strategies import batched, strategy
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import assess as prompt
from judged_rag.schemas import SupportCheck
from judged_rag.state import Cost, Doc, Hop, Judgment, State, TraceEvent, zero_cost

STALL_MARGIN = 0.05
"""How much a round must raise the best document score to count as progress: a better
label always does (it adds 1); among documents of one label, scores a few hundredths
apart are the judge's noise, not a document that is closer to the answer."""
LLM_FREE = ("prefilter", "subject_check", "unjudged")
"""Who decides a judgment without an LLM call (`Judgment.by`): no judge round for them."""


def is_stalled(best_now: float | None, best_before: float | None) -> bool:
    """Whether a round made no progress (the first round always does).

    No progress: nothing new was judged, or the round's best score (`best_scores`) is
    less than `STALL_MARGIN` above the earlier rounds' best.
    """
    if best_before is None:
        return False
    return best_now is None or best_now < best_before + STALL_MARGIN


def best_scores(judgments: list[Judgment], iteration: int) -> tuple[float | None, float | None]:
    """The best document score of round `iteration` and of the rounds before it.

    A document's score is the LLM's own probability that it states the answer
    (`p_highly`) when the judge gave one, otherwise its composite score, plus one for each
    label step above Not Relevant, so that a better label always counts as progress. The
    retriever's cosine is left out where the LLM spoke: a rewritten query retrieves pages
    ever closer to its own words, and that rise is not evidence (on questions with no
    evidence it kept the loop running while every judgment was 0). None: no judgment in
    those rounds.
    """

    def score(j: Judgment) -> float:
        own = j.get("p_highly")
        base = float(own) if own is not None else float(j["composite_score"])
        return base + {"highly_relevant": 2.0, "somewhat_relevant": 1.0}.get(j["label"], 0.0)

    now = [score(j) for j in judgments if j["iteration"] == iteration]
    before = [score(j) for j in judgments if j["iteration"] < iteration]
    return (max(now) if now else None, max(before) if before else None)


def assess(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Count the labels, decide sufficiency, and account for the judge rounds."""
    cfg = deps.configuration(config, runtime)
    iteration = state.get("iteration", 0)
    labelled, events = strategy(cfg).label_round(state.get("judgments") or [], iteration, cfg)
    # Events: the judge labels its rounds at the join (ChunkRAG's), and this one had scores.
    relabelled = labelled if events else None
    if cfg.subject_grounding:
        grounded, off = _grounded_support(state, labelled, iteration)
        if off:
            relabelled = grounded
            events.append(event("assess", "not_grounded", documents=off))
    current = relabelled if relabelled is not None else labelled
    kept, elsewhere = _other_fact(state, current, iteration)
    if elsewhere:
        relabelled = current = kept
        events.append(event("assess", "other_fact", documents=elsewhere))
    kept, rows = _other_row(state, current, iteration)
    if rows:
        relabelled = kept
        read = {
            j["doc_id"]: j["evidence"]
            for j in kept
            if j["doc_id"] in rows and j["iteration"] == iteration and not j.get("hop")
        }
        events.append(event("assess", "other_row", documents=rows, read=read))
    if relabelled is not None:
        state = {**state, "judgments": relabelled}
    judged = list(latest_judgments(state).values())
    batch, still_pending = judged_now(state, iteration)
    llm_judged, rounds = judge_rounds(batch, cfg.judge_concurrency)
    cost: Cost = zero_cost()
    cost["llm_rounds"] = rounds
    counts = {label: sum(1 for j in judged if j["label"] == label) for label in LABELS}
    supporting = sum(1 for j in judged if is_supporting(j))
    alternatives = alternatives_asked(state, cfg)
    missing = uncovered(judged, alternatives)
    if state.get("verdict") == "reopen":
        # Judging reopened after a decline: enough once a new document supports.
        sufficient = any(is_supporting(j) for j in batch)
    elif cfg.sufficiency == "labels":
        # A question with alternatives: enough once every alternative has a Highly
        # Relevant document that answers for it (no one page need answer it all).
        sufficient = supporting >= cfg.min_supporting or (bool(alternatives) and not missing)
    elif cfg.sufficiency == "progressive":
        sufficient = False  # `select` decides: progressive selection, then Verify(q, D)
    else:
        sufficient, cost = _verified(state, config, cfg, deps, cost, events)
    later = (
        superseders(state, cfg, judged, still_pending)
        if sufficient and batched(cfg) and cfg.sufficiency == "labels"
        else []
    )
    if later:
        # The support is dated: the round's pages about the same subject may say what
        # replaced it, so they are judged before the support is taken as enough.
        sufficient = False
        still_pending = later
        events.append(event("assess", "dated_support", reading=later))
    answering = [j for j in state.get("judgments") or [] if not j.get("hop")]
    best_now, best_before = best_scores(answering, iteration)
    stalled = not sufficient and not later and is_stalled(best_now, best_before)
    hop_update = _hop_found(state, batch, cfg, events)
    if hop_update is not None:
        stalled = False  # the round found a name, or not: the question itself is next
    events.append(
        event(
            "assess",
            "assessed",
            iteration=iteration,
            counts=counts,
            supporting=supporting,
            judged_by_llm=llm_judged,
            **({"pending": len(still_pending)} if batched(cfg) else {}),
            sufficient=sufficient,
            **({"uncovered": missing} if alternatives else {}),
            by=cfg.sufficiency,
            best_score=best_now,
            best_before=best_before,
            stalled=stalled,
        )
    )
    pending = still_pending if batched(cfg) and not sufficient else []
    update = _update(
        state, cfg, cost, events, sufficient=sufficient, stalled=stalled, pending=pending
    )
    if relabelled is not None:
        update["judgments"] = Overwrite(relabelled)  # the round's labels, given here
    if hop_update is not None:
        update["hop"] = hop_update
        if hop_update["answer"] or hop_update["iteration"] > iteration:
            update["pending"] = []  # named: the rest of the round is not judged for it
    return update


def _grounded_support(
    state: State, judgments: list[Judgment], iteration: int
) -> tuple[list[Judgment], list[str]]:
    """The judgments with the round's off-subject support made Somewhat Relevant.

    `subject_grounding`: a Highly Relevant judgment of a document that does not name
    what the question names (its text, title and context note) answers for something
    else, a namesake or a sibling office, however sure the judge was of its copy. It
    stays in the knowledge as Somewhat Relevant, after those that name it
    (`Judgment.grounded`); the round goes on as if it had not been found. Judgments
    made for the hop's first question are left alone. The ids of those relabelled.
    """
    question = hops.asked(state)
    return _not_grounded(
        state,
        judgments,
        iteration,
        lambda _, doc: not names_subject(question, doc["title"], doc["content"]),
        "the document does not name what the question names",
    )


def _other_fact(
    state: State, judgments: list[Judgment], iteration: int
) -> tuple[list[Judgment], list[str]]:
    """The judgments with the round's copies of another fact than the one asked made Somewhat.

    A page states several frequencies of one subject, and a small judge asked "How often
    does the WSB meet?" copies the WSB charter's "It is reviewed at least once a year";
    asked "May I fly business class, and on flights of what length?", it copies the
    hotel limit of the same travel policy. When a retrieved document states the value
    in the question's words, a Highly Relevant copy whose own sentence holds none of
    them answers for something else (`core.asked.answers_other`): it stays in the
    knowledge as Somewhat Relevant, ranked after the others (`Judgment.grounded`), its
    copy the bridge, and the round goes on. With no such statement retrieved, nothing is
    relabelled. Judgments made for the hop's first question are left alone. The ids of
    those relabelled.
    """
    other = answers_other(hops.asked(state), state.get("documents") or [])
    if other is None:
        return judgments, []
    return _not_grounded(
        state,
        judgments,
        iteration,
        lambda j, doc: other(j["evidence"], doc),
        "the copy states another fact; another document states the one asked",
    )


def _other_row(
    state: State, judgments: list[Judgment], iteration: int
) -> tuple[list[Judgment], list[str]]:
    """The judgments with the round's copies read from another row of a table re-read.

    Asked "which office is zaleth dumas based in?", a small judge reads the office from
    the row above in the staff directory. A copy found only in table rows holding none
    of the question's words, when another row of its table holds one
    (`core.asked.wrong_row`), is not what the document says of the row asked about.
    When one row holds the question's words, its cell in the copy's column is the copy
    (`core.asked.asked_cell`: "Maiti" for "Kurovak"), and the label stands: the judge
    found the column, the question names the row. Otherwise the copy is dropped, and a
    Highly Relevant judgment becomes Somewhat Relevant; the document keeps its score (it
    holds the row asked about), so it still leads the documents the judge found nothing
    in. Not for a question that may describe what it asks about
    (`core.hops.describable`: "the extension of the person who hired Ana Lima" is in
    another row than hers), nor for judgments made for the hop's first question. The
    ids of those changed.
    """
    question = hops.asked(state)
    if hops.describable(question):
        return judgments, []
    asked = row_words(question)
    why = "the copy is from another row of its table than the one asked about"

    def reread(j: Judgment, doc: Doc) -> Judgment:
        cell = asked_cell(asked, undated(doc["content"]), j["evidence"])
        if cell is not None:
            return {**j, "evidence": cell, "reason": f"{j['reason']}; {why}: its cell read"}
        label = "somewhat_relevant" if j["label"] == "highly_relevant" else j["label"]
        return {**j, "label": label, "evidence": "", "reason": f"{j['reason']}; {why}"}

    return _changed(
        state,
        judgments,
        iteration,
        lambda j, doc: (
            bool(j["evidence"]) and wrong_row(asked, undated(doc["content"]), j["evidence"])
        ),
        reread,
    )


def _not_grounded(
    state: State,
    judgments: list[Judgment],
    iteration: int,
    answers_else: Callable[[Judgment, Doc], bool],
    why: str,
) -> tuple[list[Judgment], list[str]]:
    """The round's Highly Relevant judgments that `answers_else`, made Somewhat Relevant.

    Marked not grounded (`Judgment.grounded`: ranked after the rest of their set), with
    `why` added to their reason. The judgments, and the ids of those relabelled.
    """

    def relabelled(j: Judgment, _: Doc) -> Judgment:
        changed: Judgment = {**j, "label": "somewhat_relevant", "reason": f"{j['reason']}; {why}"}
        changed["grounded"] = False
        return changed

    return _changed(
        state,
        judgments,
        iteration,
        lambda j, doc: j["label"] == "highly_relevant" and answers_else(j, doc),
        relabelled,
    )


def _changed(
    state: State,
    judgments: list[Judgment],
    iteration: int,
    applies: Callable[[Judgment, Doc], bool],
    change: Callable[[Judgment, Doc], Judgment],
) -> tuple[list[Judgment], list[str]]:
    """The judgments with `change` made to the round's that `applies` to, with their ids.

    Judgments of earlier rounds, of documents no longer held, and those made for the
    hop's first question are left alone.
    """
    docs = {d["id"]: d for d in state.get("documents") or []}
    ids: list[str] = []
    out: list[Judgment] = []
    for j in judgments:
        doc = docs.get(j["doc_id"])
        if j["iteration"] == iteration and not j.get("hop") and doc is not None and applies(j, doc):
            j = change(j, doc)
            ids.append(j["doc_id"])
        out.append(j)
    return out, ids


def superseders(
    state: State, cfg: Configuration, judged: list[Judgment], pending: list[str]
) -> list[str]:
    """The round's pending documents to judge before dated support is taken as enough.

    When every supporting judgment is of a dated document ("Business digest 2021: its
    chief executive, Fadei Bovos"), a later page may say what replaced it ("In April
    2022 Brutrokal Darer succeeded Bovos"): the pending documents that name what the
    question names, in their title or their text (a section "WSB" of a page "Governance
    bodies" says when the board meets; the minutes of one of its meetings are dated),
    are judged first, as far as the call budget allows. None for a question that names
    nothing, for undated support, or once they are judged.
    """
    supporting = [j for j in judged if is_supporting(j)]
    docs = {d["id"]: d for d in state.get("documents") or []}
    if not supporting or not all(
        j["doc_id"] in docs and doc_date(docs[j["doc_id"]]) for j in supporting
    ):
        return []
    question = hops.asked(state)
    about = [
        i
        for i in pending
        if i in docs
        and (subject_coverage(question, docs[i]["title"], docs[i]["content"]) or 0.0)
        >= SUBJECT_COVERAGE
    ]
    return about[: spare(state, cfg, *ANSWERING)]


def _hop_found(
    state: State, batch: list[Judgment], cfg: Configuration, events: list[TraceEvent]
) -> Hop | None:
    """The hop with its answer, after the round that asked its first question; else None.

    The round's best answering copy (`core.hops.answered`) names what the description
    describes, from a page that says what the description says; when no document
    answered, the hop keeps no answer and the question is asked as it is. A name found
    for a description inside another is followed by the outer one's step, asked next
    round (`core.hops.following`), while a round is left for the question after it.
    """
    hop = state.get("hop")
    if hop is None or not hops.pending(state):
        return None
    pages = {d["id"]: f"{d['title']}\n{d['content']}" for d in state.get("documents") or []}
    asked = hops.resolved(state["question"], hop)  # the earlier steps' names in place
    found = hops.answered(batch, cfg.judge_cutoff, hop, asked, pages)
    answer, doc_id = found if found is not None else (None, None)
    events.append(event("assess", "hop", question=hop["question"], answer=answer, document=doc_id))
    named: Hop = {**hop, "answer": answer, "doc_id": doc_id}
    if rounds_left(state, cfg) < 2:  # no round would be left for the question itself
        return named
    then = hops.following(state["question"], named, hop["iteration"] + 1)
    if then is None:
        return named
    events.append(
        event("assess", "hop_planned", describes=then["describes"], first_question=then["question"])
    )
    return then


def judged_now(state: State, iteration: int) -> tuple[list[Judgment], list[str]]:
    """The judgments made since the last assessment, and the documents still pending.

    Those of the round's documents that were pending: all of the round's, or with
    `judge_batch` its latest batch; the round's others stay pending.
    """
    pending = state.get("pending") or []
    pending_ids = set(pending)
    this_round = [j for j in state.get("judgments") or [] if j["iteration"] == iteration]
    batch = [j for j in this_round if j["doc_id"] in pending_ids]
    judged = {j["doc_id"] for j in batch}
    return batch, [i for i in pending if i not in judged]


def judge_rounds(batch: list[Judgment], concurrency: int) -> tuple[int, int]:
    """How many of `batch` an LLM judged, and the sequential LLM rounds that took.

    One call per document, except the list judge's: one per window. A reflection
    (GGatrieval's M'(Q, D), ChunkRAG's self-reflection) is a second call that waits for
    its judgment; ChunkRAG's critic a third, after the reflection. Each kind of call
    runs `concurrency` at a time.
    """
    by_llm = [j for j in batch if j["by"] not in LLM_FREE]
    windows = {j["window"] for j in by_llm if "window" in j}
    judge_calls = len(windows) + sum(1 for j in by_llm if "window" not in j)
    waiting = (
        sum(1 for j in by_llm if j.get("reflected")),
        sum(1 for j in by_llm if j.get("critiqued")),
    )
    return len(by_llm), sum(math.ceil(n / concurrency) for n in (judge_calls, *waiting))


def _verified(
    state: State,
    config: RunnableConfig,
    cfg: Configuration,
    deps: NodeDeps,
    cost: Cost,
    events: list[TraceEvent],
) -> tuple[bool, Cost]:
    """Sufficiency by the LLM (`sufficiency="llm"`): Verify(q, D) on the best-labelled.

    The Highly, then Somewhat Relevant documents, `max_knowledge` of them; no documents
    or a spent budget: not sufficient, and no call. Returns the verdict and `cost` with
    the call's added.
    """
    sets = labelled_sets(state)
    candidates = [*sets["highly_relevant"], *sets["somewhat_relevant"]][: cfg.max_knowledge]
    step = deps.step("assess", state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        events.append(event("assess", "budget", exhausted=step.exhausted))
    if not candidates or step.exhausted:
        return False, cost
    user = prompt.USER.format(question=state["question"], documents=numbered(candidates))
    outcome = step.structured(
        SupportCheck,
        [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
        default=SupportCheck(sufficient=False),
    )
    events.extend(outcome.events)
    return outcome.value.sufficient, {
        **outcome.cost,
        "llm_rounds": outcome.cost["llm_rounds"] + cost["llm_rounds"],
    }


def _update(
    state: State,
    cfg: Configuration,
    cost: Cost,
    events: list[TraceEvent],
    *,
    sufficient: bool,
    stalled: bool,
    pending: list[str],
) -> dict[str, Any]:
    """The join's verdict, cost and trace, and whether the budget still allows a rewrite."""
    after = charged(state, cost)
    out_of_budget = exhausted(after, cfg, keep=(*ANSWERING, "rewrite"))
    if out_of_budget:
        events.append(event("assess", "budget", exhausted=out_of_budget, stops="the rewrite loop"))
    return {
        "sufficient": sufficient,
        "stalled": stalled,
        "pending": pending,
        "budget_exhausted": out_of_budget,
        "cost": cost,
        "trace": events,
    }
