"""When a document was written, where the document says so.

A release note, a notice or the minutes of a meeting state a value as of their date; a
later one may state another. To tell which value holds, a chunk carries its document's
date (`judged_rag.indexing.notes`), read in this order:

1. the front matter: ``updated``, ``revised``, ``modified``, ``published`` or ``date``
   (the first of them present);
2. a line near the top that states it: "Published: 3 May 2021", "Revised 2024-06-01",
   "As of June 2024", "Effective from 1 July 2024", "Date: …";
3. a date in the title: "Minutes of the board meeting, April 2024", or a year that
   begins or ends it, as a report's or a digest's does: "Business digest 2019",
   "2016 annual review" (a year inside it, "Vision 2030 plan", is not a date).

The file's own time is not used: copying or checking out a folder resets it, so it says
when the copy was made, not when the text was written. A document with none of these
has no date, and nothing is decided by one.

Dates are written as ISO prefixes: "2024-06-01", "2024-06" or "2024", so that comparing
two strings compares the dates they name (`judged_rag.core.conflicts` compares a month
and a day of it by their common prefix).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from judged_rag.core.calendar import MONTH_ABBREVIATIONS, YEAR
from judged_rag.core.calendar import MONTHS as MONTH_NAMES

MONTHS = {
    name: number
    for number, (month, short) in enumerate(zip(MONTH_NAMES, MONTH_ABBREVIATIONS, strict=True), 1)
    for name in (month, *short)
}
"""Month names and abbreviations, each with its number."""
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
PATTERNS = (
    re.compile(rf"\b{_YEAR}-(?P<m>[01]\d)(?:-(?P<d>[0-3]\d))?\b"),
    re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
)
"""Dates as documents write them: ISO, "3 May 2021", "May 3, 2021", "May 2021"."""
FRONT_MATTER_KEYS = ("updated", "revised", "modified", "last_modified", "published", "date")
STATED = re.compile(
    r"^[\s*_>#-]*(?:last\s+)?(?:published|revised|updated|modified|issued|dated|date|"
    r"as\s+of|effective(?:\s+from)?|valid\s+from)\b[\s*_:-]*(?P<rest>.{4,40})",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that states the document's date ("Published: 3 May 2021")."""
TOP_CHARS = 600
"""How far from the start a stated date is looked for."""


def parse_date(text: str, *, year_alone: bool = False) -> str | None:
    """The first date written in `text`, as an ISO prefix; a bare year if `year_alone`."""
    for pattern in PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        groups = match.groupdict()
        year = groups["year"]
        if groups.get("m"):
            month = int(groups["m"])
            day = int(groups["d"]) if groups.get("d") else None
        else:
            month = MONTHS[groups["month"].lower().rstrip(".")]
            day = int(groups["day"]) if groups.get("day") else None
        if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
            continue
        return f"{year}-{month:02d}" + (f"-{day:02d}" if day else "")
    if year_alone:
        match = YEAR.search(text)
        return match.group(0) if match else None
    return None


def document_date(meta: Mapping[str, str], text: str, title: str) -> str | None:
    """The document's date (ISO prefix) from its front matter, a stated line or its title."""
    for key in FRONT_MATTER_KEYS:
        value = meta.get(key, "")
        found = parse_date(value, year_alone=True) if value else None
        if found:
            return found
    for match in STATED.finditer(text[:TOP_CHARS]):
        found = parse_date(match.group("rest"), year_alone=True)
        if found:
            return found
    return parse_date(title) or _title_year(title)


def _title_year(title: str) -> str | None:
    """The year a title begins or ends with ("Shipbuilding industry review 2016")."""
    words: list[str] = re.findall(r"[\w'’-]+", title)
    for word in (words[0], words[-1]) if words else ():
        if YEAR.fullmatch(word):
            return word
    return None
