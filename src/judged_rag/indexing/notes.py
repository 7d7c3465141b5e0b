"""What a chunk needs from the rest of its document to be read on its own.

A manual defines "Thermal Regulation Module (TRM)" once and then says only "the TRM";
minutes name "Priya Okafor" once and then say "she". Cut into chunks, the passage with
the fact loses what it is about, and a question asked with the other form ("the thermal
regulation module", "Priya Okafor") neither retrieves it nor lets a judge see that it
answers. Each chunk therefore starts with a note of what the document says elsewhere:

- the document's date, where it states one (`judged_rag.indexing.dates`): "dated
  2024-06-01", so that of two values the later one can be told
  (`judged_rag.core.documents.doc_date` reads it back);
- the abbreviations it uses whose definition is elsewhere in the document, expanded, and
  the defined names it spells out whose abbreviation it does not use ("TRM = Thermal
  Regulation Module");
- when it refers to a person by a pronoun (she, he, her, his, him) and names nobody, the
  last name given before it in the same section ("earlier in this section: Priya Okafor").

A document may also use an abbreviation that another document defines: the committee's
charter says "Architecture Steering Group (ASG)", the minutes only "the ASG". The build
gathers every document's definitions into one glossary (`corpus_glossary`) and a chunk
that uses one side of a pair defined elsewhere gets a second line, "[Defined elsewhere:
ASG = Architecture Steering Group]" (`with_glossary`). It is recomputed for stored chunks
on every build, so adding or removing the defining document updates the chunks that
depend on it without reading their files again.

The note is read from the text alone, with no model, so building an index stays as
cheap as before; it is part of the chunk's text, so retrieval, the gate, the judge and
the generator all see it, and a citation shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from judged_rag.core.calendar import MONTHS, WEEKDAYS
from judged_rag.core.documents import ELSEWHERE, NOTE, split_note
from judged_rag.indexing.chunking import Unit

_WORD = r"[A-Z][\w'’-]*"
_LINK = r"(?:of|and|for|the|on|in|to|&|de|du|la)"
_GAP = r"[ \t]+"
"""Words of a name are on one line: a heading above a sentence is not part of its name."""
DEFINED = re.compile(
    rf"\b({_WORD}(?:{_GAP}(?:{_LINK}{_GAP})*{_WORD}){{0,7}})\s*\(\s*(?:the\s+)?([A-Z][A-Za-z0-9&]{{1,9}})\s*\)"
)
"""A name followed by its abbreviation in brackets: "Product Review Board (PRB)"."""
DEFINED_BACK = re.compile(
    rf"\b([A-Z][A-Z0-9&]{{1,9}})\s*\(\s*({_WORD}(?:{_GAP}(?:{_LINK}{_GAP})*{_WORD}){{1,7}})\s*\)"
)
"""An abbreviation followed by its name in brackets: "PRB (Product Review Board)"."""
PRONOUN = re.compile(r"\b(?:she|he|her|hers|his|him)\b", re.IGNORECASE)
PERSON = re.compile(r"\b([A-Z][a-z]+(?:[ -](?:[A-Z]['’]?[A-Za-z]+)){1,2})\b")
"""Two or three capitalised words: a person's name, or a capitalised phrase (checked
against `NOT_PERSON`)."""
NOT_PERSON = frozenset(
    [
        *MONTHS,
        *WEEKDAYS,
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "in",
        "on",
        "at",
        "of",
        "for",
        "from",
        "to",
        "by",
        "with",
        "and",
        "or",
        "if",
        "when",
        "while",
        "then",
        "also",
        "later",
        "today",
        "however",
        "meanwhile",
        "finally",
        "both",
        "mr",
        "mrs",
        "ms",
        "dr",
        "after",
        "before",
        "during",
        "our",
        "your",
        "their",
        "its",
        "all",
        "each",
        "every",
        "new",
        "next",
        "last",
        "first",
        "head",
        "chief",
        "team",
        "board",
        "committee",
        "office",
        "department",
        "meeting",
        "minutes",
        "item",
        "action",
        "report",
        "policy",
        "manual",
        "guide",
        "handbook",
        "plan",
        "review",
        "budget",
        "service",
        "services",
        "system",
        "group",
        "centre",
        "center",
        "unit",
        "module",
        "day",
        "year",
        "week",
        "hall",
        "street",
        "road",
        "building",
        "room",
        "site",
        "project",
        "programme",
        "program",
        "product",
        "release",
        "version",
        "notes",
        "note",
        "standard",
        "procedure",
        "annual",
        "general",
        "public",
        "national",
        "international",
        "global",
        "north",
        "south",
        "east",
        "west",
        "central",
        "company",
        "limited",
        "ltd",
        "inc",
    ]
)
MAX_NOTE_CHARS = 240
"""Most characters of a chunk's note (and of its line of definitions from elsewhere)."""


