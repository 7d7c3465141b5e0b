"""When the kept documents disagree: which value holds, or that nothing decides it.

The extracting judge copies, from each document it passes, what answers the question
(`Judgment.evidence`). Two documents of the knowledge whose copies differ (neither
contained in the other, case and punctuation aside) state different values for the
asked fact. Then:

- **dated**: every value has a date and one value has the latest date of all: that
  value holds. A value's date is the year of its own statement when that names one
  (`stated_date`: "| 2023 | 445 |", "by 2023 the number had fallen to 467"), else its
  document's (`core.documents.doc_date`): a company page that is not dated itself
  still says which year its head count is for. A question naming a year asks about
  then, not now: its values are dated by their documents alone. The generator is told
  to answer with the value that holds and to say what the earlier document said,
  citing both ("… since June 2024 [2]; the 2019 notice said … [1]");
- **undated**: nothing decides between them. The generator is told to give each value
  with its citation, the route carries ``conflict``, and the verifier asks that the
  answer does.

Only copies that can be two values of one fact count (`rivals`): numbers in the same
unit, or two names neither of whose documents names the other; and for a question asking
a measure ("At what height …?", `core.asked.measure_asked`), only copies stating it in
its unit: the judge passed "3.6" and "3.2" from two firmware release notes for a mounting
height no page states, and the generator, told the latest value holds, answered "3.6
meters". A judge that passed a
chunk stating another fact ("30 seconds" beside "180 centimetres" for a mounting height)
has made an error, not found a disagreement; and a page that names both "Ostrel" and
"Harnow Park" does not contradict one that names the city alone. Two chunks of one page
(one `source`) do not disagree either: a page giving "120 euros" outside capital cities
and "210 euros" in them states two facts. It disagrees with itself only as its own
history, where each value's statement names its year ("In 2019 … 408"; "in 2023 …
445"), or where it says one value replaced the other (`core.updates`). Nor do two pages
about two named things: for "how many people are in the core team of project bifol?",
"9" from "Project Bifol" and "5" from "Project Meigais" answer for two projects
(`_title_names`). And the copy the judge was surest of (`p_highly`) must be one of the
values: when a manual's "45 seconds" for a start-up time is surer than two release
notes' "3 minutes" and "5 minutes", those are another setting's values, not a
disagreement (`_surest_among`). Nothing here calls a model: the values are the judge's
own copies and its probabilities.
"""

from __future__ import annotations

import re

from judged_rag.core.asked import measure_asked, measures_stated, pinned
from judged_rag.core.calendar import YEAR
from judged_rag.core.documents import doc_date, split_note
from judged_rag.core.quotes import (
    JOINING_WORDS,
    grounded,
    position,
    statement,
    states_a_number,
    words,
)
from judged_rag.state import Conflict, Doc, Judgment, Stated

INSTRUCTS = "the answer must"
"""How the checker's feedback on a conflict tells the generator what to write: an answer
holding these words copied the instruction (`nodes.verify.echoed`)."""

MAX_VALUES = 4
"""Most values listed (the rest are left to the documents themselves)."""

MAX_NAME_WORDS = 5
"""Longest copy read as a name ("Ostrel, Vantmark", "Priya Okafor"); a longer one is a
statement, which says more than one value."""


_QUANTITY = re.compile(r"(\d[\d,.:]*)\s*([^\W\d_]+|%)?")


def _measure(copy: str) -> tuple[str, str] | None:
    """The first number of a copy and the word after it, or None without a number.

    "180 centimetres" gives ("180", "centimetre"): a plural's "s" is dropped.
    """
    match = _QUANTITY.search(copy)
    if match is None:
        return None
    unit = (match.group(2) or "").lower()
    return match.group(1), unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit


def comparable(a: str, b: str) -> bool:
    """Whether two copies can be two values of one fact: numbers in the same unit.

    "07:10" and "07:40", "1871" and "1874", "37 hours" and "39 hours" are; "180
    centimetres" and "30 seconds" (the judge passed a chunk stating another fact) are
    not. Copies without a number are names or statements: `rivals` reads those.
    """
    first, second = _measure(a), _measure(b)
    return first is not None and second is not None and first[1] == second[1]


