"""SRA's composite score S = alpha * similarity + beta * reliability (no LLM)."""

from __future__ import annotations

from judged_rag.configuration import Configuration
from judged_rag.state import Doc

RRF_K = 60
"""Reciprocal-rank fusion's constant: a document at rank r adds 1 / (RRF_K + r)."""

GRADES = {"A": 1.0, "B": 0.8, "C": 0.6, "D": 0.4, "E": 0.2, "F": 0.5}
"""SRA reliability grades as numbers; F (cannot judge) is neutral."""

NEUTRAL_SIMILARITY = 0.5
"""Stand-in similarity for documents whose retriever reports none."""


def composite_score(doc: Doc, cfg: Configuration) -> float:
    """SRA's S = alpha * similarity + beta * reliability, in [0, 1]."""
    sim = doc["similarity"] if doc["similarity"] is not None else NEUTRAL_SIMILARITY
    reliability = GRADES.get(doc["reliability"].upper(), GRADES["F"])
    return round(cfg.alpha * sim + cfg.beta * reliability, 4)


def sra_score(doc: Doc, cfg: Configuration) -> float | None:
    """S on the declared scale: None for a document whose retriever reports no similarity.

    SRA's S_max compares S with T_R, so a document with no similarity on the knowledge
    base's scale cannot be given one (unlike `composite_score`, which ranks judgments).
    """
    if doc["similarity"] is None:
        return None
    reliability = GRADES.get(doc["reliability"].upper(), GRADES["F"])
    return round(cfg.alpha * doc["similarity"] + cfg.beta * reliability, 4)
