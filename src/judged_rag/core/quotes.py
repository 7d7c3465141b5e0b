"""Quotes: whether a piece of text really is in another (case, accents, punctuation aside)."""

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
