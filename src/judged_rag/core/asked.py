"""What a question asks for, and whether a judge's copy can be that.

GGatrieval aligns each component of the question with the document; an answer is
supported only when the components it needs are grounded. The extracting judge copies
what it takes for the answer, and a small model often copies the fact next to it: the
name of the relay board when the question asks for the board's lead time, a vessel's
tonnage for its length, the 2022 count for 2023. Checks of the copy catch what a
question's form makes plain, with no call:

- **kind**: a question asking how many, how much, how long, how often (a quantity), or
  when (a time), is not answered by a copy with no number, no number word and no word of
  time ("RB-7 relay board" for "What is the lead time …?" has a number, so it passes;
  "the spare parts desk" for "How long …?" does not);
- **the measure**: a question asking how loud, heavy, tall or hot something is, or its
  speed, power or voltage, is not answered by a copy whose unit measures something
  else ("180 centimetres" for "How loud is the unit?"); a copy with no unit, or a
  question asking several measures at once ("How high is the temperature?"), passes;
  a question asking how many is not answered by a copy whose every number is an amount
  of a unit ("220 euros" for "the maximum number of participants"), nor one asking how
  long by amounts of neither a time nor a length ("3 watts");
- **the year or version asked**: "How many staff did it employ in 2023?" is answered only
  by a chunk that names 2023 (in its text or its note, which carries its document's
  date), and "… in firmware 4.2?" only by one that names 4.2;
- **what is asked about**: "How often does the WSB meet?" is not answered by the
  charter's "It is reviewed at least once a year", a sentence holding none of the
  question's words after "how often" but its names, nor "May I fly business class, and
  on flights of what length?" by a hotel's nightly limit, a sentence holding none of
  its words (`says_asked`); `nodes.assess` and the ranking of the labelled sets apply it
  when a retrieved document states the value asked in the question's words
  (`words_asked`, `answers_other`). A word most retrieved pages state a value with
  ("reviewed", in every page footer's "It is reviewed at least once a year") does not
  say what is asked: "how often are salaries reviewed?" is answered only from a page
  holding another of its words (`common_words`);
- **the row asked about**: "which office is zaleth dumas based in?" is not answered by
  a cell of another person's row of the staff directory when a row holds the
  question's words (`wrong_row`); that row's cell in the copy's column answers it, when
  one row holds them (`asked_cell`).

The same forms say when a reply in the judge's own words holds a copy: a run of it that
the chunk holds and that words a quantity or a time the question asks for
(`worded_as_asked`: "meets on the second Thursday of each month").

A copy that fails is kept as the bridge to what the question asks (`nodes.rewrite` adds
it to the next query: the relay board's name finds its catalogue entry), but it is not
evidence. These are checks of the answer's form, measured on the gold answers of every
question set the project has (BENCHMARKS.md, "What a question asks for"), not rules on
which document is about what.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from judged_rag.core.calendar import MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS, YEAR
from judged_rag.core.documents import undated
from judged_rag.core.quotes import (
    LEADING_WORDS,
    grounded,
    names_subject,
    statement,
    statements,
    states_a_number,
    subject_terms,
    words,
)
from judged_rag.state import Doc

QUANTITY = re.compile(
    r"^\s*(?:and\s+)?how\s+(?:many|much|long|often|far|old|big|large|tall|high|wide|heavy|"
    r"fast|soon|frequently)\b",
    re.IGNORECASE,
)
WHEN = re.compile(
    r"^\s*(?:(?:since|until|by|from)\s+)?(?:when|(?:in|on)\s+(?:what|which)\s+(?:year|date|day|"
    r"month)|(?:what|which)\s+(?:year|date|day|month))\b",
    re.IGNORECASE,
)
UNIT_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
"""The numbers from zero to nineteen in words, in order (an index is the number)."""
TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
"""The tens from twenty to ninety in words, in order."""
NUMBER_WORDS = frozenset(
    [
        *UNIT_WORDS,
        *TENS_WORDS,
        "hundred",
        "thousand",
        "million",
        "billion",
        "half",
        "quarter",
        "third",
        "dozen",
        "single",
        "double",
        "once",
        "twice",
        "none",
        "no",
        "every",
        "each",
        "all",
        "several",
        "few",
    ]
)
TIME_WORDS = frozenset(
    [
        *MONTHS,
        *(short for shorts in MONTH_ABBREVIATIONS for short in shorts),
        *WEEKDAYS,
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "daily",
        "weekly",
        "monthly",
        "quarterly",
        "yearly",
        "annually",
        "hourly",
        "nightly",
        "fortnightly",
        "biweekly",
        "morning",
        "afternoon",
        "evening",
        "night",
        "noon",
        "midnight",
        "today",
        "tomorrow",
        "yesterday",
        "year",
        "years",
        "month",
        "months",
        "week",
        "weeks",
        "day",
        "days",
        "hour",
        "hours",
        "minute",
        "minutes",
        "second",
        "seconds",
        "decade",
        "century",
        "ago",
        "before",
        "after",
        "during",
        "since",
        "until",
        "start",
        "end",
        "beginning",
        "first",
        "last",
        "next",
        "previous",
        "early",
        "late",
        "mid",
    ]
)
CARDINALS = NUMBER_WORDS - {"none", "no", "every", "each", "all", "several", "few", "single"}
"""Number words that state how many on their own ("every", "each", "few" do not)."""
CALENDAR = frozenset(
    [
        *(month for month in MONTHS if month != "may"),  # "may" is mostly the verb
        *WEEKDAYS,
        *("spring", "summer", "autumn", "winter", "noon", "midnight"),
        *("daily", "weekly", "monthly", "quarterly", "yearly", "annually"),
        *("hourly", "nightly", "fortnightly", "biweekly"),
    ]
)
"""Words that name a time on their own: a month, a weekday, a season, a frequency."""
VERSION = re.compile(r"\b(?:version|firmware|release|v)\s*(\d+(?:\.\d+)+)\b", re.IGNORECASE)


def asks_quantity(question: str) -> bool:
    """Whether the question asks how many, how much, how long, how often (a quantity)."""
    return QUANTITY.search(_last_clause(question)) is not None


def asks_time(question: str) -> bool:
    """Whether the question asks when, or what year, date, day or month."""
    return WHEN.search(_last_clause(question)) is not None


def _last_clause(question: str) -> str:
    """The part of the question after a leading condition or a ", and": what it asks.

    "Can I carry over unused leave, and how many days?" asks how many days.
    """
    parts = re.split(r",\s*(?:and\s+)?(?=(?:how|when|what|which)\b)", question, flags=re.IGNORECASE)
    return parts[-1] if len(parts) > 1 else question


YES_NO_OPENING = re.compile(
    r"^\W*(?:can|could|may|might|am|is|are|was|were|do|does|did|should|must|will|would|"
    r"has|have|had)\b",
    re.IGNORECASE,
)
_VALUE_CLAUSE = re.compile(
    r",?\s+(?:and|or)\s+((?:(?:up\s+to|for|from|by|in|at|to|within|after|until|on|under|with)"
    r"\s+(?:[^\W\d_]+\s+){0,3}?)?(?:how|what|which|when|where|who|whom)\b.*)$",
    re.IGNORECASE,
)


def value_clause(question: str) -> str | None:
    """The clause of a yes/no question that asks a value after it, or None.

    "May I build up extra hours, and up to how many?" gives "up to how many?"; "Am I
    allowed to book any hotel, or what is the nightly limit?" gives "what is the nightly
    limit?"; "May I fly business class, and on flights of what length?" gives "on flights
    of what length?" (a preposition and up to three words may lead the question word).
    A question that does not open as a yes/no question, or asks nothing after it ("Can
    I go, or must I stay where I am?"), gives None.
    """
    if not YES_NO_OPENING.match(question):
        return None
    found = _VALUE_CLAUSE.search(question)
    return found.group(1).strip() if found else None


MEASURES: dict[str, re.Pattern[str]] = {
    "sound": re.compile(r"\bhow\s+loud\b|\bloudness\b|\b(?:noise|sound)\s+level\b", re.I),
    "mass": re.compile(r"\bhow\s+heavy\b|\bweigh(?:s|t)?\b|\bmass\b", re.I),
    "length": re.compile(
        r"\bhow\s+(?:tall|high|wide|deep|far)\b|\b(?:height|width|depth|length|distance)\b",
        re.I,
    ),
    "temperature": re.compile(r"\btemperature\b|\bhow\s+(?:hot|cold|warm)\b", re.I),
    "speed": re.compile(r"\bhow\s+fast\b|\bspeed\b", re.I),
    "power": re.compile(
        r"\bwattage\b|\bhow\s+much\s+power\b|\bpower\s+(?:consumption|draw|rating|use)\b",
        re.I,
    ),
    "voltage": re.compile(r"\bvoltage\b", re.I),
}
"""What a question asks to be measured, by its words ("how long" is left out: a time or
a length)."""

UNITS: dict[str, str] = {
    **dict.fromkeys(["db", "dba", "decibel", "decibels"], "sound"),
    **dict.fromkeys(
        ["kg", "g", "mg", "tonne", "tonnes", "kilogram", "kilograms", "gram", "grams"], "mass"
    ),
    **dict.fromkeys(["lb", "lbs"], "mass"),
    **dict.fromkeys(["m", "cm", "mm", "km", "ft", "feet", "foot", "inch", "inches"], "length"),
    **dict.fromkeys(["mile", "miles", "yard", "yards"], "length"),
    **{
        f"{prefix}{base}{plural}": "length"
        for prefix in ("", "centi", "milli", "kilo")
        for base in ("metre", "meter")
        for plural in ("", "s")
    },
    **dict.fromkeys(["°c", "°f", "celsius", "fahrenheit"], "temperature"),
    **dict.fromkeys(["km/h", "kph", "mph", "knot", "knots", "m/s"], "speed"),
    **dict.fromkeys(["w", "kw", "watt", "watts", "kilowatt", "kilowatts"], "power"),
    **dict.fromkeys(["v", "kv", "volt", "volts"], "voltage"),
}
"""Units a copy may state, by what they measure."""

_UNIT = re.compile(
    r"\d[\d,.]*\s*(°\s*[cf]\b|km/h|m/s|[^\W\d_]+)(?:\s*(?:/|\bper\b)\s*([^\W\d_]+))?", re.I
)

CURRENCIES = frozenset(
    ["euro", "euros", "eur", "dollar", "dollars", "usd", "gbp", "chf", "franc", "francs", "yen"]
)
"""Currencies an amount may be given in ("pound" is left out: a mass too)."""

COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b", re.IGNORECASE)
"""A question asking how many ("How many desks …?", "the maximum number of participants")."""

HOW_LONG = re.compile(r"\bhow\s+long\b", re.IGNORECASE)
"""A question asking how long: a time or a length ("How long does the battery last?")."""

_AMOUNT = re.compile(
    r"([€$£]\s*)?(?<![\w.,])\d[\d,.]*(?:\s*(°\s*[cf]\b|km/h|m/s|[^\W\d_]+))?", re.I
)

TIME_UNITS = frozenset(
    ["s", "sec", "second", "seconds", "min", "minute", "minutes", "h", "hr", "hour", "hours"]
)
"""Units of time a rate is given per ("kilometres per second", "km/h" written "km / h")."""

DURATIONS = TIME_UNITS | frozenset(
    ["secs", "mins", "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years"]
)
"""Units a time is stated in: "30 seconds" measures no height, weight or power.

They are kept out of `UNITS`: "How many days …?" asks a count, and "25 days" answers it.
"""

_TIME_FITS = re.compile(r"\b(?:length|distance|how\s+far)\b", re.I)
"""A length a time may give: "the flight's length", "how far" ("a ten-minute walk")."""


def measure_asked(question: str) -> str | None:
    """What the question asks to be measured, or None (none, or several at once)."""
    asked = [m for m, pattern in MEASURES.items() if pattern.search(_last_clause(question))]
    return asked[0] if len(asked) == 1 else None


def measures_stated(copy: str) -> set[str]:
    """What the units right after the copy's numbers measure ("25 decibels": sound).

    A time is stated as "time" ("30 seconds"), a measure no question asks. A unit given
    per another is a rate: a length per unit of time is a speed ("299,792 kilometres per
    second"); any other rate measures none of `MEASURES`.
    """
    stated: set[str] = set()
    for m in _UNIT.finditer(copy):
        word = "".join(m.group(1).lower().split())
        unit = UNITS.get(word) or ("time" if word in DURATIONS else None)
        per = m.group(2)
        if per is not None:
            unit = "speed" if unit == "length" and per.lower() in TIME_UNITS else None
        if unit is not None:
            stated.add(unit)
    return stated


def asks_count(question: str) -> bool:
    """Whether the question asks how many things, and no measure or currency with it.

    "What is the maximum number of participants?" does; "How many euros …?" and "How
    many kilometres …?" ask an amount of a unit, not a count.
    """
    clause = _last_clause(question)
    if COUNT.search(clause) is None or measure_asked(question) is not None:
        return False
    return not set(words(clause).split()) & (CURRENCIES | set(UNITS))


def amounts_measured(text: str) -> set[str] | None:
    """What the text's numbers measure when every one has a unit, or None.

    "220 euros" gives {"money"}, "about €90 or 2 kg" {"money", "mass"}; a number with no
    unit or with a noun that is no unit ("30 people", "2025") counts something, and so
    does a text with no number: None.
    """
    measured: set[str] = set()
    for m in _AMOUNT.finditer(text):
        unit = "".join((m.group(2) or "").lower().split())
        if m.group(1) or unit in CURRENCIES:
            measured.add("money")
        elif unit in UNITS:
            measured.add(UNITS[unit])
        else:
            return None
    return measured or None


def other_measure(question: str, text: str) -> tuple[str, str] | None:
    """What is asked and what the text's units state, when they state only other measures.

    ("sound", "length") for "How loud …?" answered "180 centimetres"; None otherwise. Text
    with no unit, or with a unit of the measure asked beside others, is not. A question
    asking how many (`asks_count`) is answered by no text whose every number is an
    amount of a unit: ("count", "money") for "the maximum number of participants"
    answered "220 euros". Nor is a question asking how long (a time or a length) by a
    text whose every number is an amount of another measure: ("how long", "power") for
    "How long does the unit run on its backup battery?" answered "3 watts".
    """
    if asks_count(question):
        measured = amounts_measured(text)
        return ("count", ", ".join(sorted(measured))) if measured else None
    if HOW_LONG.search(_last_clause(question)) and measure_asked(question) is None:
        measured = amounts_measured(text)  # a time's units are no units there: None
        if measured and "length" not in measured:
            return ("how long", ", ".join(sorted(measured)))
        return None
    asked = measure_asked(question)
    stated = measures_stated(text) if asked else set()
    if asked == "length" and _TIME_FITS.search(_last_clause(question)):
        stated.discard("time")
    if asked is None or not stated or asked in stated:
        return None
    return asked, ", ".join(sorted(stated))


def measure_mismatch(question: str, text: str) -> str | None:
    """What `other_measure` finds, in words, or None.

    "a time value, but the question asks for length"; for a count, "a money value, but
    the question asks how many".
    """
    found = other_measure(question, text)
    if found is None:
        return None
    asked, stated = found
    asks = {"count": "how many", "how long": "how long"}.get(asked, f"for {asked}")
    return f"a {stated} value, but the question asks {asks}"


def of_kind(question: str, copy: str) -> bool:
    """Whether the copy can be what the question's form asks for (see the module)."""
    if other_measure(question, copy) is not None:
        return False
    quantity, time = asks_quantity(question), asks_time(question)
    return not (quantity or time) or _numbered(copy, time=time)


def _numbered(text: str, *, time: bool) -> bool:
    """Whether the text has a digit or a number word, or for a time a word of time."""
    if states_a_number(text):
        return True
    tokens = set(words(text).split())
    return bool(tokens & NUMBER_WORDS) or (time and bool(tokens & TIME_WORDS))


_ASKS_WHICH = re.compile(
    r"^\W*(?:which|who|whom|whose|where|what\s+(?!(?:is|are|was|were)\b)[^\W\d_]+\s+"
    r"(?:is|are|was|were)\b)",
    re.IGNORECASE,
)
"""A question asking for a thing, a person or a place ("Which metal is liquid at room
temperature?"): a measure word in it names a condition, not the value asked."""


def value_asked(question: str) -> str | None:
    """The value the question's form asks for: "time", "quantity", a measure, or None.

    "When …?" asks a time, "How many …?" a quantity (`asks_time`, `asks_quantity`), and
    "Give the weight of the TAQSH." a measure ("mass", `measure_asked`) unless the
    question asks which thing or who (`_ASKS_WHICH`), or is a yes/no question with no
    value clause ("Does it weigh more than 2 kg?" is answered "No").
    """
    if asks_time(question):
        return "time"
    if asks_quantity(question):
        return "quantity"
    measure = measure_asked(question)
    if measure is None or _ASKS_WHICH.match(_last_clause(question)):
        return None
    if YES_NO_OPENING.match(question) and value_clause(question) is None:
        return None
    return measure


def gives_value(question: str, text: str) -> bool:
    """Whether `text` states a value of the kind the question asks for (`value_asked`).

    A number, a number word ("three", "no") or, for a time, a word of time ("in March");
    "how often" is also answered by a frequency ("annually"). Any text passes a question
    that asks for none of these. "The weight of the TAQSH is given in the specifications
    section" gives no weight; "Yes, you may work from home" no number of days.
    """
    asked = value_asked(question)
    if asked is None or _numbered(text, time=asked == "time"):
        return True
    return asked == "quantity" and bool(set(words(text).split()) & CALENDAR)


def worded_as_asked(question: str) -> Callable[[str], bool] | None:
    """The test of a text wording what the question asks for with no digit, or None.

    The judge asked "When does the WSB meet?" may answer in its own words around the
    chunk's "It meets on the second Thursday of each month": the run the chunk holds,
    "meets on the second Thursday of each month", names a weekday the question does
    not. Only a question asking how many, how much, how often (a quantity) or when (a
    time) is answered so (None for any other: its run could be any phrase of the
    chunk). The test: the text has a cardinal word the question does not ("ten hours"),
    and for a time also a month, weekday, season or frequency word. The question is
    read once; the test is asked of every run of a reply.
    """
    time, quantity = asks_time(question), asks_quantity(question)
    if not (time or quantity):
        return None
    wanted = CARDINALS | CALENDAR if time else CARDINALS
    own = set(words(question).split())
    return lambda text: bool((set(words(text).split()) - own) & wanted)


OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b", re.IGNORECASE)

NOT_WHAT_HAPPENS = LEADING_WORDS | frozenset(
    [
        *("be", "been", "being", "get", "gets", "got", "need", "needs", "needed"),
        *("happen", "happens", "take", "takes", "place", "usually", "normally", "typically"),
        *("it", "its", "they", "their", "them", "we", "our", "us", "i", "my", "me"),
        *("you", "your", "he", "his", "she", "her", "this", "that", "these", "those"),
        *("and", "or", "with", "there", "any", "one", "ones", "required", "supposed"),
        *("expected", "allowed"),
    ]
)
"""Words of a "how often" question that say nothing of what happens: question words,
auxiliaries, pronouns, light verbs ("needs recalibrating": what happens is recalibrating)."""

NOT_ASKED_ABOUT = (
    NOT_WHAT_HAPPENS
    | CARDINALS
    | frozenset(
        [
            *("much", "many", "long", "up", "still", "without", "over", "off", "permitted"),
            *("possible", "ok", "okay", "fine", "also", "even", "ever", "too", "so"),
        ]
    )
)
"""Words of a yes/no question asking a value after it that say nothing of what it asks
about: `NOT_WHAT_HAPPENS`, the value's own words ("how much", "up to"), permission
("Is it permitted …"), and numbers, which state a condition ("a two-week holiday")."""

_ASKS_A_VALUE = re.compile(
    r"^(?:(?:up\s+to|[^\W\d_]+)\s+(?:[^\W\d_]+\s+){0,3}?)?(?:how|what|when)\b", re.IGNORECASE
)
"""A value clause asking how much, what limit, when (not who, where or which)."""


def what_happens(question: str) -> list[str]:
    """The words of a "how often" question after "how often", less `NOT_WHAT_HAPPENS`.

    "How often does the WSB meet?" gives ["wsb", "meet"], "How often must an
    administrator account change its password?" ["administrator", "account", "change",
    "password"]; [] for a question that does not ask how often.
    """
    clause = _last_clause(question)
    found = OFTEN.search(clause)
    if found is None:
        return []
    after = words(clause[found.end() :]).split()
    return [w for w in after if w not in NOT_WHAT_HAPPENS and not w.isdigit()]


def asked_about(question: str) -> list[str]:
    """The words one of which a statement answering the question holds; [] for any.

    Two forms name what they ask about apart from the value they ask: a question asking
    how often ("How often does the WSB meet?": its words after "how often",
    `what_happens`), and a yes/no question asking a value after it (`value_clause`: "May
    I fly business class, and on flights of what length?" gives ["fly", "business",
    "class", "flights", "length"]; not one asking who, where or which). The question's
    names are left out (`core.quotes.subject_terms`: a page may call the WSB "the
    board"), and so are words of one letter.
    """
    if OFTEN.search(_last_clause(question)):
        asked = what_happens(question)
    else:
        clause = value_clause(question)
        if clause is None or not _ASKS_A_VALUE.match(clause):
            return []
        asked = row_words(question)
    names = subject_terms(question)
    return [w for w in dict.fromkeys(asked) if w not in names and len(w) > 1 and not w.isdigit()]


def same_word(a: str, b: str) -> bool:
    """Whether two lower-case words are forms of one ("meet", "meets").

    The longer starts with the shorter, or with all but its last two letters and with at
    least three ("replaced", "replacement"; "salary", "salaries"; not "change",
    "charter"). A word of one or two letters is only itself ("a" is no form of
    "allowance").
    """
    short = min(a, b, key=len)
    if len(short) < 3:
        return a == b
    shared = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
    return shared >= min(len(short), max(3, len(short) - 2))


def says_asked(question: str, statement: str) -> bool:
    """Whether the statement a copy was taken from is about what the question asks.

    A page states several frequencies of one subject: "How often does the WSB meet?" is
    not answered by the WSB charter's "It is reviewed at least once a year"; and "May I
    fly business class, and on flights of what length?" not by "The hotel limit outside
    capital cities is 120 euros a night". The statement must hold one of the words of
    `asked_about`, in any of its forms (`same_word`: "the laptop replacement cycle is 5
    years" for "How often are laptops replaced?"). True for a question of neither form,
    or whose words all name its subject.
    """
    return _holds_one(asked_about(question), statement)


def _holds_one(asked: list[str], statement: str) -> bool:
    """Whether the statement holds a form of one of `asked` (any statement, for none).

    A number only as itself: "2022" is no form of "2023".
    """
    held = words(statement).split()
    return not asked or any(w == s if w.isdigit() else same_word(w, s) for w in asked for s in held)


_PERIOD = (
    r"(?:second|minute|hour|day|night|week|weekday|weekend|fortnight|month|quarter|term|"
    r"semester|season|year|decade|" + "|".join(WEEKDAYS) + r")s?"
)
FREQUENCY = re.compile(
    r"\b(?:once|twice|thrice|(?:\d+|[^\W\d_]+)\s+times)\b"
    rf"|\b(?:every|each|per)\s+(?:other\s+|(?:\d+|[^\W\d_]+)\s+)?{_PERIOD}\b"
    r"|\b(?:hourly|daily|nightly|weekly|fortnightly|biweekly|monthly|bimonthly|quarterly|"
    r"yearly|annually|biannually|biennially)\b",
    re.IGNORECASE,
)
"""A frequency in so many words: "once a year", "every 18 months", "the first Monday of
each quarter", "every Friday", "quarterly" ("a cycle of 5 years" is not one)."""


def words_asked(question: str, text: str) -> bool:
    """Whether a statement of the text states the value asked in the question's words.

    One that `says_asked` and states the value: for "how often" a `FREQUENCY` ("The
    board meets on the first Tuesday of each month" for "How often does the WSB meet?",
    of whichever board; not "The meeting was held on 2024-03-15"); for a yes/no
    question's value a number or a number word, of no other measure than one asked
    ("Flights over six hours may be booked in business class"). False for a question
    `asked_about` gives no words.
    """
    asked = asked_about(question)
    return bool(asked) and any(map(_stating(question, asked), statements(text)))


def _stating(question: str, asked: list[str]) -> Callable[[str], bool]:
    """The test of a statement of `words_asked`, the question read once (`asked`: its words)."""
    often = OFTEN.search(_last_clause(question)) is not None
    time = asks_time(question)

    def test(statement: str) -> bool:
        if not _holds_one(asked, statement):
            return False
        if often:
            return FREQUENCY.search(statement) is not None
        return _numbered(statement, time=time) and other_measure(question, statement) is None

    return test


def states_asked(question: str, doc: Doc) -> bool:
    """Whether the document states the value asked in the question's words.

    It names what the question names (`core.quotes.names_subject`: its text, title or
    context note) and `words_asked` ("It meets on the first Monday of each quarter" in
    the section "WSB" for "How often does the WSB meet?"; not another board's "The
    board meets on the first Tuesday of each month").
    """
    return names_subject(question, doc["title"], doc["content"]) and words_asked(
        question, undated(doc["content"])
    )


def copied_from(doc: Doc, copy: str) -> str:
    """The sentence or table row of the document a copy is in; the copy when none is."""
    found = statement(undated(doc["content"]), copy)
    return found[0] if found else copy


_SEPARATOR = re.compile(r"\|[\s:|-]*")
"""A table's separator row ("|---|:--|")."""


def table_rows(text: str) -> list[list[str]]:
    """The data rows of each table in the text (its heading and separator rows left out).

    A table is a run of lines opening with "|"; the row just before a separator row is
    its heading. A chunk cut inside a table starts with data rows.
    """
    return [rows for _, rows in _tables(text)]


def _tables(text: str) -> list[tuple[list[str], list[str]]]:
    """Each table's heading cells (none for a chunk cut inside it) and data rows."""
    tables: list[tuple[list[str], list[str]]] = []
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        flat = " ".join(line.split())
        if flat.startswith("|"):
            run.append(flat)
            continue
        if run:
            heading = {i - 1 for i, row in enumerate(run) if _SEPARATOR.fullmatch(row)}
            rows = [
                r for i, r in enumerate(run) if i not in heading and not _SEPARATOR.fullmatch(r)
            ]
            head = [_cells(run[i]) for i in sorted(heading) if i >= 0]
            tables.append((head[0] if head else [], rows))
            run = []
    return tables


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip("|").split("|")]


class _Held(NamedTuple):
    """A table holding a copy in its data rows (`_holding`)."""

    heading: list[str]  # its heading's cells; none for a chunk cut inside it
    rows: list[str]  # its data rows, as written
    grid: list[list[str]]  # their cells
    holding: list[int]  # the rows holding the copy
    columns: set[int]  # the columns they hold it in


def _holding(text: str, copy: str) -> Iterator[_Held]:
    """Each table of the text holding the copy in a data row."""
    for heading, rows in _tables(text):
        holding = [i for i, row in enumerate(rows) if grounded(copy, row)]
        if holding:
            grid = [_cells(row) for row in rows]
            columns = {k for i in holding for k, c in enumerate(grid[i]) if grounded(copy, c)}
            yield _Held(heading, rows, grid, holding, columns)


def row_words(question: str) -> list[str]:
    """The question's words a table row it asks about holds one of, its names and years too.

    "which office is zaleth dumas based in?" gives ["office", "zaleth", "dumas",
    "based"]: the words of the question less `NOT_ASKED_ABOUT`, of two letters or more.
    """
    found = dict.fromkeys(words(question).split())
    return [w for w in found if w not in NOT_ASKED_ABOUT and len(w) > 1]


def wrong_row(asked: list[str], text: str, copy: str) -> bool:
    """Whether the copy was read from another row of a table than the one asked about.

    `asked`: `row_words`. "Kurovak" for "which office is zaleth dumas based in?" from a
    staff directory where it is only in other people's rows ("| Nukilil Saizethu |
    Kurovak | 2163 |") while another row holds the question's words in another column
    than the copy's ("| Zaleth Dumas | Maiti | 4690 |"). False when a sentence of the
    text, not a row, holds the copy, when a row holding it holds one of the words (in any
    form; a number only as itself), or when no other row holds one outside the copy's
    column: then nothing tells the rows apart ("| Model | GPMG |" names the unit in the
    column of the values, beside "| Operating temperature | 40 °C |").
    """
    if not asked or not copy.strip():
        return False
    prose = [s for s in statements(text) if not s.startswith("|")]
    if any(grounded(copy, s) for s in prose):
        return False

    read = False
    for table in _holding(text, copy):
        grid, holding, columns = table.grid, table.holding, table.columns
        if any(_holds_one(asked, table.rows[i]) for i in holding):
            return False
        keyed = any(
            _holds_one(asked, cell)
            for i, cells in enumerate(grid)
            if i not in holding
            for k, cell in enumerate(cells)
            if k not in columns
        )
        if not keyed:
            return False
        read = True
    return read


def asked_cell(asked: list[str], text: str, copy: str) -> str | None:
    """The cell a copy read from another row (`wrong_row`) stands for in the row asked about.

    The judge's copy says which column answers ("Kurovak", under "Office"), the
    question's words which row ("| Zaleth Dumas | Maiti | 4690 |"): that row's cell in
    the copy's column, "Maiti". The column's heading must hold one of the question's
    words ("office" for "which office is zaleth dumas based in?"): a copy from another
    column ("2163", an extension) is a copy of another fact, whatever its row. The row
    is the one holding the most of the question's words outside that column ("Zaleth
    Dumas" over "Peri Dumas"). None unless, in every table holding the copy, it sits in
    one such column and one row holds more of the words than any other, and those give
    one non-empty cell; and None for a table with no heading (a chunk cut inside it).
    """
    if not wrong_row(asked, text, copy):
        return None
    cells: set[str] = set()
    for table in _holding(text, copy):
        heading, grid, holding, columns = table.heading, table.grid, table.holding, table.columns
        if len(columns) != 1:
            return None
        (column,) = columns
        if column >= len(heading) or not any(_holds_one([w], heading[column]) for w in asked):
            return None
        held = {
            i: sum(any(_holds_one([w], c) for k, c in enumerate(row) if k != column) for w in asked)
            for i, row in enumerate(grid)
            if i not in holding
        }
        most = max(held.values(), default=0)
        keyed = [grid[i] for i, n in held.items() if n == most]
        if most == 0 or len(keyed) != 1 or len(keyed[0]) <= column:
            return None
        cells.add(keyed[0][column])
    return cells.pop() if len(cells) == 1 and "" not in cells else None


def misread_cell(asked: list[str], text: str, answer: str) -> tuple[str, str] | None:
    """A cell the answer gives from another row than the one asked about, and that row's.

    `asked`: `row_words`. "The office of Zaleth Dumas is based in Kurovak" against the
    staff directory gives ("Kurovak", "Maiti"): the generator read the row above, as
    the judge had (`asked_cell` says which cell the row asked about holds). None when
    the answer gives that cell too, or no cell it gives is read from another row.
    """
    for _, rows in _tables(text):
        for row in rows:
            for cell in _cells(row):
                if not cell or not grounded(cell, answer):
                    continue
                read = asked_cell(asked, text, cell)
                if read is not None and not grounded(read, answer):
                    return cell, read
    return None


COMMON_SHARE = 0.5
"""The share of the retrieved pages (by title) stating a value with an asked word that
makes the word common to the knowledge base (`common_words`)."""
COMMON_LEAST = 3
"""The fewest pages stating a value with an asked word that make it common."""


def common_words(question: str, asked: list[str], docs: list[Doc]) -> list[str]:
    """The words of `asked` that most retrieved pages state a value with.

    An intranet page's footer says "It is reviewed at least once a year"; asked "how
    often are salaries reviewed?", nine of ten pages retrieved state how often something
    is reviewed, none of them salaries. A word stated with a value (`_stating`) by at
    least `COMMON_SHARE` of the pages retrieved (distinct titles), and by at least
    `COMMON_LEAST`, does not tell which fact a statement is about.
    """
    pages = {d["title"] for d in docs}
    need = max(COMMON_LEAST, COMMON_SHARE * len(pages))
    texts = [(d["title"], statements(undated(d["content"]))) for d in docs]
    common = []
    for word in asked:
        test = _stating(question, [word])
        if len({title for title, said in texts if any(map(test, said))}) >= need:
            common.append(word)
    return common


def answers_other(question: str, docs: list[Doc]) -> Callable[[str, Doc], bool] | None:
    """The test of a copy answering for something else, or None when there is none.

    When a retrieved document `words_asked` (of the question's subject or another), the
    knowledge base states the value in the question's words, and a copy whose own
    statement does not (`says_asked`: the WSB charter's review for how often the WSB
    meets, a hotel's limit for the flights that may be booked in business class)
    answers for another fact (`stated_of_other` says which statements). With no
    statement in the question's words, None: "an annual race" may well say how often
    the race is held, in other words.
    """
    refused = stated_of_other(question, docs)
    if refused is None:
        return None
    return lambda copy, doc: bool(copy) and refused(copied_from(doc, copy), doc)


def stated_of_other(question: str, docs: list[Doc]) -> Callable[[str, Doc], bool] | None:
    """The test of a statement of a document being about another fact, or None (`answers_other`).

    A statement holding none of the question's words (`asked_about`) is. For a question
    asking how often, so is one holding only words most pages state a value with
    (`common_words`: "reviewed" in "It is reviewed at least once a year", for "how often
    are salaries reviewed?") when its document, title and text, holds none of the
    question's other words. (A yes/no question's words include the value's unit, "days",
    and a page may say "from another country" for "abroad": screened, that lost a right
    copy and refused no wrong one.) None when no retrieved statement holds the question's
    words with the value (see `answers_other`).
    """
    asked = asked_about(question)  # read once for every document and statement
    if not asked:
        return None
    test = _stating(question, asked)
    if not any(test(s) for d in docs for s in statements(undated(d["content"]))):
        return None
    often = OFTEN.search(_last_clause(question)) is not None
    common = common_words(question, asked, docs) if often else []
    telling = [w for w in asked if w not in common] if common else []

    def refused(statement: str, doc: Doc) -> bool:
        if not _holds_one(asked, statement):
            return True
        return bool(telling) and not _holds_one(telling, f"{doc['title']}\n{doc['content']}")

    return refused


def values_given(question: str, text: str) -> list[str]:
    """The values a text gives in the form the question asks them, in order.

    For "how often", its frequencies ("every year", "at least once a year" gives "once a
    year"); for any other question, its numbers ("220", "1,500").
    """
    if not OFTEN.search(_last_clause(question)):
        return _NUMBERS.findall(text)
    found = []
    for match in FREQUENCY.finditer(text):
        period = _PER_PERIOD.match(text, match.end())
        found.append(text[match.start() : period.end() if period else match.end()])
    return found


_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
_PER_PERIOD = re.compile(rf"\s+(?:a|an|per|every|each)\s+(?:other\s+)?(?:\d+\s+)?{_PERIOD}\b", re.I)
"""The period after "once", "twice" or "three times" ("once a year")."""


def pinned(question: str) -> list[str]:
    """The years and versions the question names: a chunk must name them to answer it."""
    found = [m.group(0) for m in YEAR.finditer(question)]
    found += [m.group(1) for m in VERSION.finditer(question)]
    return list(dict.fromkeys(found))


def names_pinned(question: str, text: str) -> bool:
    """Whether `text` names every year and version the question names.

    A year counts as named when the text has it, or years before and after it (a span:
    "became chief executive in 2004 … succeeded in 2018" answers for 2007).
    """
    years = [int(y) for y in YEAR.findall(text)]
    for wanted in pinned(question):
        if re.search(rf"(?<![\d.]){re.escape(wanted)}(?![\d]|\.\d)", text):
            continue
        if not YEAR.fullmatch(wanted):
            return False
        asked = int(wanted)
        if not (any(y < asked for y in years) and any(y > asked for y in years)):
            return False
    return True


def unpinned(question: str, docs: list[Doc]) -> list[str]:
    """The years and versions the question names when none of `docs` names them, or [].

    Each document is read with its title (`names_pinned`: the year itself, or years
    either side of it). [] when the question names none, or there is no document.
    """
    wanted = pinned(question)
    if not (wanted and docs):
        return []
    texts = [f"{d['title']}\n{d['content']}" for d in docs]
    return [] if any(names_pinned(question, t) for t in texts) else wanted
