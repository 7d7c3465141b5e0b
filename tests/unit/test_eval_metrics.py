"""The evaluation metrics on hand-made cases."""

from __future__ import annotations

import pytest

from judged_rag_eval.metrics import (
    choice_correct,
    conflict_outcome,
    contains_answer,
    cost_summary,
    exact_match,
    first_relevant_rank,
    gate_scores,
    is_abstention,
    mentions,
    normalize_answer,
    normalize_title,
    percentiles,
    precision_recall,
    rate,
    recall_at_k,
    reciprocal_rank,
    roc_auc,
    threshold_sweep,
    words_to_figures,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  A  cat, an owl  ", "cat owl"),
        ("8,848.86 m", "884886 m"),
        ("Assassin’s Creed – Valhalla", "assassins creed valhalla"),
        ("theatre", "theatre"),  # "the" only as a word
        ("ﬁve", "five"),  # NFKC
    ],
)
def test_normalize_answer_is_squad_style(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_containment_is_normalised_and_token_bounded() -> None:
    assert contains_answer("It landed in July 1969 [1].", ["1969"])
    assert contains_answer("The population is 442,241.", ["442241"])
    assert not contains_answer("He won 15 titles.", ["5"])
    assert contains_answer("The maximum is 55°C [1].", ["55"])  # glued to its unit
    assert not contains_answer("It costs 5,000 euros.", ["5"])  # inside a longer number
    assert not contains_answer("Version 1.5 is current.", ["5"])
    assert not contains_answer("Version 5.1 is current.", ["5"])
    assert contains_answer("Firmware 5.", ["5"])
    assert not contains_answer("A Democratic senator.", ["Democrat"])
    assert not contains_answer("anything", [""])
    # Citation markers are not answers.
    assert not contains_answer("See [1].", ["1"])
    assert contains_answer("Beijing", ["Shanghai", "beijing"])


def test_numbers_in_words_and_in_figures_are_one_answer() -> None:
    assert contains_answer("[1] Flights of up to 6 hours.", ["six hours"])
    assert contains_answer("Within ten working days [2].", ["10 working days"])
    assert contains_answer("It lasts 24 months.", ["twenty-four months"])
    assert contains_answer("Twenty four people came.", ["24"])
    assert not contains_answer("It lasts 18 weeks.", ["eight weeks"])
    assert not contains_answer("Six or seven hours.", ["seven days"])
    assert not contains_answer("Someone often called.", ["1"])
    assert words_to_figures("two hundred") == "2 hundred"  # only up to ninety-nine
    assert not contains_answer("It costs 200 euros.", ["two hundred euros"])
    assert mentions("Up to 10 hours [1].", "ten hours")
    assert not mentions("Up to 10 hours.", "one hour")


def test_exact_match() -> None:
    assert exact_match("The Beatles.", ["beatles"])
    assert exact_match("Paris [2]", ["paris"])
    assert not exact_match("Paris, France", ["Paris"])
    assert not exact_match("", [""])


def test_choice_and_abstention() -> None:
    assert choice_correct("New York", "new york")
    assert not choice_correct(None, "x") and not choice_correct("x", None)
    assert is_abstention("Unknown") and is_abstention("I don't know.")
    assert is_abstention("Paris", abstained=True) and is_abstention("")
    assert not is_abstention("Paris [1]")


@pytest.mark.parametrize(
    ("answer", "abstained", "expected"),
    [
        ("He died in 1829 [1].", False, "evidence"),
        ("He died in 1831 [2].", False, "conflict"),
        ("The pages disagree: 1829 [1] or 1831 [2].", False, "both"),
        ("He lived from 1802 to 1829–1831.", False, "both"),  # a range states both ends
        ("He died at the age of 26 [1].", False, "neither"),
        ("Died in 18290.", False, "neither"),  # digits inside a longer number do not count
        ("He died in [1829].", False, "neither"),  # a citation marker is not a year
        ("Unknown", True, "abstained"),
        ("He died in 1829.", True, "abstained"),  # the system's own flag decides
    ],
)
def test_conflict_outcome(answer: str, abstained: bool, expected: str) -> None:
    assert conflict_outcome(answer, ["1829"], "1831", abstained) == expected


def test_retrieval_ranks() -> None:
    ranked = ["Moon", "apollo_11", "Apollo 11", "Saturn V"]
    assert normalize_title("Apollo_11") == normalize_title("apollo 11")
    assert first_relevant_rank(ranked, ["Apollo 11"]) == 2
    assert recall_at_k(ranked, ["Apollo 11"], 1) == 0.0
    assert recall_at_k(ranked, ["Apollo 11"], 2) == 1.0
    assert reciprocal_rank(ranked, ["Apollo 11"]) == 0.5
    assert reciprocal_rank(ranked, ["Mars"]) == 0.0
    assert first_relevant_rank([], ["x"]) is None


def test_rate_has_a_wilson_interval() -> None:
    r = rate(8, 10)
    assert r.value == 0.8 and r.low == pytest.approx(0.4902, abs=1e-4)
    assert r.high == pytest.approx(0.9433, abs=1e-4)
    assert rate(0, 0).value == 0.0 and rate(0, 0).n == 0
    assert rate(0, 5).low == 0.0 and rate(5, 5).high == 1.0


def test_percentiles_match_numpy_linear() -> None:
    values = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert percentiles(values, (0, 50, 100, 25)) == {
        "p0": 0.1,
        "p50": 0.3,
        "p100": 0.5,
        "p25": 0.2,
    }
    assert percentiles([], (5,)) == {"p5": None}
    assert percentiles([0.0, 1.0], (5,)) == {"p5": 0.05}


def test_gate_scores() -> None:
    # (in_domain, routed to retrieval, ms)
    scores = gate_scores(
        [(True, True, 1.0), (True, False, 3.0), (False, False, 2.0), (False, True, 2.0)]
    )
    assert scores.accuracy.value == 0.5
    assert scores.in_domain_recall.value == 0.5 and scores.in_domain_recall.n == 2
    assert scores.out_of_domain_recall.value == 0.5
    assert scores.ms_per_query == 2.0
    always = gate_scores([(True, True, 0.0), (False, True, 0.0), (False, True, 0.0)])
    assert always.in_domain_recall.value == 1.0 and always.out_of_domain_recall.value == 0.0


def test_precision_recall() -> None:
    # (labelled Highly Relevant, is evidence)
    pr = precision_recall([(True, True), (True, False), (False, True), (False, False)])
    assert (pr.tp, pr.fp, pr.fn, pr.tn) == (1, 1, 1, 1)
    assert pr.precision == 0.5 and pr.recall == 0.5 and pr.f1 == 0.5
    none = precision_recall([(False, False)])
    assert none.precision is None and none.recall is None and none.f1 is None


def test_cost_summary() -> None:
    costs = [
        {"llm_calls": 3, "llm_rounds": 2, "input_tokens": 100, "output_tokens": 10},
        {"llm_calls": 1, "llm_rounds": 1, "input_tokens": 50, "output_tokens": 5},
    ]
    summary = cost_summary(costs, [2.0, 4.0])
    assert summary["runs"] == 2
    assert summary["total"]["llm_calls"] == 4 and summary["mean"]["llm_calls"] == 2.0
    assert summary["mean"]["llm_rounds"] == 1.5 and summary["mean"]["input_tokens"] == 75.0
    assert summary["mean"]["seconds"] == 3.0 and summary["total"]["seconds"] == 6.0
    assert cost_summary([], [])["mean"]["llm_calls"] == 0.0


def test_roc_auc_counts_ordered_pairs_and_ties() -> None:
    # Positives 0.9, 0.5; negatives 0.5, 0.1: pairs (0.9>0.5, 0.9>0.1, 0.5=0.5, 0.5>0.1).
    scored = [(0.9, True), (0.5, True), (0.5, False), (0.1, False)]
    assert roc_auc(scored) == pytest.approx(3.5 / 4)
    assert roc_auc([(0.2, True), (0.8, False)]) == 0.0
    assert roc_auc([(0.2, True), (0.3, True)]) is None


def test_threshold_sweep_is_precision_recall_per_cut() -> None:
    scored = [(0.9, True), (0.6, False), (0.4, True), (0.1, False)]
    rows = {r["threshold"]: r for r in threshold_sweep(scored, [0.5, 0.95])}
    assert (rows[0.5]["tp"], rows[0.5]["fp"], rows[0.5]["fn"]) == (1, 1, 1)
    assert rows[0.5]["precision"] == 0.5 and rows[0.5]["recall"] == 0.5
    assert rows[0.95]["precision"] is None and rows[0.95]["recall"] == 0.0


def test_trust_counts_answers_to_no_evidence_items_as_wrong() -> None:
    from judged_rag_eval.metrics import trust

    t = trust(
        [
            # (must_abstain, abstained, correct)
            (False, False, True),
            (False, False, False),  # a wrong answer
            (False, True, False),  # abstained on an answerable item
            (True, True, True),  # abstained where right
            (True, False, False),  # hallucinated
        ]
    )
    assert (t.answered.hits, t.answered.n) == (3, 5)
    assert (t.selective_accuracy.hits, t.selective_accuracy.n) == (1, 3)
    assert (t.hallucination.hits, t.hallucination.n) == (1, 2)
    assert (t.wrong_answers.hits, t.wrong_answers.n) == (1, 3)


def test_risk_coverage_ranks_by_confidence_and_covers_ties_together() -> None:
    from judged_rag_eval.metrics import risk_coverage

    points, area = risk_coverage(
        [
            (0.9, True, True),
            (0.8, True, False),
            (0.8, True, True),
            (0.1, True, False),
            (None, False, False),  # abstained: never covered
        ]
    )
    assert points == [(0.2, 0.0), (0.6, 1 / 3), (0.8, 0.5)]
    # Mean risk per answer: 0 (1 answer) + 1/3 (2 answers) + 1/2 (1 answer), over 4.
    assert area == pytest.approx(round((0 + 2 / 3 + 0.5) / 4, 4))
    assert risk_coverage([(0.5, False, False)]) == ([], None)


def test_mcnemar_exact_p_value() -> None:
    from judged_rag_eval.metrics import mcnemar

    # 6 items only the first got right, 1 only the second: p = 2 * (1 + 7) / 2**7.
    pairs = [(True, False)] * 6 + [(False, True)] + [(True, True)] * 5
    test = mcnemar(pairs)
    assert (test.n, test.only_a, test.only_b) == (12, 6, 1)
    assert test.p_value == pytest.approx(0.125)
    assert mcnemar([(True, True), (False, False)]).p_value == 1.0


def test_paired_tests_use_only_items_both_systems_finished() -> None:
    from judged_rag_eval.answers import paired_tests

    def rec(system: str, item: str, correct: bool, error: str | None = None) -> dict[str, object]:
        return {
            "suite": "e2e",
            "system": system,
            "item_id": item,
            "correct": correct,
            "error": error,
        }

    records = [
        rec("judged", "a", True),
        rec("plain_rag", "a", False),
        rec("judged", "b", True),
        rec("plain_rag", "b", True),
        rec("judged", "c", True),  # plain_rag has not run c yet
        rec("judged", "d", False),
        rec("plain_rag", "d", True, error="TimeoutError"),  # a failure is not a result
    ]
    (test,) = paired_tests(records, ["judged", "plain_rag"])
    assert test == {"a": "judged", "b": "plain_rag", "n": 2, "only_a": 1, "only_b": 0, "p": 1.0}


def test_runs_whose_documents_disagreed_are_counted_by_kind() -> None:
    from judged_rag_eval.answers import conflict_counts, trust_md, trust_summary

    def record(conflict: str | None, correct: bool) -> dict[str, object]:
        route = {"gate": "retrieve", **({"conflict": conflict} if conflict else {})}
        return {"route": route, "correct": correct, "abstained": False, "must_abstain": False}

    ok = [
        record("dated", True),
        record("dated", False),
        record("undated", True),
        record(None, True),
    ]
    assert conflict_counts(ok) == {
        "dated": {"runs": 2, "right": 1},
        "undated": {"runs": 1, "right": 1},
    }
    assert conflict_counts([record(None, True)]) == {}
    summary = trust_summary(ok)
    assert summary["conflicts"]["undated"] == {"runs": 1, "right": 1}
    costs = {"mean": {"llm_calls": 1.0, "seconds": 1.0}}
    text = "\n".join(trust_md({"systems": {"judged": {**summary, "cost": costs}}}))
    assert "judged: 2 dated (1 right), 1 undated (1 right)" in text
