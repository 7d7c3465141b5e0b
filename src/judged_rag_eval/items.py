"""The questions a suite asks (`EvalItem`) and the JSON-lines format of your own.

User data (`load_user_items`): JSON lines with ``question``, ``answer`` or ``answers``,
and optionally ``id``, ``options``, ``evidence`` (titles) and ``in_domain``. An item
with ``"abstain": true`` has no answer: abstaining is right (variant "unanswerable"), and
it is scored as abstention-correct. ``must_not_contain`` lists strings an answer must not
contain (a secret, a wrong name); the end-to-end suite records which ones leaked.
``category`` names a group of questions; results are also reported per group.

The data sets under `judged_rag_eval.datasets` make items of the same kind; `seeded_order`
and `take_turns` decide which a run with ``--limit`` takes.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from judged_rag.state import InputState
from judged_rag_eval.metrics import normalize_answer

Variant = Literal["open", "mc", "unanswerable"]

Kind = Literal["year", "date", "number", "person", "place", "other"]
VARIANTS: tuple[Variant, ...] = get_args(Variant)

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"

_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")

_DATE = re.compile(
    rf"\b({_MONTHS})\b.*\d|\d.*\b({_MONTHS})\b|^\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}$"
)

_NUMBER = re.compile(r"^(about|approximately|around|over|under|~|\$|€|£|\+|-)?\s*\d")

_PLACE_QUESTION = re.compile(
    r"^(where|in what|in which)\b|\b(which|what) (country|state|city|continent|province|region)\b"
    r"|\bcapital\b"
)


class DataError(ValueError):
    """A data set could not be read; the message names the file and line."""


@dataclass(frozen=True)
class EvalItem:
    """One evaluation question.

    Attributes:
        id: Unique within its suite (multiple-choice ids end in ``:mc``).
        question: The question text.
        answers: Gold answers (any one counts).
        options: Answer options (closed-ended), or None.
        correct_option: The right option when `options` is given.
        evidence: Titles of the pages that hold the answer.
        variant: "open", "mc" (multiple choice) or "unanswerable" (not in the corpus).
        kind: Answer kind (`answer_kind`).
        in_domain: Gate label: is the evidence inside the knowledge base? None: unknown.
        topic: Corpus topic of the evidence page, when known.
        source: "fanoutqa" or the user's file name.
        must_not_contain: Strings the answer must not contain (leakage when it does).
        category: The group the user data puts the item in (results per group), or None.
        extra: Anything else the item's source records.
    """

    id: str
    question: str
    answers: tuple[str, ...] = ()
    options: tuple[str, ...] | None = None
    correct_option: str | None = None
    evidence: tuple[str, ...] = ()
    variant: Variant = "open"
    kind: Kind = "other"
    in_domain: bool | None = None
    topic: str | None = None
    source: str = "fanoutqa"
    must_not_contain: tuple[str, ...] = ()
    category: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def answerable(self) -> bool:
        """Whether the knowledge base holds the answer."""
        return self.variant != "unanswerable"

    @property
    def must_abstain(self) -> bool:
        """No answer is right: an item to abstain from (user data, no-evidence rows)."""
        return not self.answerable and not self.answers

    def inputs(self) -> InputState:
        """The graph input for this item."""
        state: InputState = {"question": self.question}
        if self.options:
            state["options"] = list(self.options)
        return state

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (for results and reports)."""
        data = asdict(self)
        data["extra"] = dict(self.extra)
        return data


def question_variant(item: EvalItem) -> str:
    """The variant of the question an item asks (a noise item's, not its context's)."""
    return str(item.extra.get("question_variant", item.variant))


def answer_kind(question: str, answer: str) -> Kind:
    """The answer's kind, by fixed rules tried in order.

    year: four digits from 1000 to 2099; date: a month name with a number, or d/m/y;
    number: starts with a digit (after "about", a currency sign or a sign); person: the
    question starts with "Who"; place: the question starts with "Where", "In what" or
    "In which", or asks which country/state/city/continent/province/region, or a
    capital; other: the rest.
    """
    text = answer.strip().lower()
    if _YEAR.match(text):
        return "year"
    if _DATE.search(text):
        return "date"
    if _NUMBER.match(text):
        return "number"
    q = question.strip().lower()
    if q.startswith("who"):
        return "person"
    if _PLACE_QUESTION.search(q):
        return "place"
    return "other"


T = TypeVar("T")


def take_turns(groups: Mapping[str, Sequence[T]]) -> list[T]:
    """The groups' items taking turns (first of each, second of each, ...), order kept."""
    out: list[T] = []
    for turn in range(max((len(g) for g in groups.values()), default=0)):
        out.extend(group[turn] for group in groups.values() if turn < len(group))
    return out


def seeded_order(items: Sequence[EvalItem], seed: int) -> list[EvalItem]:
    """The items in a seeded random order, so that `--limit N` takes a random sample.

    Items with categories (user data) take turns by category, each category in seeded
    order, so that a limited run has about as many questions of each.
    """
    ordered = sorted(items, key=lambda i: i.id)
    random.Random(f"{seed}:order").shuffle(ordered)
    if not any(i.category for i in ordered):
        return ordered
    groups: dict[str, list[EvalItem]] = {}
    for item in ordered:
        groups.setdefault(item.category or "", []).append(item)
    return take_turns({k: groups[k] for k in sorted(groups)})


# --------------------------------------------------------------------------- user data


