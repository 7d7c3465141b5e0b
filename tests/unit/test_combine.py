"""The combination operators over RJAG's eight strategies (Table 2)."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag.configuration import STRATEGIES
from judged_rag.core.judgments import labelled_sets
from judged_rag.core.strategies import NeedsWeb, evaluate, parse_strategy


def _docs(prefix: str, n: int) -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i}"} for i in range(n)]


def ids(docs: list[Any]) -> list[str]:
    return [d["id"] for d in docs]


H, S, N, W = _docs("h", 2), _docs("s", 2), _docs("n", 1), _docs("w", 2)

# strategy -> (expected with D_H non-empty, expected with D_H empty)
TABLE: dict[str, tuple[list[str], list[str] | None]] = {
    "D_H": (["h0", "h1"], []),
    "D_H ∪≠∅ D_S": (["h0", "h1"], ["s0", "s1"]),
    "(D_H ∪≠∅ D_S) ∪≠∅ D_N": (["h0", "h1"], ["s0", "s1"]),
    "D_H ∪ D_S": (["h0", "h1", "s0", "s1"], ["s0", "s1"]),
    "(D_H ∪ D_S) ∪≠∅ D_N": (["h0", "h1", "s0", "s1"], ["s0", "s1"]),
    "D_H ∪ D_S ∪ D_N": (["h0", "h1", "s0", "s1", "n0"], ["s0", "s1", "n0"]),
    "(D_H ∪ D_S) ∪≠∅ K_W": (["h0", "h1", "s0", "s1"], ["s0", "s1"]),
    "D_H ∪≠∅ (D_S ∪ K_W)": (["h0", "h1"], ["s0", "s1", "w0", "w1"]),
}


def test_table_covers_all_eight_strategies() -> None:
    assert set(TABLE) == set(STRATEGIES) and len(STRATEGIES) == 8


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_strategy_with_highly_relevant(strategy: str) -> None:
    sets = {"D_H": H, "D_S": S, "D_N": N, "K_W": W}
    assert ids(evaluate(parse_strategy(strategy), sets, web_searched=True)) == TABLE[strategy][0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_strategy_without_highly_relevant(strategy: str) -> None:
    sets = {"D_H": [], "D_S": S, "D_N": N, "K_W": W}
    assert ids(evaluate(parse_strategy(strategy), sets, web_searched=True)) == TABLE[strategy][1]


def test_web_is_needed_only_when_evaluation_reaches_it() -> None:
    lazy = parse_strategy("D_H ∪≠∅ (D_S ∪ K_W)")
    assert ids(evaluate(lazy, {"D_H": H, "D_S": S}, web_searched=False)) == ["h0", "h1"]
    with pytest.raises(NeedsWeb):
        evaluate(lazy, {"D_H": [], "D_S": S}, web_searched=False)
    # (D_H ∪ D_S) ∪≠∅ K_W: web only when both are empty.
    seven = parse_strategy("(D_H ∪ D_S) ∪≠∅ K_W")
    assert ids(evaluate(seven, {"D_H": [], "D_S": S}, web_searched=False)) == ["s0", "s1"]
    with pytest.raises(NeedsWeb):
        evaluate(seven, {"D_H": [], "D_S": []}, web_searched=False)


def test_union_keeps_order_and_drops_duplicates() -> None:
    tree = parse_strategy("D_H ∪ D_S")
    assert ids(
        evaluate(
            tree,
            {"D_H": [{"id": "a"}, {"id": "b"}], "D_S": [{"id": "b"}, {"id": "c"}]},
            web_searched=True,
        )
    ) == ["a", "b", "c"]


def test_empty_set_operand_is_the_closed_default() -> None:
    tree = parse_strategy("D_H ∪≠∅ ∅")
    assert ids(evaluate(tree, {"D_H": H}, web_searched=False)) == ["h0", "h1"]
    assert evaluate(tree, {"D_H": []}, web_searched=False) == []


@pytest.mark.parametrize("bad", ["", "D_X", "(D_H ∪ D_S", "D_H ∪", "D_H D_S"])
def test_malformed_strategies_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="strategy"):
        parse_strategy(bad)


def _origin(docs: list[dict[str, Any]], origin: str) -> list[dict[str, Any]]:
    return [{**d, "origin": origin} for d in docs]


def test_cap_shares_places_between_knowledge_base_and_web() -> None:
    from judged_rag.core.strategies import cap

    kb, web = _origin(_docs("s", 4), "kb"), _origin(_docs("w", 3), "web")
    # D_S ∪ K_W cut to three: the web results the run searched for are not all dropped
    assert ids(cap(kb + web, 3)) == ["s0", "w0", "s1"]
    assert ids(cap(kb + web, 10)) == ids(kb + web)  # everything fits: the order stands
    assert ids(cap(kb, 2)) == ["s0", "s1"]  # one origin: the first ones
    assert ids(cap(web, 2)) == ["w0", "w1"]
    assert ids(cap(kb[:1] + web, 3)) == ["s0", "w0", "w1"]


def test_cap_keeps_every_highly_relevant_document_and_fills_the_rest() -> None:
    from judged_rag.core.strategies import cap

    highly, somewhat = _origin(_docs("h", 7), "kb"), _origin(_docs("s", 3), "kb")
    every_highly = frozenset(ids(highly))
    # RJAG integrates all of D_H: seven Highly Relevant documents pass a cap of five.
    assert ids(cap(highly, 5, highly=every_highly)) == ids(highly)
    # Fewer than the cap: the others fill the places left, in the strategy's order.
    assert ids(cap(highly[:3] + somewhat, 5, highly=frozenset(ids(highly[:3])))) == [
        "h0",
        "h1",
        "h2",
        "s0",
        "s1",
    ]
    # D_H at the cap or beyond leaves no place for the others.
    assert ids(cap(highly + somewhat, 5, highly=every_highly)) == ids(highly)


def test_the_prompt_budget_keeps_documents_while_their_text_fits() -> None:
    from judged_rag.core.strategies import within_chars

    sizes = [400, 300, 200, 100]
    docs = [{"id": f"d{i}", "content": "x" * n, "origin": "kb"} for i, n in enumerate(sizes)]
    assert ids(within_chars(docs, 700)) == ["d0", "d1"]  # 400 + 300 fit, + 200 does not
    assert ids(within_chars(docs, 1000)) == ["d0", "d1", "d2", "d3"]
    # The first document always goes, even alone over the budget.
    assert ids(within_chars(docs, 100)) == ["d0"]
    # A later, shorter document does not jump the queue: the order is the strategy's.
    assert ids(within_chars(docs, 750)) == ["d0", "d1"]


def judgment(doc_id: str, composite: float, judge: float | None) -> dict[str, Any]:
    j: dict[str, Any] = {
        "doc_id": doc_id,
        "label": "somewhat_relevant",
        "reason": "",
        "evidence": "",
        "aligned_components": [],
        "alignment": "unchecked",
        "alignment_ratio": 0.0,
        "composite_score": composite,
        "by": "llm",
        "iteration": 0,
    }
    if judge is not None:
        j["judge_score"] = judge
    return j


def test_labelled_sets_rank_by_the_judges_score_then_the_composite() -> None:
    # The answer-bearing page has the lowest cosine but the judge's best score: first.
    state: Any = {
        "question": "Who founded the company?",
        "documents": [{"id": d} for d in ("close", "evidence", "tie_a", "tie_b")],
        "judgments": [
            judgment("close", 0.75, 0.61),
            judgment("evidence", 0.55, 0.72),
            judgment("tie_a", 0.40, 0.50),
            judgment("tie_b", 0.45, 0.50),
        ],
    }
    assert ids(labelled_sets(state)["somewhat_relevant"]) == ["evidence", "close", "tie_b", "tie_a"]
    # Without judge scores (the structured judge), the composite score decides.
    for j in state["judgments"]:
        j.pop("judge_score")
    assert ids(labelled_sets(state)["somewhat_relevant"]) == ["close", "evidence", "tie_b", "tie_a"]


def test_a_page_stating_how_often_what_is_asked_happens_leads_its_set() -> None:
    # The judge misread the bodies' page ("once a month", not in it): no copy, low score.
    texts = {
        "minutes": "The minutes of the previous meeting were approved.",
        "bodies": "The WSB sets priorities. It meets on the first Monday of each quarter.",
        "charter": "It is reviewed at least once a year.",
    }
    state: Any = {
        "question": "How often does the WSB meet?",
        "documents": [{"id": d, "title": d, "content": t} for d, t in texts.items()],
        "judgments": [
            judgment("minutes", 0.72, 0.3),
            judgment("bodies", 0.63, 0.2),
            {**judgment("charter", 0.60, 0.9), "grounded": False},
        ],
    }
    assert ids(labelled_sets(state)["somewhat_relevant"]) == ["bodies", "minutes", "charter"]
    state["question"] = "Who chairs the WSB?"
    assert ids(labelled_sets(state)["somewhat_relevant"]) == ["minutes", "bodies", "charter"]
