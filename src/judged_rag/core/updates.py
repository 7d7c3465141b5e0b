"""A value its own document later replaces.

"Kozokoth Dikeisik became chief executive in 2003. … In January 2018 Shimel Beimeker
succeeded Dikeisik." Asked who the chief executive is, the extracting judge copies the
first name, and rightly so for the sentence it read: nothing in the sentence says it no
longer holds. The document says so later, in a sentence dated after the copy's that
names what was copied. That later statement (`superseding`) is read once more by the
judge, after the copy's own statement and asked what replaced the copy as of the latest
date; a different value of the same kind copied from it is the document's
update (`State.Update`), and the two values are a dated disagreement inside one
document (`core.conflicts`), decided by the later year.

A document can also say that what the question asks about did not change ("The default
alarm delay is unchanged."): it states no value, and the value is in an earlier document
(`unchanged`).

Nothing here calls a model; the judge makes the one extra call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judged_rag.core.asked import pinned
from judged_rag.core.calendar import YEAR
from judged_rag.core.documents import split_note
from judged_rag.core.quotes import (
    JOINING_WORDS,
    NOT_NAMES,
    grounded,
    statement,
    statements,
    states_a_number,
    words,
)

MAX_LATER = 3
"""Most later statements read again (the latest-dated first): one short call."""


@dataclass(frozen=True)
class Later:
    """The statements of a document dated after the one a copy came from."""

    text: str
    """The later statements, in the document's order."""
    first: str
    """The statement the copy came from."""
    since: str
    """The latest year of the copy's own statement."""
    date: str
    """The latest year of the later statements."""


def superseding(text: str, copy: str, question: str) -> Later | None:
    """The document's statements that may replace `copy`, or None.

    They are dated after the copy's own statement (a year in each) and name what was
    copied (a capitalised word or a number of the copy that the question does not
    hold: "Dikeisik", "966"). None when the question names a year or a version (it asks
    about then, not now), when the copy's statement has no year, or when no later one
    names the copy. The chunk's context note and definitions line are not statements.
    """
    if pinned(question):
        return None
    text = split_note(text)[2]
    found = statement(text, copy)
    if found is None:
        return None
    years = [int(y) for y in YEAR.findall(found[0])]
    asked = set(words(question).split())
    marks = [
        w
        for w in copy.replace(",", " ").split()
        if (w[:1].isupper() and len(w) > 2 and w.lower() not in JOINING_WORDS) or states_a_number(w)
        if words(w) and words(w) not in asked and not YEAR.fullmatch(words(w))
    ]
    if not years or not marks:
        return None
    since = max(years)
    later = [
        (max(dated), s)
        for s in statements(text)
        if s != found[0]
        if (dated := [int(y) for y in YEAR.findall(s)]) and max(dated) > since
        if any(grounded(m, s) for m in marks)
    ]
    if not later:
        return None
    kept = sorted(later, key=lambda pair: -pair[0])[:MAX_LATER]
    ordered = [s for _, s in later if any(s == k for _, k in kept)]
    return Later(text=" ".join(ordered), first=found[0], since=str(since), date=str(kept[0][0]))


NO_CHANGE = re.compile(
    r"\b(?:is|are|was|were|remains?|stays?)\s+(?:unchanged|not\s+changed|the\s+same|as\s+before)\b"
    r"|\b(?:has|have)\s+not\s+(?:been\s+)?changed\b",
    re.IGNORECASE,
)
"""A statement that something did not change: "is unchanged", "remains the same"."""

SUBJECT_WORDS = 3
"""Words before the no-change phrase read as what did not change ("default alarm delay")."""


def unchanged(text: str, question: str) -> str | None:
    """The document's statement that what the question asks about did not change, or None.

    "The default alarm delay is unchanged." answers "What is the current default alarm
    delay of the KLDR?" with no value: the value stands in an earlier document. What did
    not change is the statement's last few words before the no-change phrase, articles
    and joining words aside ("default alarm delay"); every one must be a word of the
    question. The chunk's context note and definitions line are not statements.
    """
    asked = set(words(question).split())
    for said in statements(split_note(text)[2]):
        found = NO_CHANGE.search(said)
        if found is None:
            continue
        before = [
            w
            for w in words(said[: found.start()]).split()
            if w not in JOINING_WORDS and w not in NOT_NAMES
        ]
        subject = before[-SUBJECT_WORDS:]
        if subject and all(w in asked for w in subject):
            return said
    return None
