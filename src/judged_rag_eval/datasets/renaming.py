"""Consistent entity renaming: a person's real name becomes a made-up one, everywhere.

Used by `judged_rag_eval.datasets.rdq` to take an answer out of a model's memory while
keeping it in the documents. Decisions and their reasons:

- **Which words are the name.** The name tokens of a person are the capitalised words
  of the article title (without a parenthesised disambiguation and without what follows
  a comma, e.g. ", 1st Baron ...") and of the name the lead sentence opens with (the
  words before the first "was", "is", comma or parenthesis, taken only when every word
  is capitalised, a lower-case particle such as "de" or "von", or a quoted nickname).
  Honorifics (`HONORIFICS`: "Sir", "Lord", "Jr" ...), roman numerals and one-letter
  initials are kept: they identify no one. Words that are titles elsewhere but surnames
  here ("King" of Stephen King) are renamed. Hyphenated and apostrophe names also give
  their capitalised parts, so "al-Khwarizmi" loses "Khwarizmi" and "Baden-Powell" loses
  "Powell" alone too.
- **How they are replaced.** Case-sensitively, longest first, each original token by its
  own made-up token, in the title, description, lead and question alike; so the surname
  alone ("Williams recorded ...") and possessives become the made-up surname, and a
  relative sharing the surname shares the made-up one. Tokens of four letters or more
  are also replaced at the start of a longer word ("Darwinism"), shorter ones only as
  whole words ("Man" of Man Ray must not turn "Manchester" into nonsense).
- **What is left on purpose.** Lower-case uses of a name word ("a hooker") and aliases
  the lead gives later ("also known as Canute") are not found by these rules. The
  question carries only the made-up name, so a model without the documents still cannot
  answer it; a leftover alias can only help a model that already reads the evidence.
- **Made-up tokens.** Two or three consonant-vowel syllables and an optional final
  consonant, drawn with ``random.Random(f"{seed}:{key}")`` from fixed lists, capitalised
  (pronounceable, like a name, so a small model does not read it as noise); a draw is
  rejected while it is a word of the corpus (any case), is already used by another name,
  or shares a prefix with an original token of the same person (the leftover check would
  flag it). Because of the uniqueness rule the result depends on the order names are
  drawn in: callers draw in a fixed order (sorted titles).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

HONORIFICS = frozenset(("Sir", "Dame", "Lord", "Mr", "Mrs", "Ms", "Dr", "Rev", "Jr", "Sr"))
"""Title words that are never a surname here and are kept. "King", "Pope", "Prince" and
"Saint" are not among them: they are the surnames of Stephen King, Alexander Pope,
Prince and Yves Saint Laurent."""
PARTICLES = frozenset(
    [
        "de",
        "da",
        "das",
        "do",
        "dos",
        "van",
        "von",
        "der",
        "den",
        "del",
        "della",
        "di",
        "du",
        "la",
        "le",
        "y",
        "bin",
        "ibn",
        "ben",
        "al",
        "el",
        "of",
        "the",
        "and",
        "zu",
        "ter",
        "ten",
    ]
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*[^\W_]|[^\W\d_]")
_ROMAN = re.compile(r"^[IVXLC]+$")
_LEAD = re.compile(r"^(.{2,120}?)(?:,| \(| was | is | were | are )")
_QUOTES = "\"'“”‘’«»"
_ONSETS = [
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "b",
    "d",
    "k",
    "l",
    "m",
    "n",
    "r",
    "s",
    "t",
    "v",
    "br",
    "dr",
    "gr",
    "kr",
    "tr",
    "th",
    "sh",
]
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ei")
_CODAS = ("", "", "n", "r", "l", "s", "m", "k", "th", "nd")
MIN_PREFIX_MATCH = 4
"""Original tokens this long are also replaced at the start of a longer word."""


def _capitalised(token: str) -> bool:
    return token[:1].isupper()


def _tokens_of(text: str) -> list[str]:
    """Name tokens of a name string: capitalised words and their hyphen/apostrophe parts."""
    out: list[str] = []
    for word in _WORD.findall(text):
        word = word.strip(_QUOTES)
        candidates = [word, *re.split(r"[-'’]", word)]
        for token in candidates:
            if (
                len(token) >= 2
                and _capitalised(token)
                and token not in HONORIFICS
                and not _ROMAN.match(token)
                and token not in out
            ):
                out.append(token)
    return out


def clean_title(title: str) -> str:
    """The title without a parenthesised disambiguation or a ", title" suffix."""
    text = re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()
    return text.split(",", 1)[0].strip() or title


def lead_name(extract: str) -> str | None:
    """The name the lead sentence opens with, when it looks like one (see module doc)."""
    match = _LEAD.match(extract.strip())
    if not match:
        return None
    span = match.group(1).strip()
    words = span.split()
    if not words or len(words) > 9:
        return None
    for word in words:
        bare = word.strip(_QUOTES)
        if not bare:
            return None
        if bare in PARTICLES or bare.lower() in PARTICLES:
            continue
        if not _capitalised(bare) and not bare.startswith(("al-", "el-", "ibn-")):
            return None
    return span


def name_tokens(title: str, extract: str) -> list[str]:
    """The tokens to rename for the subject of an article, title tokens first."""
    tokens = _tokens_of(clean_title(title))
    lead = lead_name(extract)
    if lead:
        tokens += [t for t in _tokens_of(lead) if t not in tokens]
    return tokens


def corpus_vocabulary(texts: Iterable[str]) -> set[str]:
    """Every word of the texts, lower-cased (made-up tokens must avoid all of them)."""
    vocabulary: set[str] = set()
    for text in texts:
        vocabulary.update(w.lower() for w in re.findall(r"\w+", text))
    return vocabulary


class NameForge:
    """Draws made-up name tokens that occur nowhere in a corpus and are never reused."""

    def __init__(self, vocabulary: set[str], seed: int = 0) -> None:
        """Remember the words to avoid and the seed of every draw."""
        self._vocabulary = vocabulary
        self._used: set[str] = set()
        self.seed = seed

    def used(self, token: str) -> bool:
        """Whether the forge has handed out this token (any case)."""
        return token.lower() in self._used

    def token(self, rng: random.Random, avoid: Sequence[str] = ()) -> str:
        """A fresh made-up token; `avoid`: originals it must not share a prefix with."""
        lowered = [a.lower() for a in avoid]
        while True:
            syllables = 2 if rng.random() < 0.7 else 3
            word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables))
            word += rng.choice(_CODAS)
            key = word.lower()
            if not 4 <= len(key) <= 11 or key in self._vocabulary or key in self._used:
                continue
            if any(key.startswith(a) or a.startswith(key) for a in lowered):
                continue
            self._used.add(key)
            return word.capitalize()

    def name(self, key: str, parts: int = 2) -> str:
        """A made-up full name of `parts` tokens, drawn with the seeded generator of `key`."""
        rng = random.Random(f"{self.seed}:{key}")
        return " ".join(self.token(rng) for _ in range(parts))


@dataclass(frozen=True)
class Renaming:
    """One person's original name tokens and their made-up replacements.

    Attributes:
        original: The article title.
        mapping: Original token to made-up token.
    """

    original: str
    mapping: Mapping[str, str]

    def _pattern(self) -> re.Pattern[str]:
        ordered = sorted(self.mapping, key=lambda t: (-len(t), t))
        alternatives = [
            re.escape(t) + ("" if len(t) >= MIN_PREFIX_MATCH else r"(?!\w)") for t in ordered
        ]
        return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + ")")

    def apply(self, text: str) -> str:
        """`text` with every original token replaced by its made-up token."""
        if not self.mapping:
            return text
        return self._pattern().sub(lambda m: self.mapping[m.group(0)], text)

    def leftovers(self, text: str) -> list[str]:
        """Original tokens still found in `text` by the same rules `apply` uses."""
        return [t for t in self.mapping if leftover(t, text)]


def title_words(title: str) -> list[str]:
    """Capitalised words of the cleaned title that identify its subject (not honorifics)."""
    return [
        w
        for w in re.findall(r"[^\W\d_][\w'’-]*", clean_title(title))
        if len(w) >= 2 and _capitalised(w) and w not in HONORIFICS and not _ROMAN.match(w)
    ]


def leftover(token: str, text: str) -> bool:
    """Whether an original name token occurs in `text` where `apply` would replace it."""
    tail = "" if len(token) >= MIN_PREFIX_MATCH else r"(?!\w)"
    return re.search(r"(?<!\w)" + re.escape(token) + tail, text) is not None


def make_renaming(title: str, extract: str, forge: NameForge) -> Renaming:
    """Draw made-up tokens for an article's subject (seeded by the title)."""
    tokens = name_tokens(title, extract)
    rng = random.Random(f"{forge.seed}:{title}")
    mapping = {token: forge.token(rng, avoid=tokens) for token in tokens}
    return Renaming(original=title, mapping=mapping)
