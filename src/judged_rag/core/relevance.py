"""ChunkRAG's relevance scores: one chunk's final score, and a round's dynamic threshold.

The paper scores each chunk with an LLM, refines the score by self-reflection and a
critic, and keeps the chunks above a threshold "set by analyzing the score
distribution". It gives no formula or weight for either step; the readings here are:

- final score = 1/2 reflected + 1/2 critic (`SCORE_WEIGHTS`). The self-reflection refines
  the initial score, so the reflected score stands for the LLM's evaluation; the critic's
  evaluation counts as much ("integrating both LLM and critic LLM evaluations"). The
  initial score reaches the final one through the reflection, which reconsiders it.
- threshold T over one round's final scores S (population mean mu and standard deviation
  sigma): mu when the scores spread, mu + sigma when they cluster tightly (variance below
  `CLUSTER_VARIANCE`), so that a tight cluster keeps only its best; never above the best
  score (the most relevant chunk stays) and never below a floor (a round of chunks that
  all fail the question must not pass its better half).

Pure arithmetic on numbers: no model, no state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import fmean, pvariance
from typing import Literal

from judged_rag.state import Label

CALLS: tuple[str, ...] = ("score", "reconsider", "critic")
"""ChunkRAG's LLM calls per chunk, in order: the first score, the self-reflection, the critic."""

SCORE_WEIGHTS: tuple[float, float, float] = (0.0, 0.5, 0.5)
"""Weights of the initial, reflected and critic scores in a chunk's final score."""

CLUSTER_VARIANCE = 0.01
"""Below this variance (sigma under 0.1) a round's scores cluster tightly: T = mu + sigma."""

NOT_RELEVANT_BELOW = 0.25
"""Under the threshold, a final score below this is Not Relevant, otherwise Somewhat: the
midpoint between the scoring prompt's anchors for another topic (0) and for the same
topic without the information asked (0.5)."""

Rule = Literal["mean", "mean+std", "best", "floor", "fixed"]
"""What set a round's threshold: mu, mu + sigma, the best score (mu + sigma above it), the
floor (the distribution's value below it, or no score at all), or the operator's value."""


@dataclass(frozen=True)
class RoundThreshold:
    """The threshold one round's chunks were labelled by, and the distribution behind it.

    Attributes:
        value: Final scores at or above it are Highly Relevant.
        rule: What set it (`Rule`).
        count: Scores in the round.
        mean: Their mean (None without scores).
        std: Their population standard deviation (None without scores).
        floor: The lowest value the distribution could set (None for a fixed threshold).
    """

    value: float
    rule: Rule
    count: int
    mean: float | None
    std: float | None
    floor: float | None


def final_score(initial: float, reflected: float, critic: float) -> float:
    """A chunk's final score: its three scores weighted by `SCORE_WEIGHTS`, in [0, 1]."""
    w_initial, w_reflected, w_critic = SCORE_WEIGHTS
    return round(w_initial * initial + w_reflected * reflected + w_critic * critic, 4)


def _summary(scores: list[float]) -> tuple[int, float | None, float | None]:
    if not scores:
        return 0, None, None
    mean = fmean(scores)
    return len(scores), round(mean, 4), round(math.sqrt(pvariance(scores, mean)), 4)


def dynamic_threshold(
    scores: list[float], *, floor: float, cluster: float = CLUSTER_VARIANCE
) -> RoundThreshold:
    """The round's threshold from its final scores (see the module docstring).

    Args:
        scores: The final scores of the round's scored chunks.
        floor: The lowest the threshold may go.
        cluster: The variance below which the scores count as tightly clustered.
    """
    count, mean, std = _summary(scores)
    if mean is None or std is None:
        return RoundThreshold(floor, "floor", 0, None, None, floor)
    rule: Rule = "mean+std" if pvariance(scores) < cluster else "mean"
    value = round(mean + std, 4) if rule == "mean+std" else mean
    if value > max(scores):
        value, rule = max(scores), "best"
    if value < floor:
        value, rule = floor, "floor"
    return RoundThreshold(value, rule, count, mean, std, floor)


def fixed_threshold(scores: list[float], value: float) -> RoundThreshold:
    """The operator's threshold (`judge_threshold`), with the round's distribution recorded."""
    count, mean, std = _summary(scores)
    return RoundThreshold(value, "fixed", count, mean, std, None)


def relevance_label(score: float, threshold: float) -> Label:
    """RJAG's label of a final score: Highly Relevant at or above the threshold.

    Below it, Somewhat Relevant from `NOT_RELEVANT_BELOW`, Not Relevant under that.
    """
    if score >= threshold:
        return "highly_relevant"
    return "somewhat_relevant" if score >= NOT_RELEVANT_BELOW else "not_relevant"
