"""Quotes: whether a text is in another, and whether a document names a question's subject.

Case, accents and punctuation aside, as whole words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from judged_rag.core.calendar import MONTHS, WEEKDAYS


def words(text: str) -> str:
    """The text as lower-case words without accents or punctuation, one space apart."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", folded).split())


def grounded(quote: str, document: str) -> bool:
    """Whether `quote` is in `document` as whole words (case, accents, punctuation aside)."""
    return position(quote, document) is not None


def position(quote: str, document: str) -> int | None:
    """Where `quote` first is in `document`'s `words`, as whole words; None: it is not."""
    wanted = words(quote)
    at = f" {words(document)} ".find(f" {wanted} ") if wanted else -1
    return None if at < 0 else at


def states_a_number(text: str) -> bool:
    """Whether the text has a digit (what `quoted_within` asks of a run by default)."""
    return any(c.isdigit() for c in text)


def quoted_within(
    reply: str,
    document: str,
    *,
    min_words: int = 2,
    states: Callable[[str], bool] = states_a_number,
) -> str:
    """The longest run of `reply`'s words that `document` holds and that `states` accepts.

    A small model asked to copy an answer sometimes answers in its own words around a
    copy: "Yes, you can carry over up to 5 days of unused leave" for a document saying
    "Employees may carry over up to 5 days of unused leave". The run ("carry over up to 5
    days of unused leave") is the copy. Only a run of at least `min_words` words that
    says something checkable counts (by default, it has a digit): a lone number or a few
    common words are in many documents. "" when no run qualifies; the earliest of
    equally long runs is taken.
    """
    tokens = reply.split()
    held = f" {words(document)} "  # `grounded`'s test, the document folded once
    best: list[str] = []
    for start in range(len(tokens)):
        for end in range(len(tokens), start + max(len(best), min_words - 1), -1):
            run = tokens[start:end]
            text = " ".join(run)
            if states(text) and f" {words(text)} " in held:
                best = run
                break
    return " ".join(best).strip(" .,;:")


def statement(text: str, copy: str) -> tuple[str, int] | None:
    """The sentence or table row `copy` was taken from, and where the copy is in it.

    A table row ("| 2023 | 205 |") is read whole, any other line by its sentence; the
    first one holding the copy (case and spacing aside) is taken. None when no line
    holds it (an empty copy, one across lines, or one the document does not hold).
    """
    wanted = " ".join(copy.split()).casefold()
    for line in text.splitlines():
        found = sentences_holding(line, copy)
        if found:
            return found[0], found[0].casefold().find(wanted)
    return None


def sentences_holding(line: str, copy: str) -> list[str]:
    """The sentences of one line (a table row whole) holding `copy`, case and spacing aside.

    The line whole when the copy runs across its sentences; none when it does not hold it.
    """
    wanted = " ".join(copy.split()).casefold()
    flat = " ".join(line.split())
    if not wanted or wanted not in flat.casefold():
        return []
    if flat.startswith("|"):
        return [flat]
    return [s for s in _SENTENCE.split(flat) if wanted in s.casefold()] or [flat]


def statements(text: str) -> list[str]:
    """The text's sentences and table rows, in order, as `statement` reads them."""
    found: list[str] = []
    for line in text.splitlines():
        flat = " ".join(line.split())
        if flat:
            found += [flat] if flat.startswith("|") else _SENTENCE.split(flat)
    return found


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[^\W_])")


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
        "describe",
        "explain",
        "show",
        "summarize",
        "summarise",
        "compare",
        "define",
        "outline",
        "provide",
        "state",
        "identify",
        "say",
        "may",
        "might",
        "must",
        "shall",
        "am",
        "if",
        "suppose",
        "whats",
    ]
)
"""Words a question starts with capitalised only because they start it (question words,
auxiliaries, imperatives: "Describe the rules for ..." names no "Describe")."""

JOINING_WORDS = frozenset(
    [
        "of",
        "the",
        "de",
        "del",
        "della",
        "der",
        "den",
        "di",
        "da",
        "du",
        "des",
        "la",
        "le",
        "van",
        "von",
        "y",
        "e",
        "bin",
        "ibn",
        "al",
        "el",
        "zu",
        "ter",
        "op",
    ]
)
"""Lower-case words inside a name ("Bank of England", "Ludwig van Beethoven")."""

