"""The three ways of judging: structured (see test_routes), one letter, and off."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from judged_rag.components.llm import LetterChoice, read_letter
from judged_rag.nodes.judge import letter_label
from tests.fakes import doc, generator, judge_model, letter, scripted_retriever, verdict

APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
SATURN = doc("saturn", "Saturn V was the rocket of the Apollo programme.")
QUESTION = "When did Apollo 11 land on the Moon?"


def run(parts: Components, **settings: Any) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    config = {"max_concurrency": 1, "configurable": {"gate": False, **settings}}
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def judged(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        e["detail"]["doc_id"]: e["detail"]
        for e in out["trace"]
        if (e["node"], e["event"]) == ("judge", "judged")
    }


def test_letter_judge_labels_from_probabilities_and_skips_parsing() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            letter("A", A=0.6, B=0.15, C=0.1, **{" A": 0.05}),
            letter("A", A=0.3, B=0.2, C=0.4),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts, judge="letter", alignment=True)
    labels = judged(out)
    assert labels["apollo"]["label"] == "highly_relevant"
    # " A" is A too: (0.6 + 0.05) of the 0.9 on the letters.
    assert labels["apollo"]["p_highly"] == pytest.approx(0.65 / 0.9, abs=1e-4)
    # A is the likeliest letter for saturn but under the threshold: C beats B.
    assert labels["saturn"]["label"] == "not_relevant"
    assert labels["saturn"]["p_highly"] == pytest.approx(0.3 / 0.9, abs=1e-4)
    skipped = [e for e in out["trace"] if (e["node"], e["event"]) == ("parse", "skipped")]
    assert skipped and "letter" in skipped[0]["detail"]["why"]
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    assert out["cost"]["llm_calls"] == 5  # two letters, C_M, generate, verify; no parse


def test_letter_probabilities_are_shares_of_the_letters() -> None:
    choice = read_letter(letter("A", A=0.6, B=0.15, C=0.1, **{" A": 0.05}), ["A", "B", "C"])
    assert choice is not None and choice.probabilities is not None
    assert choice.letter == "A" and choice.mass == pytest.approx(0.9)
    assert choice.probabilities["A"] == pytest.approx(0.65 / 0.9, abs=1e-4)
    assert sum(choice.probabilities.values()) == pytest.approx(1.0, abs=1e-3)


def test_threshold_decides_highly_relevant() -> None:
    choice = LetterChoice(letter="A", probabilities={"A": 0.5, "B": 0.3, "C": 0.2}, mass=1.0)
    assert letter_label(choice, 0.45) == "highly_relevant"
    assert letter_label(choice, 0.55) == "somewhat_relevant"
    bare = LetterChoice(letter="C", probabilities=None, mass=0.0)
    assert letter_label(bare, 0.0) == "not_relevant"


def test_backend_without_probabilities_still_gives_the_letter() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed in 1969 [1]."),
        judge_model=judge_model(AIMessage(content="A"), AIMessage(content=" b."), verdict()),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    labels = judged(run(parts, judge="letter"))
    assert labels["apollo"]["label"] == "highly_relevant" and "p_highly" not in labels["apollo"]
    assert labels["saturn"]["label"] == "somewhat_relevant"


def test_unreadable_letter_is_retried_then_recorded_as_fallback() -> None:
    garbage = letter("{", **{"{": 0.97, "A": 0.01})  # letters hold too little probability
    parts = Components(
        chat_model=generator("Apollo 11 landed in 1969 [1]."),
        judge_model=judge_model(
            AIMessage(content="Sure! The answer is"),
            garbage,
            garbage,
            letter("A", A=0.9, B=0.05, C=0.05),
            verdict(),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts, judge="letter", max_iterations=1)
    labels = judged(out)
    assert labels["apollo"]["by"] == "fallback"
    assert labels["apollo"]["label"] == "somewhat_relevant"
    assert labels["saturn"]["label"] == "highly_relevant"
    fallbacks = [e for e in out["trace"] if (e["node"], e["event"]) == ("judge", "fallback")]
    assert len(fallbacks) == 1 and fallbacks[0]["detail"]["error"] == "MalformedOutputError"
    # three attempts + one letter + C_M + generate + verify
    assert out["cost"]["llm_calls"] == 7


def test_judging_off_keeps_every_document_without_a_call() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed in 1969 [1]. Saturn V [2]."),
        judge_model=judge_model(verdict()),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    # A budget of two calls is all generate and verify need: unjudged documents cost none.
    out = run(parts, judge="off", alignment=True, max_llm_calls=2)
    labels = judged(out)
    assert {d["label"] for d in labels.values()} == {"highly_relevant"}
    assert {d["by"] for d in labels.values()} == {"unjudged"}
    assert out["cost"]["llm_calls"] == 2
    assert [c["doc_id"] for c in out["citations"]] == ["apollo", "saturn"]
