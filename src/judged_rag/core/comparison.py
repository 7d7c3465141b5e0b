"""Which alternative the documents' values favour, and which one an answer concludes.

A question that offers names to choose between by a quantity ("Which was founded
earlier, X or Y?", "Which has more employees, X or Y?") is decided by comparing one
number per alternative. The judge quotes those numbers (`nodes.judge`); a small model
that copies them correctly may still compare them wrongly ("1964 ... 1910 ... so the
first was founded earlier"). This module does the comparison without an LLM, for
`verify` to hold the answer to it. Anything it cannot read (no comparative word, a
quote without exactly one number, a tie) gives None: the LLM verifier alone decides.
"""

from __future__ import annotations

import math
import re
from itertools import product
from typing import Literal

from judged_rag.core.citations import without_citations
from judged_rag.core.quotes import choices, names_subject, words

Direction = Literal["least", "most"]

SMALLEST_WINS = frozenset(
    [
        "earlier",
        "earliest",
        "first",
        "fewer",
        "fewest",
        "less",
        "least",
        "smaller",
        "smallest",
        "lower",
        "lowest",
        "shorter",
        "shortest",
        "cheaper",
        "cheapest",
        "lighter",
        "lightest",
        "slower",
        "slowest",
        "colder",
        "coldest",
        "poorer",
        "poorest",
        "narrower",
        "narrowest",
    ]
)
LARGEST_WINS = frozenset(
    [
        "later",
        "latest",
        "last",
        "more",
        "most",
        "larger",
        "largest",
        "bigger",
        "biggest",
        "higher",
        "highest",
        "greater",
        "greatest",
        "longer",
        "longest",
        "taller",
        "tallest",
        "heavier",
        "heaviest",
        "faster",
        "fastest",
        "richer",
        "richest",
        "wider",
        "widest",
        "deeper",
        "deepest",
        "hotter",
        "hottest",
        "warmer",
        "warmest",
    ]
)
OLDER = frozenset(["older", "oldest"])
YOUNGER = frozenset(["younger", "youngest", "newer", "newest"])
"""Age words: of years (founded, born), the older is the smaller; of ages, the larger."""
COMPARATIVE = SMALLEST_WINS | LARGEST_WINS | OLDER | YOUNGER


def compared(question: str) -> list[str]:
    """The names a question compares by a quantity; [] for any other question.

    Its alternatives (`core.quotes.choices`), when it also has a comparative word:
    "Which was founded earlier, X or Y?" compares X and Y; "Is the tower in Paris or
    London?" offers places to choose from but compares nothing, and stays whole.
    """
    alternatives = choices(question)
    if not alternatives or not COMPARATIVE.intersection(words(question).split()):
        return []
    return alternatives


NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\w.,])\d+(?:\.\d+)?(?![\d])")


def direction(question: str, *, years: bool) -> Direction | None:
    """Whether the least or the most of the values answers the question; None: unclear.

    `years`: the values are calendar years, so "older" means the smaller one.
    """
    found: set[Direction] = set()
    for word in re.findall(r"[a-z]+", question.lower()):
        if word in SMALLEST_WINS:
            found.add("least")
        elif word in LARGEST_WINS:
            found.add("most")
        elif word in OLDER:
            found.add("least" if years else "most")
        elif word in YOUNGER:
            found.add("most" if years else "least")
    return found.pop() if len(found) == 1 else None


def value(quote: str) -> float | None:
    """The one number in a quote ("1,125", "1904", "in 1868"); None for none or several."""
    numbers = NUMBER.findall(quote)
    if len(numbers) != 1:
        return None
    return float(numbers[0].replace(",", ""))


def favoured(question: str, values: dict[str, float]) -> str | None:
    """The alternative the values favour, or None (a value missing, a tie, no direction)."""
    if len(values) < 2:
        return None
    years = all(float(v).is_integer() and 1000 <= v <= 2100 for v in values.values())
    way = direction(question, years=years)
    if way is None:
        return None
    best = min(values.values()) if way == "least" else max(values.values())
    winners = [name for name, v in values.items() if v == best]
    return winners[0] if len(winners) == 1 else None


MAX_COMBINATIONS = 64
"""Choices of one value per alternative that `favoured_by_all` tries, at most."""


def favoured_by_all(question: str, values: dict[str, set[float]]) -> str | None:
    """The alternative every choice of one value per alternative favours, or None.

    None also when an alternative has no value, or the choices exceed `MAX_COMBINATIONS`.
    """
    if any(not v for v in values.values()):
        return None
    names = list(values)
    pools = [sorted(values[n]) for n in names]
    if math.prod(len(p) for p in pools) > MAX_COMBINATIONS:
        return None
    winners = {favoured(question, dict(zip(names, pick, strict=True))) for pick in product(*pools)}
    return winners.pop() if len(winners) == 1 else None


def concluded(answer: str, alternatives: list[str]) -> str | None:
    """The alternative the answer concludes for, or None when it does not choose.

    The last sentence with a comparative word (earlier, more, older...) that names an
    alternative decides: the alternative named closest before that word ("X was founded
    earlier, in 1964, than Y" and "Compared to Y, X was founded earlier" conclude X), or
    the first after it ("Earlier: X"). Without such a sentence, the last sentence that
    names exactly one alternative and states no number ("... So X."): "Y was founded in
    1910." is one of the facts, not a conclusion. None when nothing concludes.
    """
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", without_citations(answer)) if s]
    for sentence in reversed(sentences):
        tokens = words(sentence).split()
        where = [i for i, t in enumerate(tokens) if t in COMPARATIVE]
        spots = sorted((i, a) for a in alternatives for i in _mentions(a, tokens))
        if not where or not spots:
            continue
        before = [a for i, a in spots if i < where[0]]
        return before[-1] if before else spots[0][1]
    for sentence in reversed(sentences):
        named = [a for a in alternatives if names_subject(a, sentence)]
        if len(named) == 1 and not NUMBER.search(sentence):
            return named[0]
    return None


def _mentions(name: str, tokens: list[str]) -> list[int]:
    """Where the name's words stand in a row among `tokens` (case and punctuation aside)."""
    wanted = words(name).split()
    size = len(wanted)
    return [i for i in range(len(tokens) - size + 1) if tokens[i : i + size] == wanted]
