"""Judgments joined to their documents: the labelled sets D_H, D_S, D_N."""

from __future__ import annotations

from judged_rag.configuration import Configuration
from judged_rag.core import hops
from judged_rag.core.asked import answers_other, of_kind, states_asked
from judged_rag.core.conflicts import same_value
from judged_rag.state import Doc, Judgment, State

LABELS = ("highly_relevant", "somewhat_relevant", "not_relevant")


def latest_judgments(state: State) -> dict[str, Judgment]:
    """One judgment per document (a later one replaces an earlier one).

    Judgments of a hop's first question (`core.hops`) are left out: they found a name,
    they do not answer the question.
    """
    return {j["doc_id"]: j for j in state.get("judgments") or [] if not j.get("hop")}


def is_supporting(judgment: Judgment) -> bool:
    """Highly Relevant, and Full alignment whenever alignment was checked."""
    return judgment["label"] == "highly_relevant" and judgment["alignment"] in ("full", "unchecked")


def alternatives_asked(state: State, cfg: Configuration) -> list[str]:
    """The names the question offers to choose between (its parts, from `parse`).

    Empty unless the extracting judge splits them (`Configuration.splits_alternatives`):
    other judges' parts are GGatrieval's components, not alternatives.
    """
    return (state.get("query_parts") or []) if cfg.splits_alternatives else []


def uncovered(judgments: list[Judgment], parts: list[str]) -> list[str]:
    """The parts no Highly Relevant judgment aligns (case aside), in the parts' order."""
    covered = {
        c.lower()
        for j in judgments
        if j["label"] == "highly_relevant"
        for c in j["aligned_components"]
    }
    return [p for p in parts if p.lower() not in covered]


def labelled(state: State, label: str) -> list[Doc]:
    """Documents with this label, best composite score first."""
    judged = latest_judgments(state)
    docs = [
        d
        for d in state.get("documents") or []
        if d["id"] in judged and judged[d["id"]]["label"] == label
    ]
    return sorted(docs, key=lambda d: -judged[d["id"]]["composite_score"])


def judged_score(judgment: Judgment) -> float:
    """How strongly a judgment holds its document, to rank by.

    The judge's own score where it gave one (its probability that the document states
    the answer, with the cosine mixed in), SRA's composite score otherwise.
    """
    own = judgment.get("judge_score")
    return float(own) if own is not None else float(judgment["composite_score"])


def labelled_sets(state: State) -> dict[str, list[Doc]]:
    """Every label's documents, best first (one join for all three).

    Best: the judge's own score (`judge_score`: its probability that the document states
    the answer, with the cosine mixed in) where it gave one, so that a document the
    judge found the answer in leads its set even when its label fell just under the
    threshold; SRA's composite score otherwise, and to break ties. A judgment made
    Somewhat Relevant for not naming the question's subject, or for a copy of another
    fact (`grounded` False), comes after every other of its set, and so does a Somewhat
    Relevant copy of another fact (`core.asked.answers_other`: a hotel's limit for "May
    I fly business class, and on flights of what length?"). For a question asking how
    often, or a yes/no question asking a value after it, a document about the question's
    subject stating the value in the question's words (`core.asked.states_asked`: "It
    meets on the first Monday of each quarter", "Flights over six hours may be booked in
    business class") comes before the others of its set: the judge may have misread it.
    """
    judged = latest_judgments(state)
    question = hops.resolved(state["question"], state.get("hop"))
    docs = state.get("documents") or []
    other = answers_other(question, docs)
    stating = {d["id"] for d in docs if other is not None and states_asked(question, d)}
    sets: dict[str, list[Doc]] = {label: [] for label in LABELS}
    for doc in docs:
        judgment = judged.get(doc["id"])
        if judgment is not None:
            sets[judgment["label"]].append(doc)

    def rank(doc: Doc) -> tuple[bool, bool, float, float]:
        judgment = judged[doc["id"]]
        off = judgment.get("grounded") is False or (
            other is not None
            and judgment["label"] == "somewhat_relevant"
            and other(judgment["evidence"], doc)
        )
        score = -judged_score(judgment)
        return (off, doc["id"] not in stating, score, -float(judgment["composite_score"]))

    for docs in sets.values():
        docs.sort(key=rank)
    return sets


def quote_stated(
    state: State, knowledge: list[Doc], pointed: list[int], basis: str
) -> tuple[str, str] | None:
    """The judge's one copy and its citations ("[1][2]"), as an answer; or None.

    From the documents the reply pointed at ("[1]"), each with a copy the judge found
    in it (Highly Relevant, or Somewhat with a copy of the form asked, such as a year
    whose score fell under the threshold) and naming what the question names; with no
    pointer, from every Highly Relevant document. None for R_M (no document shown), when
    a pointed document has no such copy, or when the copies differ; never asked for a
    closed-ended task, whose answer is one of its options. The draft is checked by
    `verify` like any other.
    """
    if basis not in ("retrieval", "combined") or not knowledge:
        return None
    judged = latest_judgments(state)
    question = hops.resolved(state["question"], state.get("hop"))
    numbers = [n for n in pointed if 1 <= n <= len(knowledge)]
    if not numbers:
        numbers = [
            n
            for n, d in enumerate(knowledge, start=1)
            if (j := judged.get(d["id"])) is not None and j["label"] == "highly_relevant"
        ]
    copies = []
    for n in numbers:
        j = judged.get(knowledge[n - 1]["id"])
        if j is None:
            return None
        copy = " ".join(j["evidence"].split())
        found_in_it = j["label"] == "highly_relevant" or (
            j["label"] == "somewhat_relevant" and (j.get("p_highly") or 0.0) > 0.0
        )
        usable = found_in_it and not j.get("hop") and j.get("grounded") is not False
        if not (usable and copy and of_kind(question, copy)):
            return None
        copies.append(copy)
    if not copies or any(not same_value(copies[0], c) for c in copies):
        return None
    value = max(copies, key=len)
    return value, "".join(f"[{n}]" for n in numbers)