def _initials_match(abbreviation: str, name: str) -> bool:
    """Whether an abbreviation's letters are the name's initials, in order.

    The first letter is the first word's initial. A later letter is the initial of a
    later word, or else a letter further on inside the name ("HQ" for "Headquarters");
    every letter is matched in order, so "Relay" is no name for "RLDR" (no D after its
    L), while "Raithan Leak Detection Relay" is.
    """
    letters = [c for c in abbreviation.upper() if c.isalpha()]
    upper = name.upper()
    starts = [m.start() for m in re.finditer(r"[\w'’-]+", name)]
    if not letters or not starts or upper[starts[0]] != letters[0]:
        return False
    position = starts[0] + 1
    for letter in letters[1:]:
        initial = next((i for i in starts if i >= position and upper[i] == letter), -1)
        found = initial if initial >= 0 else upper.find(letter, position)
        if found < 0:
            return False
        position = found + 1
    return True


def defined_names(text: str) -> dict[str, str]:
    """The abbreviations a document defines, each with the name it stands for.

    The first definition of each wins; a pair whose letters are not the name's initials
    ("Annual Report (2024)", "Chapter Two (see below)") is not a definition.
    """
    found: dict[str, str] = {}
    for match in DEFINED.finditer(text):
        name, abbreviation = match.group(1), match.group(2)
        words = name.split()
        # The name ends at the brackets; it starts at the last word from which the
        # initials still match: "HSC The Health and Safety Committee (HSC)", a heading
        # run into its sentence, is "Health and Safety Committee".
        starts = [
            i for i in range(len(words)) if _initials_match(abbreviation, " ".join(words[i:]))
        ]
        words = words[starts[-1] :] if starts else words[-1:]
        while len(words) > 1 and words[0].lower() in ("the", "a", "an", "our", "its"):
            words = words[1:]
        candidate = " ".join(words)
        new = abbreviation not in found and candidate != abbreviation
        if new and _initials_match(abbreviation, candidate):
            found[abbreviation] = candidate
    for match in DEFINED_BACK.finditer(text):
        abbreviation, name = match.group(1), match.group(2)
        if abbreviation not in found and _initials_match(abbreviation, name):
            found[abbreviation] = name
    return found


def _mentions(text: str, phrase: str) -> bool:
    """Whether `text` holds `phrase` as whole words, case aside."""
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text, re.IGNORECASE) is not None


def _abbreviated(text: str, abbreviation: str) -> bool:
    """Whether `text` uses `abbreviation` as written (case counts: "IT" is not "it")."""
    return re.search(rf"\b{re.escape(abbreviation)}\b", text) is not None


def _people(text: str) -> list[str]:
    """Capitalised two- or three-word names in `text`, in order.

    Leading function words are dropped, and a phrase with any other common word is no
    name: "Then Priya Okafor" gives "Priya Okafor", "The Finance Committee" nothing.
    """
    names: list[str] = []
    for match in PERSON.finditer(text):
        words = re.split(r"[ -]", match.group(1))
        while words and words[0].lower() in NOT_PERSON:
            words = words[1:]
        if len(words) >= 2 and not any(w.lower() in NOT_PERSON for w in words):
            names.append(" ".join(words))
    return names


def chunk_note(
    units: Sequence[Unit],
    start: int,
    end: int,
    definitions: dict[str, str],
    date: str | None = None,
) -> str:
    """The note that goes in front of the chunk made of ``units[start:end]``, or "".

    `definitions`: the document's `defined_names`; `date`: its date, if it states one.
    """
    own = " ".join(u.text for u in units[start:end])
    seen = " ".join([*units[start].context, own])
    parts: list[str] = [f"dated {date}"] if date else []
    for abbreviation, name in definitions.items():
        if _abbreviated(own, abbreviation) and not _mentions(seen, name):
            parts.append(f"{abbreviation} = {name}")
        elif _mentions(own, name) and not _abbreviated(seen, abbreviation):
            parts.append(f"{name} = {abbreviation}")
    if PRONOUN.search(own) and not _people(own):
        section = units[start].section
        before = " ".join(
            u.text for u in units[:start] if u.section == section and u.kind == "sentence"
        )
        people = _people(before)
        if people:
            parts.append(f"earlier in this section: {people[-1]}")
    return _line(NOTE, parts)


