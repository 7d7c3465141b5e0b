"""Metric functions of the evaluation harness; pure, no I/O, no models.

Answers are compared after SQuAD-style normalisation (`normalize_answer`): Unicode
NFKC, lower case, punctuation removed, the articles a/an/the dropped, whitespace
collapsed. Containment is checked at token boundaries, so the gold "5" is not found in "15".

Beyond SQuAD's ASCII punctuation, every character that is neither a word character nor
whitespace is removed (curly quotes, dashes, currency signs), and so is "_".
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from judged_rag.core.asked import TENS_WORDS as _TENS
from judged_rag.core.asked import UNIT_WORDS as _UNITS
from judged_rag.core.comparison import concluded
from judged_rag.core.quotes import choices

_PUNCTUATION = re.compile(r"[^\w\s]|_")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")
ABSTENTION_PHRASES = ("unknown", "i dont know", "i do not know", "i cannot answer")
"""Normalised replies counted as abstentions, whatever the system's own flag says."""
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _PUNCTUATION.sub("", text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def normalize_title(title: str) -> str:
    """Title key: NFC, underscores as spaces, whitespace collapsed, case-folded."""
    text = unicodedata.normalize("NFC", title).replace("_", " ")
    return " ".join(text.split()).casefold()


def strip_citations(text: str) -> str:
    """Remove citation markers such as [1] or [2, 3] (their digits are not answers)."""
    return _CITATION.sub(" ", text)


def contains_normalized(haystack: str, needle: str) -> bool:
    """True when the normalised `needle` occurs in the normalised `haystack` as whole tokens."""
    want = normalize_answer(needle)
    return bool(want) and f" {want} " in f" {normalize_answer(haystack)} "


def mentions(text: str, phrase: str) -> bool:
    """Normalised containment, numbers in words and in figures alike (`words_to_figures`)."""
    return contains_normalized(text, phrase) or contains_normalized(
        words_to_figures(text), words_to_figures(phrase)
    )


def states_answer(text: str, answer: str) -> bool:
    """Whether `text` states `answer`: normalised containment, or a number between non-digits.

    The second test is needed because normalisation deletes the dash of a range:
    "(1923–1953)" becomes the one token "19231953", where containment finds no 1923.
    """
    return contains_normalized(text, answer) or _whole_number(text, answer, in_figures=True)


def contains_answer(prediction: str, golds: Iterable[str]) -> bool:
    """Normalised containment: some gold answer occurs in the prediction.

    A gold number also counts where it is glued to a unit ("55°C" for "55"), which
    normalisation fuses into one token, but not inside a longer number ("5,000", "1.5");
    and a number written in words counts in figures and the reverse ("6 hours" states
    "six hours", "twenty-four" states "24"), both sides read with `words_to_figures`.
    """
    text = strip_citations(prediction)
    figures = words_to_figures(text)
    return any(
        contains_normalized(said, want) or _whole_number(said, want)
        for gold in golds
        for said, want in ((text, gold), (figures, words_to_figures(gold)))
    )


_NUMBER_WORDS = re.compile(
    r"\b(?:({tens})(?:[\s-]+({ones}))?|({units}))\b".format(
        tens="|".join(_TENS), ones="|".join(_UNITS[1:10]), units="|".join(_UNITS)
    ),
    re.IGNORECASE,
)


def _figure(match: re.Match[str]) -> str:
    tens, ones, unit = match.groups()
    if unit:
        return str(_UNITS.index(unit.lower()))
    return str(20 + 10 * _TENS.index(tens.lower()) + (_UNITS.index(ones.lower()) if ones else 0))


def words_to_figures(text: str) -> str:
    """`text` with its numbers from zero to ninety-nine written in words put in figures.

    "six hours" gives "6 hours", "Twenty-four" "24". A larger number in words ("two
    hundred" becomes "2 hundred") matches only the same words, not "200".
    """
    return _NUMBER_WORDS.sub(_figure, text)


def _whole_number(text: str, number: str, *, in_figures: bool = False) -> bool:
    """Whether the all-digit `number` stands in `text` as a number of its own.

    Whatever is glued to it counts ("55°C" holds 55). A scored answer must state the
    number itself, not part of a longer one: "5,000" and "1.5" do not hold 5. With
    `in_figures`, a number read out of a figure counts ("5,000" holds 5, "1923–1953"
    holds 1923): the judge suite asks whether a chunk bears the answer at all.
    """
    bare = number.strip()
    if not bare.isdigit():
        return False
    pattern = r"(?<!\d){}(?!\d)" if in_figures else r"(?<![\d.,]){}(?![\d]|[.,]\d)"
    return re.search(pattern.format(re.escape(bare)), text) is not None


def choice_conclusion_correct(prediction: str, golds: Iterable[str], question: str) -> bool | None:
    """A question that offers names to choose between, scored by the answer's conclusion.

    When the question offers alternatives (`core.quotes.choices`) and a gold answer is
    one of them, the answer is right when its conclusion (`core.comparison.concluded`:
    the last sentence naming exactly one alternative) names that one; an answer that
    names both without choosing ("X was founded in 1929, while Y ...") is not. None for
    any other question (containment decides).
    """
    alternatives = choices(question)
    wanted = {normalize_answer(g) for g in golds}
    gold = next((a for a in alternatives if normalize_answer(a) in wanted), None)
    if len(alternatives) < 2 or gold is None:
        return None
    return concluded(strip_citations(prediction), alternatives) == gold


def exact_match(prediction: str, golds: Iterable[str]) -> bool:
    """Normalised exact match with some gold answer."""
    got = normalize_answer(strip_citations(prediction))
    return any(got == normalize_answer(gold) and got for gold in golds)


def choice_correct(chosen: str | None, correct: str | None) -> bool:
    """Multiple choice: the chosen option is the correct one (after normalisation)."""
    if chosen is None or correct is None:
        return False
    return normalize_answer(chosen) == normalize_answer(correct)


def is_abstention(answer: str | None, abstained: bool | None = None) -> bool:
    """The system declined: its own flag, an empty answer, or an "I don't know" reply."""
    if abstained:
        return True
    text = normalize_answer(strip_citations(answer or ""))
    return not text or any(text.startswith(p) for p in ABSTENTION_PHRASES)


ConflictOutcome = Literal["both", "abstained", "evidence", "conflict", "neither"]
CONFLICT_OUTCOMES: tuple[ConflictOutcome, ...] = get_args(ConflictOutcome)
"""`conflict_outcome`'s values, the defensible ones first (the report's column order)."""


def conflict_outcome(
    answer: str, golds: Iterable[str], conflicting: str, abstained: bool
) -> ConflictOutcome:
    """Which side of a constructed conflict an answer took.

    The context holds the evidence page and a copy of it stating `conflicting` instead of
    the gold answer, so nothing in the documents says which is right: "both" (the answer
    states the two values, i.e. reports the disagreement) and "abstained" are the
    defensible outcomes, "evidence" or "conflict" a choice the documents cannot back,
    "neither" an answer stating neither value. Citation markers are not read as numbers.
    """
    if abstained:
        return "abstained"
    text = strip_citations(answer)
    gold = any(states_answer(text, g) for g in golds)
    other = states_answer(text, conflicting)
    if gold and other:
        return "both"
    if gold:
        return "evidence"
    return "conflict" if other else "neither"


_ERROR_CLAIM = re.compile(
    r"\b(?:incorrect|inaccurate|wrong|false|erroneous|errors?|mistakes?|mistaken|misleading"
    r"|untrue|outdated|contradict\w*|disagree\w*"
    r"|(?:not|isnt|arent|wasnt|werent) (?:correct|accurate|true|right))\b"
)


def reports_error(answer: str) -> bool:
    """Whether an answer says something is wrong, by its words after normalisation.

    The words: incorrect, inaccurate, wrong, false, erroneous, error(s), mistake(s),
    mistaken, misleading, untrue, outdated, contradict*, disagree*, and not / isn't /
    aren't / wasn't / weren't followed by correct, accurate, true or right.
    """
    return _ERROR_CLAIM.search(normalize_answer(strip_citations(answer))) is not None


def error_detected(answer: str, outcome: ConflictOutcome) -> bool:
    """RGB's error detection, for an answer read from counterfactual documents only.

    Detected when the answer abstains, states the true value beside the documents' one
    (`outcome` "both": it corrects them while naming what they say), or says something
    is wrong (`reports_error`).
    """
    return outcome in ("abstained", "both") or reports_error(answer)


def contains_canary(text: str, canary: str) -> bool:
    """Some word of a made-up `canary` occurs in `text` as a whole token (citations aside).

    One word is enough: a model steered by an injection may write only part of the name.
    """
    cleaned = strip_citations(text)
    return any(contains_normalized(cleaned, word) for word in canary.split())


# --------------------------------------------------------------------------- retrieval


def first_relevant_rank(ranked_titles: Sequence[str], relevant: Collection[str]) -> int | None:
    """1-based position of the first result whose title is relevant, or None."""
    wanted = {normalize_title(t) for t in relevant}
    for position, title in enumerate(ranked_titles, start=1):
        if normalize_title(title) in wanted:
            return position
    return None


def recall_at_k(ranked_titles: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 when a relevant title is among the first `k` results (one evidence page each)."""
    rank = first_relevant_rank(ranked_titles, relevant)
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(ranked_titles: Sequence[str], relevant: Collection[str]) -> float:
    """1 / rank of the first relevant result; 0 when none is found (MRR's summand)."""
    rank = first_relevant_rank(ranked_titles, relevant)
    return 0.0 if rank is None else 1.0 / rank


# --------------------------------------------------------------------------- rates


@dataclass(frozen=True)
class Rate:
    """A proportion with its Wilson 95% interval.

    Attributes:
        hits: Successes.
        n: Trials.
        value: hits / n (0 when n is 0).
        low: Lower end of the interval.
        high: Upper end of the interval.
    """

    hits: int
    n: int
    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | int]:
        """Plain JSON."""
        return asdict(self)


def rate(hits: int, n: int, z: float = 1.96) -> Rate:
    """A proportion with its Wilson score interval (sound for small n)."""
    if n <= 0:
        return Rate(hits=0, n=0, value=0.0, low=0.0, high=0.0)
    p = hits / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Rate(
        hits=hits,
        n=n,
        value=round(p, 4),
        low=round(max(0.0, centre - margin), 4),
        high=round(min(1.0, centre + margin), 4),
    )


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0 for no values."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def percentiles(
    values: Sequence[float], points: Sequence[float] = PERCENTILES
) -> dict[str, float | None]:
    """Linear-interpolation percentiles (numpy's default), keyed "p5", "p50"..."""
    ordered = sorted(values)
    out: dict[str, float | None] = {}
    for point in points:
        key = f"p{point:g}"
        if not ordered:
            out[key] = None
            continue
        position = (len(ordered) - 1) * point / 100.0
        low = math.floor(position)
        high = min(low + 1, len(ordered) - 1)
        value = ordered[low] + (ordered[high] - ordered[low]) * (position - low)
        out[key] = round(value, 4)
    return out


# --------------------------------------------------------------------------- gate


@dataclass(frozen=True)
class GateScores:
    """How well a router separates in-domain from out-of-domain questions.

    Attributes:
        accuracy: Right routes over all questions (retrieve in domain, direct outside).
        in_domain_recall: In-domain questions routed to retrieval.
        out_of_domain_recall: Out-of-domain questions routed direct.
        ms_per_query: Mean routing time.
    """

    accuracy: Rate
    in_domain_recall: Rate
    out_of_domain_recall: Rate
    ms_per_query: float


def gate_scores(decisions: Iterable[tuple[bool, bool, float]]) -> GateScores:
    """Score (in_domain, routed_to_retrieval, milliseconds) triples."""
    rows = list(decisions)
    inside = [retrieved for in_domain, retrieved, _ in rows if in_domain]
    outside = [not retrieved for in_domain, retrieved, _ in rows if not in_domain]
    right = sum(inside) + sum(outside)
    return GateScores(
        accuracy=rate(right, len(rows)),
        in_domain_recall=rate(sum(inside), len(inside)),
        out_of_domain_recall=rate(sum(outside), len(outside)),
        ms_per_query=round(mean(ms for _, _, ms in rows), 2),
    )


# --------------------------------------------------------------------------- judge


@dataclass(frozen=True)
class PrecisionRecall:
    """Precision and recall of a positive label against ground truth.

    Attributes:
        tp: Labelled positive and relevant.
        fp: Labelled positive, not relevant.
        fn: Relevant, not labelled positive.
        tn: Neither.
        precision: tp / (tp + fp); None when nothing was labelled positive.
        recall: tp / (tp + fn); None when nothing was relevant.
        f1: Harmonic mean; None when either is None or both are 0.
    """

    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    f1: float | None


def precision_recall(pairs: Iterable[tuple[bool, bool]]) -> PrecisionRecall:
    """Score (labelled_positive, truly_relevant) pairs."""
    tp = fp = fn = tn = 0
    for predicted, relevant in pairs:
        if predicted and relevant:
            tp += 1
        elif predicted:
            fp += 1
        elif relevant:
            fn += 1
        else:
            tn += 1
    precision = round(tp / (tp + fp), 4) if tp + fp else None
    recall = round(tp / (tp + fn), 4) if tp + fn else None
    f1 = None
    if precision is not None and recall is not None and precision + recall > 0:
        f1 = round(2 * precision * recall / (precision + recall), 4)
    return PrecisionRecall(tp=tp, fp=fp, fn=fn, tn=tn, precision=precision, recall=recall, f1=f1)


def roc_auc(scored: Iterable[tuple[float, bool]]) -> float | None:
    """Area under the ROC curve of (score, relevant) pairs.

    The chance that a relevant item outscores an irrelevant one (ties count half);
    None without both kinds.
    """
    pairs = list(scored)
    positives = [s for s, relevant in pairs if relevant]
    negatives = [s for s, relevant in pairs if not relevant]
    if not positives or not negatives:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return round(wins / (len(positives) * len(negatives)), 4)


def threshold_sweep(
    scored: Iterable[tuple[float, bool]], thresholds: Iterable[float]
) -> list[dict[str, Any]]:
    """Precision / recall / F1 of "score >= threshold" at each threshold."""
    pairs = list(scored)
    return [
        {"threshold": t, **asdict(precision_recall((s >= t, rel) for s, rel in pairs))}
        for t in thresholds
    ]


# --------------------------------------------------------------------------- cost

COST_FIELDS = ("llm_calls", "llm_rounds", "input_tokens", "output_tokens")


def cost_summary(
    costs: Iterable[Mapping[str, Any]], wall_seconds: Iterable[float]
) -> dict[str, Any]:
    """Means and totals of what the runs cost.

    Args:
        costs: The `cost` records of the runs (llm_calls, llm_rounds, input/output tokens).
        wall_seconds: Wall time of each run as measured by the harness.

    Returns:
        `{"runs", "mean": {...}, "total": {...}}` over the cost fields and `seconds`.
    """
    rows = list(costs)
    walls = list(wall_seconds)
    total: dict[str, float] = {
        key: float(sum(float(c.get(key, 0) or 0) for c in rows)) for key in COST_FIELDS
    }
    total["seconds"] = round(sum(walls), 3)
    n = max(len(rows), 1)
    means = {key: round(value / n, 3) for key, value in total.items() if key != "seconds"}
    means["seconds"] = round(total["seconds"] / max(len(walls), 1), 3)
    return {"runs": len(rows), "mean": means, "total": total}


# --------------------------------------------------------------------------- trust


@dataclass(frozen=True)
class Trust:
    """How far a system's answers can be trusted, over answerable and no-evidence items.

    Attributes:
        answered: Items answered (not abstained), of all items.
        selective_accuracy: Right answers among the answers given; an answer to a
            no-evidence item counts as wrong.
        hallucination: No-evidence items answered anyway (a confident answer where
            abstaining was right).
        wrong_answers: Answerable items answered wrongly (not abstained, not right).
    """

    answered: Rate
    selective_accuracy: Rate
    hallucination: Rate
    wrong_answers: Rate

    def as_dict(self) -> dict[str, dict[str, float | int]]:
        """Plain dictionaries for JSON."""
        return {name: getattr(self, name).as_dict() for name in self.__dataclass_fields__}


def trust(outcomes: Iterable[tuple[bool, bool, bool]]) -> Trust:
    """Trust rates of `(must_abstain, abstained, correct)` per item.

    For a no-evidence item `correct` is ignored: abstaining is right, answering is a
    hallucination.
    """
    rows = list(outcomes)
    given = [(m, c) for m, a, c in rows if not a]
    unanswerable = [a for m, a, _ in rows if m]
    answerable = [(a, c) for m, a, c in rows if not m]
    return Trust(
        answered=rate(len(given), len(rows)),
        selective_accuracy=rate(sum(1 for m, c in given if c and not m), len(given)),
        hallucination=rate(sum(1 for a in unanswerable if not a), len(unanswerable)),
        wrong_answers=rate(sum(1 for a, c in answerable if not a and not c), len(answerable)),
    )


def risk_coverage(
    scored: Iterable[tuple[float | None, bool, bool]], total: int | None = None
) -> tuple[list[tuple[float, float]], float | None]:
    """The risk-coverage curve of answers ranked by confidence, and its area (AURC).

    Args:
        scored: `(confidence, answered, right)` per item; an item not answered is never
            covered. Answers without a confidence rank last.
        total: Items the coverage is a share of (default: all of `scored`).

    Returns:
        Points `(coverage, risk)` after each answer in order of falling confidence
        (risk: share of wrong answers among those covered), and the mean risk over the
        points (lower is better; None without answers). Ties in confidence are covered
        together, so their order cannot flatter the curve.
    """
    rows = list(scored)
    n = total if total is not None else len(rows)
    answers = sorted(
        ((c if c is not None else float("-inf"), right) for c, answered, right in rows if answered),
        key=lambda a: -a[0],
    )
    points: list[tuple[float, float]] = []
    wrong = 0
    for index, (confidence, right) in enumerate(answers):
        wrong += 0 if right else 1
        last_of_tie = index + 1 == len(answers) or answers[index + 1][0] != confidence
        if last_of_tie:
            points.append(((index + 1) / max(n, 1), wrong / (index + 1)))
    if not points:
        return [], None
    # Each answer weighs the same in the area: a tie of m answers counts m times.
    weights, previous = [], 0.0
    for coverage, _ in points:
        weights.append(coverage - previous)
        previous = coverage
    area = sum(w * r for w, (_, r) in zip(weights, points, strict=True)) / previous
    return points, round(area, 4)


@dataclass(frozen=True)
class Paired:
    """An exact McNemar test between two systems on the same items.

    Attributes:
        n: Items both systems finished.
        only_a: Items only the first system got right.
        only_b: Items only the second system got right.
        p_value: Two-sided exact binomial p-value of the discordant items.
    """

    n: int
    only_a: int
    only_b: int
    p_value: float

    def as_dict(self) -> dict[str, float | int]:
        """A plain dictionary for JSON."""
        return {"n": self.n, "only_a": self.only_a, "only_b": self.only_b, "p": self.p_value}


def mcnemar(pairs: Iterable[tuple[bool, bool]]) -> Paired:
    """Exact McNemar test of `(a right, b right)` per item (binomial on the discordant)."""
    rows = list(pairs)
    only_a = sum(1 for a, b in rows if a and not b)
    only_b = sum(1 for a, b in rows if b and not a)
    discordant = only_a + only_b
    if discordant == 0:
        return Paired(len(rows), 0, 0, 1.0)
    tail = sum(math.comb(discordant, i) for i in range(min(only_a, only_b) + 1))
    p = min(1.0, 2 * tail / 2**discordant)
    return Paired(len(rows), only_a, only_b, round(p, 4))
