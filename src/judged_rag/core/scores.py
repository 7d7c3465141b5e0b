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
