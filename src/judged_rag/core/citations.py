"""Citations in an answer: the numbers it cites, what they point at, the option it chose."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from judged_rag.state import Citation, Doc

LETTERS = string.ascii_uppercase


MAX_CITATION_DIGITS = 6
"""Longer bracketed numbers are not citations (and `int()` refuses past 4,300 digits)."""


_CITATION = re.compile(
    r"\[(\d+(?:\s*[,;]\s*\d+)*)\]"  # [1], [2, 3]
    r"|\bdocument\s+(?:n\s*=\s*)?\"?(\d+)\b",  # document 1, document n="1" (small models)
    re.IGNORECASE,
)


_DECLINED = re.compile(r"^\W*(i\s+(do\s+not|don'?t|cannot|can'?t)\s+know|unknown)\b", re.IGNORECASE)


def declines(text: str) -> bool:
    """Whether a reply only says the model does not know (the prompts ask for these words).

    Citation marks are read past: small models lead with one ("[1] I don't know.").
    """
    return _DECLINED.match(without_citations(text)) is not None


def without_citations(text: str) -> str:
    """The text with its citation marks ([1], "document 2", ...) blanked out."""
    return _CITATION.sub(" ", text)


def names_only(text: str, titles: list[str]) -> bool:
    """Whether a reply only lists the documents shown, by their titles: no answer.

    "[1] Working hours", "[2] Minutes of the works council meeting, January 2025", "[3]
    Shubrend office", one a line, for "how often are salaries reviewed?" with those three
    documents shown: each line, its citation marks and punctuation aside, is a title, and
    every title of two or more is listed once. A reply naming one title, or some of them,
    may be the answer ("Which company acquired Ulvdene?" → the acquirer, whose page is
    shown): not this.
    """
    known = {" ".join(t.casefold().split()) for t in titles if t.strip()}
    lines = [
        " ".join(line.strip(" \t-*•.,;:()").casefold().split())
        for line in without_citations(text).splitlines()
    ]
    lines = [line for line in lines if line]
    return len(known) >= 2 and len(lines) == len(known) and set(lines) == known


def marked(text: str, numbers: list[int]) -> str:
    """The text with citation marks for `numbers` after it: "… 1969. [1][3]"."""
    return f"{text.strip()} " + "".join(f"[{n}]" for n in numbers)


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


_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)(?:\s*\[[\d\s,;]+\])*", re.MULTILINE)
_BRACKETS = re.compile(r"\s*\[[\d\s,;]+\]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
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
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "than",
        "then",
        "there",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "him",
        "we",
        "our",
        "you",
        "your",
        "i",
        "not",
        "no",
        "but",
        "also",
        "into",
        "over",
        "under",
        "after",
        "before",
        "during",
        "about",
        "above",
        "below",
        "between",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "so",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "now",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
    ]
)
REPAIR_SUPPORT = 0.75
"""Share of a claim's content words a document must contain to take over its citation."""
REPAIR_MARGIN = 0.2
"""How much better than the cited documents that other document must do."""


@dataclass(frozen=True)
class Repair:
    """One citation re-pointed: the claim, the numbers it cited, the document it now cites."""

    claim: str
    cited: tuple[int, ...]
    to: int
    support: float


def content_words(text: str) -> set[str]:
    """The words of a text that can carry a fact: lower-cased, no stopwords, numbers kept."""
    words = {w.lower() for w in _WORD.findall(text)}
    return {w for w in words if w not in _STOPWORDS and (len(w) > 2 or w.isdigit())}


def support(claim: str, document: str) -> float:
    """Share of the claim's content words the document contains (0 for an empty claim)."""
    wanted = content_words(claim)
    if not wanted:
        return 0.0
    return len(wanted & content_words(document)) / len(wanted)


def repair_citations(
    draft: str, knowledge: list[Doc], unsupported: list[str]
) -> tuple[str, list[Repair]]:
    """Re-point the citations of claims that another document of the knowledge states.

    A sentence is a candidate when it cites with brackets and either cites a number that
    points at no document or resembles a claim the verifier found unsupported (every
    cited sentence when the verifier named none). Its citation moves to the document
    that contains at least `REPAIR_SUPPORT` of its content words and beats every
    document it cited by `REPAIR_MARGIN`. Word overlap only proposes the repair: the
    caller checks the repaired draft again before trusting it.

    Returns:
        The draft with its citations re-pointed, and the repairs made (none: unchanged).
    """
    claims = [content_words(c) for c in unsupported if c.strip()]
    repairs: list[Repair] = []

    def mend(match: re.Match[str]) -> str:
        sentence = match.group(0)
        cited = cited_numbers(sentence)
        if not _BRACKETS.search(sentence) or not cited:
            return sentence
        claim = _BRACKETS.sub("", sentence).strip()
        words = content_words(claim)
        invalid = any(not 1 <= n <= len(knowledge) for n in cited)
        named = any(len(words & c) >= max(1, len(c) // 2) for c in claims) if claims else True
        if not (invalid or named):
            return sentence
        scores = [support(claim, d["content"]) for d in knowledge]
        if not scores:
            return sentence
        current = max((scores[n - 1] for n in cited if 1 <= n <= len(knowledge)), default=0.0)
        best = max(range(len(scores)), key=lambda i: scores[i])
        if best + 1 in cited or scores[best] < REPAIR_SUPPORT:
            return sentence
        if scores[best] < current + REPAIR_MARGIN:
            return sentence
        repairs.append(Repair(claim[:200], tuple(cited), best + 1, round(scores[best], 3)))
        first = True

        def repoint(bracket: re.Match[str]) -> str:
            # The first citation of the sentence takes the new number; the others go.
            nonlocal first
            keep, first = first, False
            return bracket.group(0)[: bracket.group(0).index("[")] + f"[{best + 1}]" if keep else ""

        return _BRACKETS.sub(repoint, sentence)

    return _SENTENCE.sub(mend, draft), repairs