def name_like(copy: str) -> bool:
    """Whether a copy is a name: a few capitalised words (joining words aside), no number.

    "Ostrel, Vantmark", "Kabrek Instruments", "Bank of England" are; "the installer", "12 hours",
    "The league moved the final to Ostrel" are not.
    """
    tokens = [t.strip(".,;:()\"'“”’") for t in copy.split()]
    tokens = [t for t in tokens if t]
    if not tokens or len(tokens) > MAX_NAME_WORDS or states_a_number(copy):
        return False
    return all(t[0].isupper() or t.lower() in JOINING_WORDS for t in tokens)


def rivals(a: Stated, b: Stated, knowledge: list[Doc]) -> bool:
    """Whether two values can be rival answers to the asked fact.

    Numbers in the same unit (`comparable`); or two names (`name_like`) where no
    document stating one also names the other: a page naming both holds them together
    (a stadium and its city, a person and their employer), which is no disagreement.
    """
    if comparable(a["value"], b["value"]):
        return True
    if not (name_like(a["value"]) and name_like(b["value"])):
        return False
    return not any(
        grounded(other["value"], knowledge[n - 1]["content"])
        for one, other in ((a, b), (b, a))
        for n in one["numbers"]
    )


def stated_date(doc: Doc, copy: str) -> str | None:
    """The date of a copied value: the year its own statement gives it, else its document's.

    The statement is the sentence or table row the copy is in (`quotes.statement`),
    narrowed to its clause between semicolons; its year is the last one before the copy
    there, else the first after it ("In 2013 the mill had 526 employees; by 2023 the
    number had fallen to 467" dates 526 to 2013 and 467 to 2023). A copy holding a
    year answers "when": the years beside it are other events ("born in 1923, died in
    1987"), so it is dated by its document.
    """
    if doc["origin"] != "kb":
        return None
    return _own_year(doc, copy) or doc_date(doc)


def _own_year(doc: Doc, copy: str) -> str | None:
    """The year a copy's own statement gives it (`stated_date`), or None."""
    found = None if YEAR.search(copy) else statement(split_note(doc["content"])[2], copy)
    if found is None:
        return None
    text, at = found
    start = text.rfind(";", 0, at) + 1
    end = text.find(";", at)
    clause = text[start : end if end >= 0 else len(text)]
    at -= start
    years = [(m.start(), m.group(0)) for m in YEAR.finditer(clause)]
    before = [y for where, y in years if where < at]
    after = [y for where, y in years if where > at]
    if before or after:
        return before[-1] if before else after[0]
    return None