NOT_NAMES = frozenset(
    ["i", "the", "a", "an", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with"]
)


CALENDAR_NAMES = frozenset([*MONTHS, *WEEKDAYS, *(day + "s" for day in WEEKDAYS)])
"""Capitalised as names are, but no page's subject: "the Saturday opening hours of the
Graider office" asks about the Graider office, and a sibling office's page saying "On
Saturdays …" does not name it."""


def subject_names(question: str) -> list[list[str]]:
    """The names a question is about, each as its folded words: runs of capitalised words.

    A run goes on through a number ("Apollo 11") and through up to two lower-case
    joining words when a capitalised word follows ("Bank of England", "Jan van der
    Berg"); the joining words are left out.
    The first word counts only when it is not a question or function word ("Dotis Tobi
    was born when?" keeps "dotis"; "When was ..." drops "when"), and, standing alone, only
    when it is an abbreviation: a sentence capitalises any first word ("Above what cost
    ...", "Under which rule ..."), so a lone one is no name ("GPMG: how loud is it?"
    keeps "gpmg"; "Napoleon was born when?" names nothing). Days and months are no
    names (`CALENDAR_NAMES`). "Which was founded
    first, Orkmere Marine or Talvik Freight?" gives [["orkmere", "marine"], ["talvik",
    "freight"]]; "Find the largest continent" gives [].
    """
    return [folded for folded, _, _ in name_runs(question)]


def name_runs(question: str) -> list[tuple[list[str], int, int]]:
    """`subject_names` with where each name stands: (folded words, start, end) offsets.

    The span runs from the name's first word to its last capitalised word or number
    (joining words after it are not part of it).
    """
    runs: list[tuple[list[str], int, int]] = []
    current: list[str] = []
    joining: list[str] = []
    start = end = 0
    for index, match in enumerate(re.finditer(r"[^\W_][\w'’-]*", question)):
        word = match.group(0)
        folded = words(word)
        leading = index == 0 and folded in LEADING_WORDS
        if current and _RUN_BREAK.search(question, end, match.start()):
            runs.append((current, start, end))
            current, joining = [], []
        named = folded not in NOT_NAMES and folded not in CALENDAR_NAMES
        if word[0].isupper() and folded and named and not leading:
            if not current:
                start = match.start()
            current.extend(t for t in folded.split() if t not in current)
            joining = []
            end = match.end()
        elif current and word.isdigit():
            current.append(folded)
            end = match.end()
        elif current and folded in JOINING_WORDS and len(joining) < 2:
            joining.append(folded)
        else:
            if current:
                runs.append((current, start, end))
            current, joining = [], []
    if current:
        runs.append((current, start, end))
    return [run for run in runs if not _capitalised_first_word(question, run)]


def _capitalised_first_word(question: str, run: tuple[list[str], int, int]) -> bool:
    """Whether a name run is only the question's first word, capitalised as any first word is.

    An abbreviation ("GPMG", "NASA") is a name wherever it stands.
    """
    _, start, end = run
    word = question[start:end]
    first = re.search(r"[^\W_]", question)
    return (
        first is not None
        and start == first.start()
        and re.fullmatch(r"[^\W_][\w'’-]*", word) is not None
        and not (len(word) > 1 and word.isupper())
    )


_CHOICE_LINK = re.compile(r"\s*(?:,\s*(?:or\s+)?|or\s+)(?:the\s+)?", re.IGNORECASE)
"""What stands between two alternatives: a comma, "or", or ", or" (and "the")."""

_RUN_BREAK = re.compile(r"[,;:()\[\]?!\"“”]")
"""Punctuation that ends a name: "Paris, Lyon" is two names."""


def choices(question: str) -> list[str]:
    """The names a question asks to choose between, as written; [] when it offers none.

    Names linked by "or" (and commas before it): "Which was founded earlier, Iskmere
    Ship Repair or Iskmere Marine Engineering?" gives ["Iskmere Ship Repair", "Iskmere
    Marine Engineering"]; "Is Paris, Lyon or Nice the largest?" gives all three. No one
    document need answer such a question: each alternative's fact may stand on its own
    page (`nodes.judge` asks each page about the alternative it names).
    """
    runs = name_runs(question)
    if len(runs) < 2:
        return []
    chain: list[tuple[int, int]] = []
    best: list[tuple[int, int]] = []
    has_or = False
    for (_, start, end), following in zip(runs, [*runs[1:], None], strict=True):
        chain.append((start, end))
        between = question[end : following[1]] if following else ""
        link = _CHOICE_LINK.fullmatch(between) if following else None
        if link is not None:
            has_or = has_or or "or" in between.lower().split()
            continue
        if len(chain) >= 2 and has_or and len(chain) > len(best):
            best = chain
        chain, has_or = [], False
    return [question[s:e] for s, e in best]


def subject_terms(question: str) -> list[str]:
    """The words of all the question's `subject_names`, without duplicates or numbers.

    "What year did Vosk Tarren die?" gives ["vosk", "tarren"].
    """
    terms: list[str] = []
    for name in subject_names(question):
        terms.extend(t for t in name if not t.isdigit() and t not in terms)
    return terms


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter changed, added, dropped or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1
        return len(diff) == 1 or (swapped and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return short[i:] == long[i + 1 :]


TYPO_MIN_LETTERS = 5
"""Names' words this long match a document's word one typo away ("Linoel" / "Lionel")."""


def _matches(term: str, word: str) -> bool:
    if term == word:
        return True
    return len(term) >= TYPO_MIN_LETTERS and _one_edit_apart(term, word)


NAME_GAP = 3
"""A name's words may stand this many words apart in a document ("Lyndon Baines Johnson"
names "Lyndon Johnson"; "of the" may sit between), no more: "Queldene ... books" on the
page of Queldene Publishing House does not name "Queldene Books"."""


def _name_share(name: list[str], text: list[str]) -> float:
    """How fully `text` names `name`: 1.0 when it holds the name's words in order.

    Each word at most `NAME_GAP` words after the one before, a typo of a long word
    aside. Otherwise the share of its words found anywhere, at most (n - 1) / n: all n
    words scattered over the text do not name it.
    """
    reach = [i for i, w in enumerate(text) if _matches(name[0], w)]
    for term in name[1:]:
        if not reach:
            break
        reach = [
            i
            for i, w in enumerate(text)
            if _matches(term, w) and any(0 < i - r <= NAME_GAP for r in reach)
        ]
    if reach:
        return 1.0
    vocabulary = set(text)
    found = sum(1 for t in name if any(_matches(t, w) for w in vocabulary))
    return min(found, len(name) - 1) / len(name)


HATNOTE = re.compile(
    r"^[\s_*>]*(?:not to be confused with|for other uses|this article is about|"
    r"\S.{0,80}? redirects here|for (?:the|a|an) .{1,80}?, see)\b.*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that points a reader elsewhere (Wikipedia's hatnotes: "Not to be confused with
X", "For other uses, see X", "This article is about ...", "X redirects here"): the names
in it are what the page is *not* about."""


def without_hatnotes(text: str) -> str:
    """The text without its hatnote lines (`HATNOTE`)."""
    return HATNOTE.sub("", text)


def subject_coverage(question: str, *texts: str) -> float | None:
    """How fully `texts` name what the question is about (0 to 1).

    For the question's best-named subject (`subject_names`): 1.0 when the texts name it
    (`_name_share`: its words in order, close together, a typo of a long word aside),
    otherwise the share of its words they hold. Numbers and one-letter words
    (initials, a possessive's "s") do not count. A question about two names (a
    comparison, "X or Y") asks each document for one of them. Hatnote lines do not
    count: "Not to be confused with Mordby Brewery" does not make a page about Mordby
    Brewery. None when the question names nothing.
    """
    names = [
        [t for t in name if len(t) > 1 and not t.isdigit()] for name in subject_names(question)
    ]
    names = [n for n in names if n]
    if not names:
        return None
    text = [w for t in texts for w in words(without_hatnotes(t)).split()]
    return max(_name_share(name, text) for name in names)


SUBJECT_COVERAGE = 1.0
"""How fully a document must name one of the question's names to be about its subject
(`subject_check`): in full, a typo aside. At half, a sibling organisation ("Iskmere Marine
Engineering" for "Iskmere Shipyards") passed, and the judge quoted its revenue as the
answer."""


def named(coverage: float | None) -> bool:
    """Whether a `subject_coverage` names the subject (`SUBJECT_COVERAGE`).

    True for None, a question that names nothing: there is no subject to miss.
    """
    return coverage is None or coverage >= SUBJECT_COVERAGE


def names_subject(question: str, *texts: str) -> bool:
    """Whether `texts` name what the question asks about (`named`)."""
    return named(subject_coverage(question, *texts))
