"""Questions that offer names to choose between ("Which was founded first, X or Y?")."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag import Components, build_graph
from judged_rag.core.quotes import choices
from judged_rag.nodes.judge import substantive
from judged_rag.nodes.rewrite import alternative_queries
from judged_rag.prompts import generate as generate_prompt
from tests.fakes import (
    PromptRecorder,
    doc,
    generator,
    judge_model,
    quote,
    scripted_retriever,
    verdict,
)

QUESTION = "Which was founded first, Orkmere Marine or Talvik Freight?"
ORKMERE = doc("orkmere", "Orkmere Marine\nThe yard was founded in 1987 in Dalvey.", similarity=0.6)
TALVIK = doc("talvik", "Talvik Freight\nTalvik Freight was founded in 1961.", similarity=0.6)
DRAFT = (
    "Orkmere Marine was founded in 1987 [1]. Talvik Freight was founded in 1961 [2]. "
    "Talvik Freight was founded first [2]."
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (QUESTION, ["Orkmere Marine", "Talvik Freight"]),
        ("Is Paris, Lyon or Nice the largest?", ["Paris", "Lyon", "Nice"]),
        ("Which came first, Star Wars, or Star Trek?", ["Star Wars", "Star Trek"]),
        (
            "Which is older, the Bank of England or the Bank of France?",
            ["Bank of England", "Bank of France"],
        ),
        ("Did Apollo 11 or Apollo 12 land first?", ["Apollo 11", "Apollo 12"]),
        ("Who is older: Ann Lee or Bo Ma?", ["Ann Lee", "Bo Ma"]),
        # No choice: one name, names not linked by "or", a lower-case alternative.
        ("Who founded the Bank of England?", []),
        ("Who wrote Hamlet, Prince of Denmark?", []),
        ("Did Orkmere Marine build ferries or tugs?", []),
    ],
)
def test_the_alternatives_a_question_offers(question: str, expected: list[str]) -> None:
    assert choices(question) == expected


def test_a_name_from_the_question_is_no_evidence_a_fact_is() -> None:
    names = ["Orkmere Marine", "Talvik Freight"]
    assert not substantive("Orkmere Marine", names)
    assert not substantive("Talvik Freight.", names)
    assert substantive("1987", names)
    assert substantive("founded in 1987", names)


def test_each_missing_alternative_is_queried_by_name() -> None:
    names = ["Orkmere Marine", "Talvik Freight"]
    assert alternative_queries(QUESTION, names, ["Talvik Freight"]) == [
        "Talvik Freight: Which was founded first"
    ]
    assert alternative_queries(
        "Did Apollo 11 or Apollo 12 land first?", ["Apollo 11", "Apollo 12"], ["Apollo 12"]
    ) == ["Apollo 12: Did land first"]


def run(parts: Components, recorder: PromptRecorder, **settings: Any) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    config = {
        "max_concurrency": 1,
        "callbacks": [recorder],
        "configurable": {"gate": False, "judge": "extract", "judge_threshold": 0.6, **settings},
    }
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def events(out: dict[str, Any], node: str, name: str) -> list[dict[str, Any]]:
    return [e["detail"] for e in out["trace"] if (e["node"], e["event"]) == (node, name)]


def test_each_page_answers_for_its_alternative_and_both_together_suffice() -> None:
    recorder = PromptRecorder()
    parts = Components(
        chat_model=generator(DRAFT),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK]),
    )
    out = run(parts, recorder)
    assert events(out, "parse", "alternatives") == [
        {"components": ["Orkmere Marine", "Talvik Freight"]}
    ]
    # Each page was asked about the alternative it names, not the comparison.
    assert "Answer for Orkmere Marine only" in recorder.prompts[0]
    assert "Answer for Talvik Freight only" in recorder.prompts[1]
    judged = {d["doc_id"]: d for d in events(out, "judge", "judged")}
    assert judged["orkmere"]["label"] == judged["talvik"]["label"] == "highly_relevant"
    assert judged["orkmere"]["alignment"] == "partial"  # one of the two parts
    # Neither page answers the question alone; together they do: no second round.
    assessed = events(out, "assess", "assessed")
    assert assessed[-1]["sufficient"] and assessed[-1]["uncovered"] == []
    assert not events(out, "rewrite", "queries")
    # The generator is asked for each alternative's fact; the verifier always reads
    # the answer, even though it restates the judge's quotes.
    asked = generate_prompt.ALTERNATIVES.format(alternatives="Orkmere Marine and Talvik Freight")
    assert any(p.endswith(asked) for p in recorder.prompts)
    assert "by" not in events(out, "verify", "checked")[0]
    assert out["answer"] == DRAFT and not out["abstained"]
    assert out["cost"]["llm_calls"] == 5  # two judgments, C_M, generate, verify


def test_a_copied_name_is_no_evidence_and_the_missing_alternative_is_queried() -> None:
    recorder = PromptRecorder()
    retriever = scripted_retriever([ORKMERE, TALVIK], [])
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            quote("Orkmere Marine", **{"Ork": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
        ),
        retriever=retriever,
    )
    out = run(parts, recorder, max_iterations=2, web_search="none")
    judged = {d["doc_id"]: d for d in events(out, "judge", "judged")}
    assert judged["orkmere"]["label"] == "somewhat_relevant"
    assert judged["orkmere"]["p_highly"] == 0.0 and judged["orkmere"]["evidence"] == ""
    assert events(out, "assess", "assessed")[0]["uncovered"] == ["Orkmere Marine"]
    # The next round asks for the alternative still without evidence, with no LLM call.
    assert events(out, "rewrite", "alternatives") == [
        {"missing": ["Orkmere Marine"], "queries": ["Orkmere Marine: Which was founded first"]}
    ]
    assert retriever.queries[1] == "Orkmere Marine: Which was founded first"  # type: ignore[attr-defined]
    assert not events(out, "rewrite", "compensated")


def test_other_judges_keep_the_question_whole() -> None:
    recorder = PromptRecorder()
    parts = Components(
        chat_model=generator(DRAFT),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK]),
    )
    out = run(parts, recorder, alignment=False, max_iterations=1)
    assert not events(out, "parse", "alternatives")
    assert not any("Answer for" in p for p in recorder.prompts)
