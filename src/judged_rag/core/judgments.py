"""Judgments joined to their documents: the labelled sets D_H, D_S, D_N."""

from __future__ import annotations

from judged_rag.state import Doc, Judgment, State

LABELS = ("highly_relevant", "somewhat_relevant", "not_relevant")


def latest_judgments(state: State) -> dict[str, Judgment]:
    """One judgment per document (a later one replaces an earlier one)."""
    return {j["doc_id"]: j for j in state.get("judgments") or []}


def is_supporting(judgment: Judgment) -> bool:
    """Highly Relevant, and Full alignment whenever alignment was checked."""
    return judgment["label"] == "highly_relevant" and judgment["alignment"] in ("full", "unchecked")


def labelled(state: State, label: str) -> list[Doc]:
    """Documents with this label, best composite score first."""
    judged = latest_judgments(state)
    docs = [
        d
        for d in state.get("documents") or []
        if d["id"] in judged and judged[d["id"]]["label"] == label
    ]
    return sorted(docs, key=lambda d: -judged[d["id"]]["composite_score"])


def labelled_sets(state: State) -> dict[str, list[Doc]]:
    """Every label's documents, best composite score first (one join for all three)."""
    judged = latest_judgments(state)
    sets: dict[str, list[Doc]] = {label: [] for label in LABELS}
    for doc in state.get("documents") or []:
        judgment = judged.get(doc["id"])
        if judgment is not None:
            sets[judgment["label"]].append(doc)
    for docs in sets.values():
        docs.sort(key=lambda d: -judged[d["id"]]["composite_score"])
    return sets