def load_user_items(path: Path) -> list[EvalItem]:
    """Read a JSON-lines data set.

    Each non-blank line is an object with ``question`` (string) and ``answer`` (string)
    or ``answers`` (list of strings), or instead ``"abstain": true`` (no answer is right;
    no ``answer`` and no ``options`` then); optional: ``id`` (unique string; default
    ``line-N``), ``options`` (two or more strings, one of them an answer: closed-ended),
    ``evidence`` (title or list of titles, for the retrieval and judge suites),
    ``in_domain`` (boolean, for the gate suite), ``must_not_contain`` (string or list
    of strings no answer may contain) and ``category`` (a string naming the item's group:
    the end-to-end report adds a table per group).

    Raises:
        DataError: With the file and line of the first malformed line.
        FileNotFoundError: If the file does not exist.
    """
    items: list[EvalItem] = []
    ids: set[str] = set()
    for where, number, record in json_lines(path):
        item = _user_item(record, where, number, path.name)
        if item.id in ids:
            raise DataError(f"{where}: duplicate id {item.id!r}")
        ids.add(item.id)
        items.append(item)
    if not items:
        raise DataError(f"{path}: no questions found")
    return items


def json_lines(path: Path) -> Iterator[tuple[str, int, Any]]:
    """Each non-blank line of a JSON-lines file, parsed: (file:line, line number, value).

    Raises:
        DataError: A line is not valid JSON (the message names the file and line).
        FileNotFoundError: If the file does not exist.
    """
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: not valid JSON ({exc.msg})") from None
            yield where, number, value


def _strings(value: Any, name: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    valid = isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
    if not valid or not value:
        raise DataError(f"{where}: {name} must be a non-empty string or a list of them")
    return tuple(v.strip() for v in value)


def _user_item(record: Any, where: str, number: int, source: str) -> EvalItem:
    if not isinstance(record, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}")
    known = {
        "id",
        "question",
        "answer",
        "answers",
        "options",
        "evidence",
        "in_domain",
        "abstain",
        "must_not_contain",
        "category",
    }
    unknown = sorted(set(record) - known)
    if unknown:
        raise DataError(f"{where}: unknown field(s) {unknown}; expected some of {sorted(known)}")
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DataError(f"{where}: 'question' must be a non-empty string")
    abstain = record.get("abstain", False)
    if not isinstance(abstain, bool):
        raise DataError(f"{where}: 'abstain' must be true or false")
    answers: tuple[str, ...] = ()
    if abstain:
        given = [k for k in ("answer", "answers", "options") if record.get(k) is not None]
        if given:
            raise DataError(f"{where}: an item with 'abstain': true has no {given[0]!r}")
    elif ("answer" in record) == ("answers" in record):
        raise DataError(f"{where}: give exactly one of 'answer' or 'answers' (or 'abstain': true)")
    else:
        answers = _strings(record.get("answer", record.get("answers")), "the answer", where)
    forbidden: tuple[str, ...] = ()
    if record.get("must_not_contain") is not None:
        forbidden = _strings(record["must_not_contain"], "'must_not_contain'", where)
    options: tuple[str, ...] | None = None
    correct: str | None = None
    if record.get("options") is not None:
        options = _strings(record["options"], "'options'", where)
        if len(options) < 2:
            raise DataError(f"{where}: 'options' needs at least two choices")
        matches = [
            o for o in options if normalize_answer(o) in {normalize_answer(a) for a in answers}
        ]
        if len(matches) != 1:
            raise DataError(
                f"{where}: exactly one option must be the answer (found {len(matches)})"
            )
        correct = matches[0]
    evidence = _strings(record["evidence"], "'evidence'", where) if "evidence" in record else ()
    in_domain = record.get("in_domain")
    if in_domain is not None and not isinstance(in_domain, bool):
        raise DataError(f"{where}: 'in_domain' must be true or false")
    category = record.get("category")
    if category is not None and (not isinstance(category, str) or not category.strip()):
        raise DataError(f"{where}: 'category' must be a non-empty string")
    raw_id = record.get("id", f"line-{number}")
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool) or not str(raw_id).strip():
        raise DataError(f"{where}: 'id' must be a non-empty string")
    return EvalItem(
        id=str(raw_id).strip(),
        question=question.strip(),
        answers=answers,
        options=options,
        correct_option=correct,
        evidence=evidence,
        variant="unanswerable" if abstain else "mc" if options else "open",
        kind=answer_kind(question, answers[0] if answers else ""),
        in_domain=in_domain,
        source=source,
        must_not_contain=forbidden,
        category=category.strip() if category is not None else None,
    )


def require(items: Iterable[EvalItem], suite: str) -> list[EvalItem]:
    """The items `suite` measures, checked to carry what it needs.

    Items to abstain from (no answer, no evidence) are left out of the retrieval and judge
    suites, which measure finding and judging evidence: a data set that mixes them with
    answerable items serves every suite.

    Raises:
        DataError: Naming the first item that lacks what the suite needs.
    """
    needs_evidence = suite in ("retrieval", "judge")
    out = [
        item for item in items if not (needs_evidence and item.must_abstain and not item.evidence)
    ]
    for item in out:
        if needs_evidence and not item.evidence:
            raise DataError(f"the {suite} suite needs 'evidence' titles (item {item.id!r})")
        if suite == "gate" and item.in_domain is None:
            raise DataError(f"the gate suite needs 'in_domain' labels (item {item.id!r})")
        if suite == "injection" and not item.answers:
            raise DataError(f"the injection suite needs answers (item {item.id!r})")
        if suite == "e2e" and not item.answers and not item.must_abstain:
            raise DataError(f"the e2e suite needs answers (item {item.id!r})")
    return out
