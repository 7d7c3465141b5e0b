"""GGatrieval's alignment criterion, checked against the document (setting `alignment_check`).

The paper (Section 3.1) labels a document by whether *a continuous segment of it*
aligns with the question's components: Full (one segment aligns with all of them),
Partial (with at least one), No (with none). The judge names, for each component it
says the document states, the segment of the document that states it. Here a
component counts as aligned only when:

- the part it names is one of the question's components (its words, as listed with or
  without its type, or its type when only one component has that type): a judge cannot
  invent components, nor claim several with one long phrase;
- its segment holds a content word (not only "the", "of", "was"...);
- its segment is in the document, as whole words (case, accents and punctuation aside:
  `core.quotes.grounded`). A segment made of the question's own words that the document
  does not hold is the question echoed back, recorded as such; any other segment the
  document does not hold is not a quote.

Full alignment, operationally: every component is aligned, and one stretch of the
document of at most `segment_words` words holds a grounding segment of each (the
smallest such stretch is the `span`). Partial: at least one component aligned
otherwise. No: none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judged_rag.core.quotes import grounded, words
from judged_rag.state import Alignment

FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "and",
        "or",
        "but",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "not",
        "no",
    ]
)
"""Words that cannot ground a component on their own."""


@dataclass(frozen=True)
class SegmentCheck:
    """Which components a document grounds, and the label that follows.

    Attributes:
        aligned: The aligned components, in the question's order (M(Q, D)).
        segments: Each aligned component's grounding segment, as the judge copied it.
        rejected: Claims that did not count, with why: `not_a_component`,
            `no_segment`, `uninformative`, `echoes_question`, `not_in_document`.
        alignment: Full / Partial / No (`none`), or `unchecked`.
        ratio: |aligned| / |components| (SCQU's r).
        span: Words of the smallest stretch of the document holding a segment of
            every component, when all are aligned; None otherwise.
    """

    aligned: list[str] = field(default_factory=list)
    segments: dict[str, str] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)
    alignment: Alignment = "unchecked"
    ratio: float = 0.0
    span: int | None = None


def matching_component(claim: str, parts: Sequence[str], roles: dict[str, str]) -> str | None:
    """The component a judge's claim names.

    Its words, as listed to the judge with or without its type ("subject: Apollo 11"),
    or a type only one component has ("subject").
    """
    said = words(claim)
    for part in parts:
        if said in (words(part), words(f"{roles.get(part, '')} {part}")):
            return part
    typed = [part for part in parts if roles.get(part) == said]
    return typed[0] if len(typed) == 1 else None


def segment_alignment(
    parts: Sequence[str],
    claims: Sequence[tuple[str, str]],
    *,
    document: str,
    question: str,
    roles: dict[str, str] | None = None,
    max_span: int,
) -> SegmentCheck:
    """Check a judge's (component, segment) claims against the document; see the module doc."""
    if not parts:
        return SegmentCheck()
    segments: dict[str, str] = {}
    rejected: dict[str, str] = {}
    asked = set(words(question).split())
    for claim, segment in claims:
        part = matching_component(claim, parts, roles or {})
        if part is None:
            rejected[claim] = "not_a_component"
            continue
        if part in segments:
            continue
        reason = _why_not(segment, document, asked)
        if reason is None:
            segments[part] = segment
            rejected.pop(part, None)
        else:
            rejected.setdefault(part, reason)
    aligned = [p for p in parts if p in segments]
    ratio = round(len(aligned) / len(parts), 4)
    span = covering_span(document, [segments[p] for p in aligned]) if ratio >= 1.0 else None
    if span is not None and span <= max_span:
        alignment: Alignment = "full"
    else:
        alignment = "partial" if aligned else "none"
    return SegmentCheck(
        aligned=aligned,
        segments={p: segments[p] for p in aligned},
        rejected=rejected,
        alignment=alignment,
        ratio=ratio,
        span=span,
    )


def _why_not(segment: str, document: str, asked: set[str]) -> str | None:
    """Why a segment does not ground a component, or None when it does."""
    said = words(segment).split()
    if not said:
        return "no_segment"
    content = [w for w in said if w not in FUNCTION_WORDS]
    if not content:
        return "uninformative"
    if grounded(segment, document):
        return None
    return "echoes_question" if set(content) <= asked else "not_in_document"


def covering_span(document: str, segments: Sequence[str]) -> int | None:
    """Words in the smallest stretch of `document` that holds every segment once.

    None when a segment is not in the document (or none is given).
    """
    tokens = words(document).split()
    found: list[list[tuple[int, int]]] = []
    for segment in segments:
        quote = words(segment).split()
        size = len(quote)
        hits = [
            (i, i + size) for i in range(len(tokens) - size + 1) if tokens[i : i + size] == quote
        ]
        if not size or not hits:
            return None
        found.append(hits)
    if not found:
        return None
    best: int | None = None
    for start, _ in sorted({hit for hits in found for hit in hits}):
        # Each segment's occurrence at or after `start` that ends first keeps the stretch short.
        ends = [min((e for s, e in hits if s >= start), default=None) for hits in found]
        if any(end is None for end in ends):
            continue
        width = max(e for e in ends if e is not None) - start
        best = width if best is None else min(best, width)
    return best
