"""The extracting judge (`judge="extract"`): the model copies the answer or replies NONE.

A copy that really is in the document is the evidence, and 1 - P(NONE) its probability,
combined with the retriever's cosine into the judge's score. With `subject_check`, a
document that does not name the question's subject is Not Relevant without a call. A
question that chooses between names (`core.comparison.compared`) asks each document
about the name it carries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from judged_rag.components.llm import Extraction, read_extraction
from judged_rag.configuration import Configuration
from judged_rag.core.asked import measure_mismatch, names_pinned, of_kind, pinned, worded_as_asked
from judged_rag.core.comparison import compared
from judged_rag.core.conflicts import comparable, name_like, same_value
from judged_rag.core.documents import titled, undated
from judged_rag.core.quotes import (
    grounded,
    named,
    names_subject,
    quoted_within,
    states_a_number,
    subject_coverage,
    words,
)
from judged_rag.core.trace import event
from judged_rag.core.updates import Later, superseding, unchanged
from judged_rag.nodes.judge.common import (
    FALLBACK,
    Judging,
    OneDocumentJudge,
    judge_score,
    unaligned,
    written,
)
from judged_rag.prompts import judge as prompt
from judged_rag.state import Doc, Judgment, Label, Update, add_costs


class Extract(OneDocumentJudge):
    """One call a document (none for a document about another subject)."""

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """Ask the model to copy the answer, and label the document by the copy."""
        task, doc, base, cfg, config, deps = j
        step = deps.step("judge", task, config, cfg, calls=task.get("calls"))
        coverage = subject_coverage(task["question"], doc["title"], doc["content"])
        if cfg.subject_check and not named(coverage):
            # About another subject (another person, a namesake, a sibling company):
            # nothing copied from it can be evidence, so the model is not asked.
            return written(_off_subject(base, doc, cfg, coverage), cfg)
        alternatives = compared(task["question"]) if cfg.splits_alternatives else []
        focus = alternative_named(alternatives, doc)
        asked = focus and prompt.EXTRACT_CHOICE.format(question=task["question"], subject=focus)
        with deps.components.judge_slots(cfg.judge_concurrency):
            found = step.reading(
                extract_messages(asked or task["question"], titled(doc)),
                read_extraction,
                max_tokens=prompt.EXTRACT_MAX_TOKENS,
                default=FALLBACK.model_dump(),
                count_round=False,  # the join counts the rounds of the whole fan-out
            )
        # What the chunk states: its text without the date its note gives it (the
        # indexer's label for the whole document; minutes dated in June do not say a
        # project goes live in June). The note's definitions stay: the document's words.
        stated = undated(doc["content"])
        copied = _copied(found.value, stated, task["question"])
        judged = _from_extraction(base, copied, doc, stated, cfg, alternatives=alternatives)
        judged = _in_form(judged, task["question"], doc)
        judged = _no_value(judged, task["question"], stated, doc, cfg)
        if alternatives:
            judged = _for_alternative(judged, alternatives, focus)
        cost, events = found.cost, list(found.events)
        later = None
        if judged["label"] == "highly_relevant" and not alternatives and not task.get("hop"):
            later = superseding(doc["content"], judged["evidence"], task["question"])
        left = (task.get("calls") or 0) - cost["llm_calls"]
        if later is not None and left >= 1:
            # The document says later what replaced the copy: read that alone, once.
            again = deps.step("judge", task, config, cfg, calls=left)
            with deps.components.judge_slots(cfg.judge_concurrency):
                asked_again = prompt.EXTRACT_LATER.format(
                    question=task["question"], copy=judged["evidence"]
                )
                read_again = titled({**doc, "content": f"{later.first} {later.text}"})
                reread = again.reading(
                    extract_messages(asked_again, read_again),
                    read_extraction,
                    max_tokens=prompt.EXTRACT_MAX_TOKENS,
                    default=FALLBACK.model_dump(),
                    count_round=False,
                )
            cost, events = add_costs(cost, reread.cost), [*events, *reread.events]
            judged = _updated(judged, reread.value, later)
            events.append(
                event(
                    "judge",
                    "later_statement",
                    doc_id=doc["id"],
                    copy=judged["evidence"][:120],
                    since=later.since,
                    later=later.date,
                    update=judged.get("update", {}).get("value"),
                )
            )
        return written(judged, cfg, cost, events)


EXTRACT = Extract()


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


def extract_messages(question: str, document: str) -> list[BaseMessage]:
    """The extracting judge's messages: the instructions, then the document and question."""
    user = prompt.EXTRACT_USER.format(question=question, document=document)
    return [SystemMessage(prompt.EXTRACT_SYSTEM), HumanMessage(user)]


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