def disagreement(
    knowledge: list[Doc], judgments: dict[str, Judgment], question: str = ""
) -> Conflict | None:
    """The conflict among the knowledge's Highly Relevant copies, or None.

    `judgments`: the latest judgment of each document (`core.judgments.latest_judgments`);
    `question`: what was asked (a year it names keeps the statements' years unread).
    """
    asks_then = bool(pinned(question))
    measure = measure_asked(question)
    # Each value once (one copy holding the other, as whole words, is the same value),
    # with the dates of the documents stating it and where it is stated (the page, and
    # whether the statement names its year). A document that later replaces its own
    # value (`core.updates`) states both, each dated by its statement's year.
    groups: list[tuple[Stated, list[str | None], list[tuple[str, bool]]]] = []
    replaced: list[tuple[str, str]] = []
    for number, doc in enumerate(knowledge, start=1):
        judgment = judgments.get(doc["id"])
        if judgment is None or judgment["label"] != "highly_relevant":
            continue
        copy = " ".join(judgment["evidence"].split())
        if not words(copy):
            continue
        update = judgment.get("update")
        values = [(copy, doc_date(doc) if asks_then else stated_date(doc, copy))]
        if update is not None:
            values = [(update["value"], update["date"]), (copy, update["since"])]
            replaced.append((update["value"], copy))
        for value, date in values:
            if measure is not None and measure not in measures_stated(value):
                continue  # "3.6" from "firmware 3.6" is no height: no value of it
            group = next((g for g in groups if same_value(g[0]["value"], value)), None)
            if group is None:
                group = (Stated(value=value, numbers=[number], date=None), [date], [])
                groups.append(group)
            elif number not in group[0]["numbers"]:
                group[0]["numbers"].append(number)
                group[1].append(date)
            group[2].append((doc["source"], _own_year(doc, value) is not None))
    # Only values of one fact disagree; a copy of another fact is the judge's error.
    named = _title_names(question, [knowledge[n - 1] for g in groups for n in g[0]["numbers"]])
    about = [_naming(named, [knowledge[n - 1] for n in g[0]["numbers"]]) for g in groups]
    stated: list[Stated] = []
    for (entry, seen, where), these in zip(groups, about, strict=True):
        if any(
            (rivals(entry, other, knowledge) and not _one_page(where, there) and these == those)
            or _replaces(entry, other, replaced)
            for (other, _, there), those in zip(groups, about, strict=True)
            if other is not entry
        ):
            known = [d for d in seen if d is not None]
            entry["date"] = max(known) if known and len(known) == len(seen) else None
            stated.append(entry)
    if len(stated) < 2 or not _surest_among(stated, [g[0] for g in groups], knowledge, judgments):
        return None
    latest = _latest([s["date"] for s in stated])
    if latest is None:
        return Conflict(kind="undated", values=stated[:MAX_VALUES])
    ordered = [stated[latest], *(s for i, s in enumerate(stated) if i != latest)]
    return Conflict(kind="dated", values=ordered[:MAX_VALUES])


def _surest_among(
    stated: list[Stated], values: list[Stated], knowledge: list[Doc], judgments: dict[str, Judgment]
) -> bool:
    """Whether the copy the judge was surest of is one of the disagreeing values.

    `values`: every value copied (`stated` those that disagree). Two release notes'
    screen timeouts ("3 minutes", earlier "5 minutes") disagree in one unit, but where
    the judge was surer of a manual's "45 seconds" for a start-up time, they are its
    copies of another setting, not the asked fact's history. Surest: the highest
    `p_highly` among the documents of the values; when the disagreeing values are
    numbers, of the values stating a number ("Installation takes a few minutes", surer
    than two notes' start-up times, states none, and no rival value). With no
    probability given (a judge with none), every disagreement stands.
    """
    if all(states_a_number(value["value"]) for value in stated):
        values = [value for value in values if states_a_number(value["value"])]
    sure = {
        n: p
        for value in values
        for n in value["numbers"]
        if (p := judgments[knowledge[n - 1]["id"]].get("p_highly")) is not None
    }
    if not sure:
        return True
    top = max(sure.values())
    inside = {n for value in stated for n in value["numbers"]}
    return any(p == top and n in inside for n, p in sure.items())


def _one_page(a: list[tuple[str, bool]], b: list[tuple[str, bool]]) -> bool:
    """Whether two values are two facts of one page, not a disagreement.

    `a`, `b`: where each value is stated, as (source, whether the statement names its
    year). One page states both and nothing else does, and not both as its own dated
    history. A document with no source (a retriever that names none) is no known page.
    """
    pages = {source for source, _ in a} | {source for source, _ in b}
    history = all(own for _, own in a) and all(own for _, own in b)
    return len(pages) == 1 and "" not in pages and not history


def _title_names(question: str, docs: list[Doc]) -> set[str]:
    """The question's words that a document's title holds as a name.

    In any case the question writes them ("project bifol"), but a name in the
    documents: a title word they write in capitals ("GFBC") or capitalised inside a
    sentence or a title ("Project Bifol", "The Graider office opens"). A title's
    first word, capitalised as any title's is ("Training budget"), is no name by that.
    Two values whose documents do not state the same of these names answer for two
    named things, not one: they do not disagree.
    """
    asked = {w for w in words(question).split() if len(w) > 1 and not w.isdigit()}
    asked -= JOINING_WORDS
    found: set[str] = set()
    for d in {d["id"]: d for d in docs}.values():
        for w in asked & set(words(d["title"]).split()) - found:
            if _written_as_name(w, d["title"]) or _written_as_name(w, d["content"]):
                found.add(w)
    return found


