"""Citations in an answer: the numbers it cites, what they point at, the option it chose."""

from __future__ import annotations

import re
import string

from judged_rag.state import Citation, Doc

LETTERS = string.ascii_uppercase


MAX_CITATION_DIGITS = 6
"""Longer bracketed numbers are not citations (and `int()` refuses past 4,300 digits)."""


_CITATION = re.compile(
    r"\[(\d+(?:\s*[,;]\s*\d+)*)\]"  # [1], [2, 3]
    r"|\bdocument\s+(?:n\s*=\s*)?\"?(\d+)\b",  # document 1, document n="1" (small models)
    re.IGNORECASE,
)


def cited_numbers(text: str) -> list[int]:
    """Citation numbers in order of first use: [1], [2, 3], [1][4], "document 2".

    The prompt asks for [n]; small models often write "as stated in document 1" or copy
    the fence's ``document n="1"`` instead, which cite just as clearly.
    """
    # A dict keeps first-use order with O(1) membership: a reply citing [1, 2, ... 20000]
    # must not cost quadratic time.
    numbers: dict[int, None] = {}
    for match in _CITATION.finditer(text):
        group = match.group(1) or match.group(2)
        for part in re.split(r"[,;]", group):
            digits = part.strip()
            if len(digits) <= MAX_CITATION_DIGITS:
                numbers.setdefault(int(digits), None)
    return list(numbers)


def citations_for(text: str, knowledge: list[Doc]) -> list[Citation]:
    """The citations that point at real knowledge (invalid numbers are left to verify)."""
    return [
        Citation(
            number=n,
            doc_id=knowledge[n - 1]["id"],
            title=knowledge[n - 1]["title"],
            source=knowledge[n - 1]["source"],
            snippet=knowledge[n - 1]["content"][:240],
        )
        for n in cited_numbers(text)
        if 1 <= n <= len(knowledge)
    ]


def chosen_option(text: str, options: list[str]) -> str | None:
    """The option a closed-ended reply picked: by leading letter, else by its text."""
    letters = LETTERS[: len(options)]
    head = re.match(rf"\W*(?:[Oo]ption\s*)?\(?([{letters}])(?:[).:,]|\s*$|\s*\n)", text.strip())
    if head:
        return options[letters.index(head.group(1).upper())]
    lowered = text.lower()
    hits = [o for o in options if o.lower() in lowered]
    return hits[0] if len(hits) == 1 else None
