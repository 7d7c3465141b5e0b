"""ChunkRAG's relevance arithmetic: a chunk's final score, a round's dynamic threshold."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from judged_rag.core.relevance import (
    dynamic_threshold,
    final_score,
    fixed_threshold,
    relevance_label,
)
from judged_rag.schemas import RelevanceScore


def test_final_score_averages_the_reflected_and_the_critic_score() -> None:
    assert final_score(0.2, 0.6, 0.9) == pytest.approx(0.75)
    # The first score counts only through the reflection that reconsiders it.
    assert final_score(1.0, 0.0, 0.0) == 0.0
    assert final_score(0.0, 1.0, 1.0) == 1.0


def test_spread_scores_are_cut_at_their_mean() -> None:
    # mean 0.5, variance (0.16 + 0.09 + 0.16 + 0.09) / 4 = 0.125: spread.
    spread = dynamic_threshold([0.9, 0.8, 0.1, 0.2], floor=0.0)
    assert (spread.value, spread.rule, spread.count) == (0.5, "mean", 4)
    assert (spread.mean, spread.std, spread.floor) == (0.5, pytest.approx(0.3536, abs=1e-4), 0.0)
    # The same distribution under the default floor: the floor decides.
    floored = dynamic_threshold([0.9, 0.8, 0.1, 0.2], floor=0.75)
    assert (floored.value, floored.rule, floored.mean) == (0.75, "floor", 0.5)


def test_clustered_scores_are_cut_at_mean_plus_std() -> None:
    # mean 0.85, variance 0.005 / 3 < 0.01: clustered; sigma = 0.0408.
    clustered = dynamic_threshold([0.95, 0.85, 0.75], floor=0.0)
    assert clustered.rule == "mean+std"
    assert clustered.value == pytest.approx(0.85 + 0.0816, abs=1e-4)
    labels = [relevance_label(s, clustered.value) for s in (0.95, 0.85, 0.75)]
    assert labels == ["highly_relevant", "somewhat_relevant", "somewhat_relevant"]


def test_the_threshold_never_passes_the_best_score() -> None:
    # mean 0.8875 + sigma 0.0217 = 0.9092 is above every score: the best one sets it.
    capped = dynamic_threshold([0.9, 0.9, 0.9, 0.85], floor=0.0)
    assert (capped.value, capped.rule) == (0.9, "best")
    assert relevance_label(0.9, capped.value) == "highly_relevant"


@pytest.mark.parametrize(
    ("values", "value", "rule", "mean", "std"),
    [
        ([0.95], 0.95, "mean+std", 0.95, 0.0),  # one chunk: its own score
        ([0.3], 0.75, "floor", 0.3, 0.0),  # one poor chunk: the floor
        ([0.8, 0.8, 0.8], 0.8, "mean+std", 0.8, 0.0),  # all equal: every one passes
        ([0.5, 0.5], 0.75, "floor", 0.5, 0.0),  # all equal and on topic only: none
        ([], 0.75, "floor", None, None),  # nothing scored
    ],
)
def test_threshold_edge_cases(
    values: list[float], value: float, rule: str, mean: float | None, std: float | None
) -> None:
    threshold = dynamic_threshold(values, floor=0.75)
    assert (threshold.value, threshold.rule, threshold.count) == (value, rule, len(values))
    assert (threshold.mean, threshold.std) == (mean, std)


def test_a_fixed_threshold_records_the_distribution_it_replaced() -> None:
    fixed = fixed_threshold([0.2, 0.4], 0.3)
    assert (fixed.value, fixed.rule, fixed.floor) == (0.3, "fixed", None)
    assert (fixed.mean, fixed.std) == (pytest.approx(0.3), pytest.approx(0.1))


def test_labels_below_the_threshold() -> None:
    assert relevance_label(0.75, 0.75) == "highly_relevant"  # a tie reaches it
    assert relevance_label(0.74, 0.75) == "somewhat_relevant"
    assert relevance_label(0.25, 0.75) == "somewhat_relevant"
    assert relevance_label(0.2, 0.75) == "not_relevant"


# ------------------------------------------------------------------ reading a score


@pytest.mark.parametrize(
    ("sent", "expected"),
    [({"score": 0.7}, 0.7), ({"score": "80%"}, 0.8), ({"score": "8/10"}, 0.8), ({"score": "1"}, 1)],
)
def test_score_replies_are_read_as_fractions(sent: dict[str, Any], expected: float) -> None:
    assert RelevanceScore.model_validate(sent).score == pytest.approx(expected)


@pytest.mark.parametrize(
    "sent", [{"score": 7}, {"score": -0.1}, {"score": "-0.1"}, {"score": "high"}, {}]
)
def test_scores_outside_zero_to_one_are_refused(sent: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        RelevanceScore.model_validate(sent)


def test_a_score_in_prose_is_salvaged_but_not_rescaled() -> None:
    found = RelevanceScore.from_text("Score: 0.65, since it names the date.")
    assert found is not None and found.score == pytest.approx(0.65)
    assert RelevanceScore.from_text("8 out of 10") is None
    assert RelevanceScore.from_text("It is quite relevant, I think.") is None