def _written_as_name(word: str, text: str) -> bool:
    """Whether `text` writes `word` as a name: in capitals, or capitalised mid-sentence."""
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if words(token) != word or not token[0].isupper():
            continue
        before = text[: match.start()].rstrip(" \t")
        if (token.isupper() and len(token) > 1) or (before and before[-1] not in _STARTS):
            return True
    return False


_TOKEN = re.compile(r"[^\W_][\w'’-]*")
_STARTS = '.!?:;\n#|*->"“(['
"""What a capitalised word may follow as a sentence's, a line's or a cell's first."""


def _naming(names: set[str], docs: list[Doc]) -> set[str]:
    """Which of the question's title names (`_title_names`) the documents state at all."""
    text = " ".join(words(f"{d['title']} {d['content']}") for d in docs).split()
    return names & set(text)


def same_value(a: str, b: str) -> bool:
    """Whether two copies are one value: one holds the other, as whole words."""
    return grounded(a, b) or grounded(b, a)


def _replaces(a: Stated, b: Stated, replaced: list[tuple[str, str]]) -> bool:
    """Whether a document gave one of the two values as the other's later replacement.

    Such a pair disagrees although the document names both ("Shimel Beimeker succeeded
    Dikeisik"), which `rivals` would read as holding them together.
    """
    return any(
        same_value(new, x["value"]) and same_value(old, y["value"])
        for new, old in replaced
        for x, y in ((a, b), (b, a))
    )


def _latest(dates: list[str | None]) -> int | None:
    """The index of the one latest date, or None: a value undated, or a tie at the top.

    Dates of different precision compare by their common prefix, so "2024-06" and
    "2024-06-30" tie.
    """
    if any(d is None for d in dates):
        return None
    known = [d for d in dates if d is not None]
    best = 0
    for i, d in enumerate(known):
        if _after(d, known[best]):
            best = i
    tied = [i for i, d in enumerate(known) if i != best and not _after(known[best], d)]
    return None if tied else best


def _after(a: str, b: str) -> bool:
    n = min(len(a), len(b))
    return a[:n] > b[:n]


def cited(stated: Stated) -> str:
    """A value with its documents' numbers: '"30 seconds" [2]'."""
    return f'"{stated["value"]}" ' + "".join(f"[{n}]" for n in stated["numbers"])


def dated(stated: Stated) -> str:
    """A value with its documents' numbers and date: '"07:40" [2] (dated 2024-06-01)'."""
    return cited(stated) + (f" (dated {stated['date']})" if stated["date"] else "")


def unmet(conflict: Conflict, answer: str) -> str | None:
    """What the answer leaves out of a conflict it must report, or None.

    Dated: the value that holds, given before any earlier one (an answer that leads with
    the 2021 head count and adds the 2023 one after it gives the outdated value as the
    answer); undated: every value.
    """
    wanted = conflict["values"][:1] if conflict["kind"] == "dated" else conflict["values"]
    missing = [s for s in wanted if not grounded(s["value"], answer)]
    if not missing and conflict["kind"] == "dated":
        latest, *earlier = [position(s["value"], answer) for s in conflict["values"]]
        if latest is not None and any(e is not None and e < latest for e in earlier):
            return (
                f"the latest dated document states {cited(conflict['values'][0])}; {INSTRUCTS} "
                "give it first, as the value that holds"
            )
    if not missing:
        return None
    if conflict["kind"] == "dated":
        return f"the latest dated document states {cited(missing[0])}; {INSTRUCTS} give it"
    return f"the documents disagree; {INSTRUCTS} give each value with its document: " + (
        "; ".join(cited(s) for s in conflict["values"])
    )