def _line(label: str, parts: Sequence[str]) -> str:
    """``[label: part; part]``, cut to `MAX_NOTE_CHARS` at a part's end, or ""."""
    if not parts:
        return ""
    note = "; ".join(parts)
    if len(note) > MAX_NOTE_CHARS:
        note = note[: MAX_NOTE_CHARS - 1].rsplit("; ", 1)[0]
    return f"[{label}: {note}]"


def corpus_glossary(per_document: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """One glossary from each document's `defined_names`.

    An abbreviation two documents expand differently, or a name two documents
    abbreviate differently, is ambiguous and left out; case and spacing aside, the
    first spelling is kept. The result does not depend on the documents' order except
    for that spelling.
    """
    names: dict[str, set[str]] = {}
    abbreviations: dict[str, set[str]] = {}
    spelling: dict[str, str] = {}
    for definitions in per_document:
        for abbreviation, name in definitions.items():
            key = " ".join(name.split()).casefold()
            names.setdefault(abbreviation, set()).add(key)
            abbreviations.setdefault(key, set()).add(abbreviation)
            spelling.setdefault(abbreviation, " ".join(name.split()))
    return {
        abbreviation: spelling[abbreviation]
        for abbreviation, keys in names.items()
        if len(keys) == 1 and len(abbreviations[next(iter(keys))]) == 1
    }


def document_definitions(bodies: Iterable[str]) -> dict[str, str]:
    """What a document defines, read from its chunks' texts without their notes.

    The same for a file chunked now and for its chunks stored by an earlier build, so
    the glossary is the same whichever files a build reads again.
    """
    return defined_names(" ".join(split_note(b)[2] for b in bodies))


def with_glossary(text: str, own: Mapping[str, str], glossary: Mapping[str, str]) -> str:
    """`text` with its line of definitions from elsewhere made current (or removed).

    `own`: the definitions of the chunk's own document (its note covers those);
    `glossary`: the `corpus_glossary`. A chunk gets "ABBR = Name" where it uses the
    abbreviation and not the name, "Name = ABBR" where it spells out the name and not the
    abbreviation.
    """
    head, _, body = split_note(text)
    ours = {" ".join(n.split()).casefold() for n in own.values()}
    parts: list[str] = []
    for abbreviation, name in glossary.items():
        if abbreviation in own or name.casefold() in ours:
            continue
        if _abbreviated(body, abbreviation) and not _mentions(body, name):
            parts.append(f"{abbreviation} = {name}")
        elif _mentions(body, name) and not _abbreviated(body, abbreviation):
            parts.append(f"{name} = {abbreviation}")
    lines = [line for line in (head, _line(ELSEWHERE, parts)) if line]
    return "".join(f"{line}\n" for line in lines) + body


def with_notes(
    units: Sequence[Unit],
    spans: Sequence[tuple[int, int]],
    texts: Sequence[str],
    date: str | None = None,
    glossary: Mapping[str, str] | None = None,
    *,
    own: Mapping[str, str] | None = None,
) -> list[str]:
    """Each chunk's rendered text (`texts`, one per span), headed by its `chunk_note`.

    `date`: the document's (`judged_rag.indexing.dates.document_date`), if it has one;
    `glossary`: the `corpus_glossary`, for the definitions found in other documents;
    `own`: the document's `document_definitions(texts)`, when the caller has them.
    """
    definitions = defined_names(" ".join(u.text for u in units))
    if glossary and own is None:
        own = document_definitions(texts)
    out: list[str] = []
    for (start, end), text in zip(spans, texts, strict=True):
        note = chunk_note(units, start, end, definitions, date) if end > start else ""
        noted = f"{note}\n{text}" if note else text
        out.append(with_glossary(noted, own or {}, glossary) if glossary else noted)
    return out
