"""Words of the calendar, shared by the readers of dates and of a question's form."""

from __future__ import annotations

import re

YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
"""A year of the last two centuries, as a word: what documents and questions date by."""

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
"""Month names, in order."""
MONTH_ABBREVIATIONS = (
    ("jan",),
    ("feb",),
    ("mar",),
    ("apr",),
    (),
    ("jun",),
    ("jul",),
    ("aug",),
    ("sep", "sept"),
    ("oct",),
    ("nov",),
    ("dec",),
)
"""The abbreviations of each month of `MONTHS` (May has none)."""
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
