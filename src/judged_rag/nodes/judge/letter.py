"""The letter judge (`judge="letter"`): one output token A/B/C whose probabilities give the label.

P(A), the probability that the document states the answer, is combined with the
retriever's cosine into the judge's score (`common.judge_score`), which the judge's
threshold cuts; no alignment is checked. The list judge reads its letters the same way.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.llm import LetterChoice
from judged_rag.configuration import Configuration
from judged_rag.core.documents import titled
from judged_rag.nodes.judge.common import (
    FALLBACK,
    Judging,
    OneDocumentJudge,
    judge_score,
    unaligned,
    written,
)
from judged_rag.prompts import judge as prompt
from judged_rag.state import Judgment, Label


class Letter(OneDocumentJudge):
    """One call a document; its label from the letters' probabilities."""

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """Ask for the letter and label the document by it."""
        task, doc, base, cfg, config, deps = j
        step = deps.step("judge", task, config, cfg, calls=task.get("calls"))
        user = prompt.LETTER_USER.format(question=task["question"], document=titled(doc))
        with deps.components.judge_slots(cfg.judge_concurrency):
            letter = step.letter(
                [SystemMessage(prompt.LETTER_SYSTEM), HumanMessage(user)],
                list(prompt.LETTERS),
                default=FALLBACK.model_dump(),
                count_round=False,  # the join counts the rounds of the whole fan-out
            )
        judged = from_letter(base, letter.value, cfg, doc["similarity"])
        return written(judged, cfg, letter.cost, letter.events)


LETTER = Letter()


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


def from_letter(
    base: dict[str, Any],
    choice: LetterChoice | None,
    cfg: Configuration,
    similarity: float | None,
) -> Judgment:
    """A letter's judgment: its label, P(A) and the judge's score.

    The recorded safe default when no letter could be read.
    """
    if choice is None:
        return unaligned(base, FALLBACK.label, FALLBACK.reason, by="fallback")
    if choice.probabilities is None:
        label = letter_label(choice, cfg.judge_cutoff)
        reason = f"letter {choice.letter} (the backend gave no probabilities)"
        return unaligned(base, label, reason, by="llm")
    p = choice.probabilities["A"]
    score = judge_score(p, similarity, cfg.judge_weight)
    label = letter_label(choice, cfg.judge_cutoff, score=score)
    shares = " ".join(f"P({k})={v:.2f}" for k, v in choice.probabilities.items())
    reason = f"letter {choice.letter}, {shares}, score {score}, threshold {cfg.judge_cutoff}"
    judgment = unaligned(base, label, reason, by="llm")
    judgment["p_highly"] = p
    judgment["judge_score"] = score
    return judgment