def _in_form(judgment: Judgment, question: str, doc: Doc) -> Judgment:
    """A Highly Relevant copy that is not what the question's form asks, made Somewhat.

    `core.asked`: a question asking how many or when needs a number or a time, and one
    naming a year or a version needs a chunk that names it. The copy stays as the
    judgment's evidence, which the rewrite's next query carries (the bridge to the fact
    asked), but it is no longer support.
    """
    if judgment["label"] != "highly_relevant" or not judgment["evidence"]:
        return judgment
    if measured := measure_mismatch(question, judgment["evidence"]):
        why = f"the copy gives {measured}"
    elif not of_kind(question, judgment["evidence"]):
        why = "the copy is not a quantity or a time, which the question asks for"
    elif not names_pinned(question, doc["content"]):
        why = (
            f"the chunk does not name {', '.join(pinned(question))}, which the question asks about"
        )
    else:
        return judgment
    return {**judgment, "label": "somewhat_relevant", "reason": f"{judgment['reason']}; {why}"}


def _no_value(
    judgment: Judgment, question: str, stated: str, doc: Doc, cfg: Configuration
) -> Judgment:
    """A Highly Relevant judgment of a chunk saying what is asked did not change, Somewhat.

    "The default alarm delay is unchanged." (`core.updates.unchanged`) states no value:
    the judge copies "unchanged", or a value of the statement beside it ("10 minutes",
    the screen timeout's), and the generator answered "is unchanged". The chunk is no
    support and its copy no evidence (nothing for the generator to quote); a value the
    no-change statement itself gives ("unchanged at 20 seconds") stays.
    """
    if judgment["label"] != "highly_relevant" or not judgment["evidence"]:
        return judgment
    said = unchanged(stated, question)
    if said is None:
        return judgment
    copy = judgment["evidence"]
    if grounded(copy, said) and states_a_number(copy):
        return judgment
    why = f"the document says {said[:120]!r}: the value asked is in an earlier one"
    return {
        **judgment,
        "label": "somewhat_relevant",
        "evidence": "",
        "p_highly": 0.0,
        "judge_score": judge_score(0.0, doc["similarity"], cfg.judge_weight),
        "reason": f"{judgment['reason']}; {why}",
    }


def _updated(judgment: Judgment, found: Extraction | None, later: Later) -> Judgment:
    """The judgment with the document's later value, when the re-read copied one.

    It must be in the later statements, differ from the first copy, and be a value of its
    kind: a number in the first's unit (`core.conflicts.comparable`), or a name where the
    first names someone or something ("Shimel Beimeker" for "Kozokoth Dikeisik" or for
    "Kozokoth Dikeisik became chief executive in 2003"); not the sentence "Shimel
    Beimeker succeeded Dikeisik".
    """
    first = judgment["evidence"]
    if found is None or found.none or not grounded(found.text, later.text):
        return judgment
    value = " ".join(found.text.split()).strip(" .;,")
    if same_value(value, first):
        return judgment
    named = any(w[:1].isupper() and len(w) > 2 for w in first.split())
    if not (comparable(value, first) or (name_like(value) and named)):
        return judgment
    return {
        **judgment,
        "update": Update(value=value, date=later.date, since=later.since),
        "reason": f"{judgment['reason']}; the document later ({later.date}) gives {value!r}",
    }


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
    judgment = unaligned(base, "not_relevant", reason, by="subject_check")
    judgment["p_highly"] = 0.0
    judgment["judge_score"] = judge_score(0.0, doc["similarity"], cfg.judge_weight)
    return judgment


_NUMBER = re.compile(r"\d[\d,.]*")
"""A number as a copy writes it ("1,000", "3.2"): the run's must not all be the question's."""


def _copied(found: Extraction | None, stated: str, question: str) -> Extraction | None:
    """The reply, or the copy it holds when the model answered around one in its own words.

    "Yes, you can carry over up to 5 days of unused leave into the" is not in the document
    as a whole; its run "carry over up to 5 days of unused leave into the" is
    (`core.quotes.quoted_within`), and that run is what the judge copied. The run's numbers
    must not all be the question's own ("firmware 3.2" repeated from the question
    answers nothing). With no such run, a run of three words or more that words a
    quantity or a time the question asks for is the copy ("meets on the second Thursday
    of each month" for "When does the WSB meet?", `core.asked.worded_as_asked`).
    """
    if found is None or found.none or grounded(found.text, stated):
        return found
    run = quoted_within(found.text, stated)
    numbers = set(_NUMBER.findall(run))
    if not numbers or numbers <= set(_NUMBER.findall(question)):
        in_words = worded_as_asked(question)
        run = quoted_within(found.text, stated, min_words=3, states=in_words) if in_words else ""
    return Extraction(text=run, none=False, p_none=found.p_none) if run else found


def _from_extraction(
    base: dict[str, Any],
    found: Extraction | None,
    doc: Doc,
    stated: str,
    cfg: Configuration,
    *,
    alternatives: Sequence[str] = (),
) -> Judgment:
    if found is None:
        return unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
    in_document = not found.none and grounded(found.text, stated)
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
    score = judge_score(p, doc["similarity"], cfg.judge_weight)
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
    judgment = unaligned(base, label, reason, by="llm")
    judgment["evidence"] = found.text[:300] if in_document else ""
    judgment["p_highly"] = p
    judgment["judge_score"] = score
    return judgment
