"""Questions that offer names to choose between ("Which was founded first, X or Y?")."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag import Components, build_graph
from judged_rag.core.comparison import compared, concluded, favoured, favoured_by_all, value
from judged_rag.core.quotes import choices
from judged_rag.nodes.judge import substantive
from judged_rag.nodes.rewrite import alternative_queries
from judged_rag.prompts import generate as generate_prompt
from judged_rag.prompts import verify as verify_prompt
from judged_rag_eval.metrics import choice_conclusion_correct
from tests.fakes import (
    PromptRecorder,
    doc,
    events,
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
        ("what is the largest continent?", []),
        ("", []),
    ],
)
def test_the_alternatives_a_question_offers(question: str, expected: list[str]) -> None:
    assert choices(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (QUESTION, ["Orkmere Marine", "Talvik Freight"]),
        ("Which river is longer, the Nile or the Amazon?", ["Nile", "Amazon"]),
        ("Did Einstein or Bohr win the Nobel Prize first?", ["Einstein", "Bohr"]),
        # Names to choose from, but no quantity compared: the question stays whole.
        ("Is the Eiffel Tower in Paris or London?", []),
        ("Should I use OpenAI or Ollama?", []),
    ],
)
def test_only_a_comparison_splits_into_its_alternatives(question: str, expected: list[str]) -> None:
    assert compared(question) == expected


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
            knows="B",
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
    # Still without evidence for Orkmere Marine after the loop: Talvik Freight's page
    # cannot decide the choice, so SRA does not trust retrieval, and the model is not
    # confident either: "Unknown", with no generation call.
    assert events(out, "integrate", "alternatives_uncovered") == [{"missing": ["Orkmere Marine"]}]
    assert out["abstained"] and out["reason"] == "no_trusted_source"
    assert not events(out, "generate", "generated")


def test_without_evidence_for_one_side_a_confident_model_answers_alone_unless_namesakes() -> None:
    # The page of a sibling ("Orkmere Shipyards") is all there is for Orkmere Marine: the
    # model's confidence there is a confusion with the name, not knowledge.
    sibling = doc("sibling", "Orkmere Shipyards\nThe yard was founded in 1990.", similarity=0.6)
    parts = Components(
        chat_model=generator("Talvik Freight was founded first."),
        judge_model=judge_model(
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            quote("NONE", NONE=0.9),
            knows="A",
        ),
        retriever=scripted_retriever([TALVIK, sibling], []),
    )
    out = run(parts, PromptRecorder(), max_iterations=1, web_search="none")
    assert not events(out, "judge", "fallback")
    assert events(out, "integrate", "decided")[0]["basis"] == "model"
    assert events(out, "integrate", "namesakes_only")[0]["similar"] == ["sibling"]
    assert out["abstained"] and out["reason"] == "namesakes_only"


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


@pytest.mark.parametrize(
    ("question", "values", "expected"),
    [
        ("Which was founded earlier, A or B?", {"A": 1964.0, "B": 1910.0}, "B"),
        ("Which was founded first, A or B?", {"A": 1868.0, "B": 1955.0}, "A"),
        ("Which has more employees today, A or B?", {"A": 1125.0, "B": 408.0}, "A"),
        ("Which has fewer employees, A or B?", {"A": 1125.0, "B": 408.0}, "B"),
        # "Older" by founding years is the smaller year; by ages, the larger age.
        ("Which is older, A or B?", {"A": 1901.0, "B": 1950.0}, "A"),
        ("Who is older, A or B?", {"A": 41.0, "B": 67.0}, "B"),
        # Nothing to decide by: a tie, no comparative word, a missing value.
        ("Which was founded earlier, A or B?", {"A": 1880.0, "B": 1880.0}, None),
        ("Which is based in Taikis, A or B?", {"A": 1.0, "B": 2.0}, None),
        ("Which river is longer, A or B?", {"A": 6650.0, "B": 6400.0}, "A"),
        ("Which was founded earlier, A or B?", {"A": 1880.0}, None),
    ],
)
def test_the_alternative_the_values_favour(
    question: str, values: dict[str, float], expected: str | None
) -> None:
    assert favoured(question, values) == expected


def test_several_values_for_one_alternative_decide_only_when_they_agree() -> None:
    question = "Which was founded earlier, A or B?"
    # A's page gave its founding year and, from another chunk, a later year: B wins either way.
    assert favoured_by_all(question, {"A": {1964.0, 2009.0}, "B": {1910.0}}) == "B"
    # Here one of A's years is earlier than B's and one is later: undecided.
    assert favoured_by_all(question, {"A": {1900.0, 2009.0}, "B": {1910.0}}) is None
    assert favoured_by_all(question, {"A": {1900.0}, "B": set()}) is None


def test_a_quote_gives_a_value_only_when_it_holds_one_number() -> None:
    assert value("1,125") == 1125.0
    assert value("founded in 1868") == 1868.0
    assert value("408 people") == 408.0
    assert value("1904 and 1905") is None
    assert value("Taikis") is None


def test_the_alternative_an_answer_concludes() -> None:
    names = ["Orkmere Marine", "Talvik Freight"]
    assert concluded(DRAFT, names) == "Talvik Freight"
    assert concluded("Orkmere Marine was founded first [1].", names) == "Orkmere Marine"
    # Both named in every sentence, and no comparative word: no conclusion to hold it to.
    assert concluded("Orkmere Marine (1987) and Talvik Freight (1961) [1][2].", names) is None
    # With one, the alternative named closest before it, else the first after it.
    both = "Orkmere Marine was founded first, in 1987, compared to Talvik Freight's 1961."
    assert concluded(both, names) == "Orkmere Marine"
    assert concluded("Compared to Orkmere Marine, Talvik Freight was founded first.", names) == (
        "Talvik Freight"
    )
    assert concluded("First came Talvik Freight, then Orkmere Marine.", names) == "Talvik Freight"


def test_a_conclusion_the_quoted_values_contradict_is_sent_back_without_a_verifier_call() -> None:
    wrong = (
        "Orkmere Marine was founded in 1987 [1]. Talvik Freight was founded in 1961 [2]. "
        "Orkmere Marine was founded first."
    )
    recorder = PromptRecorder()
    parts = Components(
        chat_model=generator(wrong, DRAFT),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            verdict(),  # read for the second draft only
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK]),
    )
    out = run(parts, recorder)
    [contradicted] = events(out, "verify", "comparison")
    assert contradicted["contradicted"] == (
        "the answer says Orkmere Marine, but the documents give Orkmere Marine: 1987; "
        "Talvik Freight: 1961, which favours Talvik Freight"
    )
    # The second draft gets the finding as feedback, and then the verifier reads it.
    assert any("which favours Talvik Freight" in p for p in recorder.prompts)
    assert out["answer"] == DRAFT and not out["abstained"]
    assert out["cost"]["llm_calls"] == 6  # two judgments, C_M, two drafts, one verification


def test_an_answer_to_a_choice_is_scored_by_its_conclusion() -> None:
    question = "Which was founded earlier, Naxmere Grid Services or Naxmere Power Company?"
    gold = ["Naxmere Power Company"]
    right = (
        "Naxmere Grid Services: 1964 [1]. Naxmere Power Company: 1910 [2]. "
        "So Naxmere Power Company."
    )
    wrong = (
        "Naxmere Grid Services was founded in 1964 [1]. Naxmere Power Company was founded "
        "in 1910 [2]. Naxmere Grid Services was founded earlier."
    )
    both = (
        "Naxmere Grid Services was founded in 1964, while Naxmere Power Company was "
        "founded in 1910."
    )
    assert choice_conclusion_correct(right, gold, question) is True
    assert choice_conclusion_correct(wrong, gold, question) is False  # containment said right
    assert choice_conclusion_correct(both, gold, question) is False
    # Not a choice between names, or a gold answer that is not one: containment decides.
    assert choice_conclusion_correct(wrong, ["1910"], question) is None
    single = "When was Naxmere Power Company founded?"
    assert choice_conclusion_correct("1910", ["1910"], single) is None


def test_an_answer_giving_only_the_figures_gets_the_choice_they_make() -> None:
    facts = "Orkmere Marine was founded in 1987 [1]. Talvik Freight was founded in 1961 [2]."
    assert concluded(facts, ["Orkmere Marine", "Talvik Freight"]) is None  # facts, no choice
    parts = Components(
        chat_model=generator(facts),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK]),
    )
    out = run(parts, PromptRecorder())
    assert events(out, "verify", "concluded") == [{"choice": "Talvik Freight"}]
    assert out["answer"] == facts + "\n" + verify_prompt.CONCLUSION.format(choice="Talvik Freight")
    assert [c["doc_id"] for c in out["citations"]] == ["orkmere", "talvik"]
    assert not out["abstained"]


def test_disagreeing_figures_for_one_side_leave_the_choice_to_the_verifier() -> None:
    # Another chunk of Talvik Freight's page gave a later year, so the figures no longer
    # decide (1961 favours Talvik Freight, 2009 Orkmere Marine): the check stands down
    # rather than overturn an answer on a figure that may be about something else.
    later = doc("talvik-ceo", "Talvik Freight\nIn 2009 Ama Lind became its chief executive.")
    parts = Components(
        chat_model=generator(DRAFT),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            quote("2009", **{"200": 0.97, "NONE": 0.03}),
            verdict(),
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK, later]),
    )
    out = run(parts, PromptRecorder())
    assert events(out, "judge", "judged")[2]["label"] == "highly_relevant"
    assert not events(out, "verify", "comparison")
    assert events(out, "verify", "checked")[0]["supported"] is True  # the LLM's reading
    assert out["answer"] == DRAFT


def test_an_answer_whose_figures_are_not_the_judges_gets_no_choice_added() -> None:
    # The draft gives both sides the same invented figure: the judge's quotes decide
    # nothing about it, so nothing is added (the verifier's acceptance stands as is).
    same = "Orkmere Marine was founded in 1961 [1]. Talvik Freight was founded in 1961 [2]."
    parts = Components(
        chat_model=generator(same),
        judge_model=judge_model(
            quote("1987", **{"198": 0.95, "NONE": 0.05}),
            quote("1961", **{"196": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([ORKMERE, TALVIK]),
    )
    out = run(parts, PromptRecorder())
    assert not events(out, "verify", "concluded")
    assert out["answer"] == same
