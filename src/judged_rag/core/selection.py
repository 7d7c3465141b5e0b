"""GGatrieval's re-ranking and LLatrieval's sliding windows (Algorithm 1, lines 13-16).

Pure functions: `select` makes the LLM calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from judged_rag.state import Doc, Judgment

ALIGNMENT_ORDER = {"full": 0, "partial": 1, "unchecked": 2, "none": 3}
"""Full before Partial before No alignment (the paper's priority); a document whose
alignment was not checked (the pre-filter labelled it) sits before the No-aligned ones,
which the paper uses to exclude."""


def rerank(docs: Sequence[Doc], judged: dict[str, Judgment]) -> list[Doc]:
    """D_o: documents by alignment label, then by SRA's composite score S, best first.

    Ties keep the given order (the retriever's). Documents without a judgment are left out.
    """
    kept = [d for d in docs if d["id"] in judged]

    def key(doc: Doc) -> tuple[int, float]:
        judgment = judged[doc["id"]]
        return ALIGNMENT_ORDER[judgment["alignment"]], -float(judgment["composite_score"])

    return sorted(kept, key=key)


def windows(docs: Sequence[Doc], size: int) -> list[list[Doc]]:
    """The sliding windows D_o* over D_o: consecutive, non-overlapping, `size` each."""
    return [list(docs[i : i + size]) for i in range(0, len(docs), size)]


def picks(numbers: Sequence[int], offered: Sequence[str], most: int) -> list[str]:
    """The ids a selection reply names: valid numbers (from 1), each once, in its order."""
    chosen: list[str] = []
    for number in numbers:
        if 1 <= number <= len(offered) and offered[number - 1] not in chosen:
            chosen.append(offered[number - 1])
    return chosen[:most]
