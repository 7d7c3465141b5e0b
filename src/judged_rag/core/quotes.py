"""Quotes: whether a text is in another, and whether a document names a question's subject.

Case, accents and punctuation aside, as whole words.
"""

from __future__ import annotations

import re
import unicodedata


def words(text: str) -> str:
    """The text as lower-case words without accents or punctuation, one space apart."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", folded).split())


def grounded(quote: str, document: str) -> bool:
    """Whether `quote` is in `document` as whole words (case, accents, punctuation aside)."""
    wanted = words(quote)
    return bool(wanted) and f" {wanted} " in f" {words(document)} "


LEADING_WORDS = frozenset(
    [
        "what",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "which",
        "why",
        "how",
        "in",
        "on",
        "at",
        "of",
        "for",
        "from",
        "by",
        "to",
        "did",
        "does",
        "do",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "name",
        "list",
        "give",
        "find",
        "tell",
        "the",
        "a",
        "an",
        "please",
    ]
)
"""Words a question starts with capitalised only because they start it."""

NOT_NAMES = frozenset(
    ["i", "the", "a", "an", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with"]
)


def subject_terms(question: str) -> list[str]:
    """The names a question is about: its capitalised words, folded (without duplicates).

    The first word counts only when it is not a question or function word ("Dotis Tobi
    was born when?" keeps "dotis"; "When was ..." drops "when"). "What year did Vosk
    Tarren die?" gives ["vosk", "tarren"]; "Find the largest continent" gives [].
    """
    terms: list[str] = []
    for index, match in enumerate(re.finditer(r"[^\W\d_][\w'’-]*", question)):
        word = match.group(0)
        folded = words(word)
        if not word[0].isupper() or not folded or folded in NOT_NAMES:
            continue
        if index == 0 and folded in LEADING_WORDS:
            continue
        for part in folded.split():
            if part not in terms:
                terms.append(part)
    return terms


def subject_coverage(question: str, *texts: str) -> float | None:
    """Share of the question's `subject_terms` found as whole words in `texts`.

    None when the question names nothing (no capitalised word beyond its first).
    """
    terms = subject_terms(question)
    if not terms:
        return None
    haystack = f" {' '.join(words(t) for t in texts)} "
    return sum(1 for t in terms if f" {t} " in haystack) / len(terms)
