"""One end-to-end test per route of the graph, with LangChain's fakes."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.runnables import RunnableLambda

from judged_rag import Components, Configuration, build_graph
from judged_rag.components.gate import VectorCandidatesGate
from judged_rag.state import Judgment
from tests.fakes import (
    answered,
    components,
    doc,
    failing,
    generator,
    judge_model,
    keywords,
    label,
    letter,
    rewrite,
    scripted_retriever,
    verdict,
)

APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
MOON = doc("moon", "The Moon is Earth's only natural satellite.")
SATURN = doc("saturn", "Saturn V was the rocket of the Apollo programme.")
WIKI = doc("wiki", "Apollo 11 was the first crewed Moon landing, in July 1969.", reliability="B")
QUESTION = "When did Apollo 11 land on the Moon?"


def run(
    components: Components, inputs: dict[str, Any] | None = None, **settings: Any
) -> dict[str, Any]:
    graph = build_graph(components, retry_interval=0)
    config = {"max_concurrency": 1, "configurable": {"gate": False, **settings}}
    return graph.invoke(inputs or {"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def events(
    out: dict[str, Any], node: str | None = None, name: str | None = None
) -> list[dict[str, Any]]:
    return [
        e
        for e in out["trace"]
        if (node is None or e["node"] == node) and (name is None or e["event"] == name)
    ]


def test_gate_sends_out_of_domain_question_straight_to_generation() -> None:
    chunks = ["Apollo 11 landed on the Moon on 20 July 1969.", "The Moon is a satellite."]
    gate = VectorCandidatesGate(
        DeterministicFakeEmbedding(size=64), chunks, similarities=[0.6, 0.7, 0.8, 0.9]
    )
    retriever = scripted_retriever([APOLLO])
    parts = Components(
        chat_model=generator("Paris is the capital of France."),
        judge_model=judge_model(verdict(True, 0.9)),
        retriever=retriever,
        gate_index=gate,
    )
    out = run(parts, {"question": "What is the capital of France?"}, gate=True)
    route = events(out, "gate", "route")[0]["detail"]
    assert route["route"] == "direct"
    assert route["s_max"] < route["cutoff"]
    assert retriever.queries == []  # type: ignore[attr-defined]
    assert out["route"]["gate"] == "direct" and out["route"]["iterations"] == 0
    assert out["basis"] == "model" and not out["abstained"]
    assert out["answer"] == "Paris is the capital of France."
    assert out["cost"]["llm_calls"] == 2


def test_a_question_the_gate_sends_to_a_model_that_does_not_know_it_is_retrieved() -> None:
    # The gate's cut-off is a percentile: an in-domain question may fall under it. The
    # model is not confident (C_M < T_M), so the run retrieves once instead of abstaining.
    chunks = ["Apollo 11 landed on the Moon on 20 July 1969.", "The Moon is a satellite."]
    gate = VectorCandidatesGate(
        DeterministicFakeEmbedding(size=64), chunks, similarities=[0.6, 0.7, 0.8, 0.9]
    )
    retriever = scripted_retriever([APOLLO])
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11", "land", "the Moon"]),
            label("highly_relevant", "Apollo 11", "land", "the Moon"),
            verdict(True, 0.9),
            knows="B",
        ),
        retriever=retriever,
        gate_index=gate,
    )
    out = run(parts, gate=True, judge="structured")
    assert events(out, "gate", "route")[0]["detail"]["route"] == "direct"
    declined = events(out, "integrate", "model_declined")
    assert len(declined) == 1 and declined[0]["detail"]["then"] == "retrieve"
    assert retriever.queries == [QUESTION]  # type: ignore[attr-defined]
    assert out["route"]["gate"] == "direct→retrieve" and out["route"]["iterations"] == 1
    assert out["basis"] == "retrieval" and not out["abstained"]
    assert out["citations"][0]["doc_id"] == "apollo"
    # C_M was asked once: the second pass through integrate reuses it.
    reused = events(out, "integrate", "self_confidence")
    assert len(reused) == 1 and reused[0]["detail"]["asked"] is False


def test_a_question_the_model_is_unsure_of_is_retrieved_and_checked_once() -> None:
    # C_M passes, but the short answer is a guess: retrieval after all; with nothing
    # trusted there either, "Unknown" says the model was unsure, asked once.
    gate = VectorCandidatesGate(
        DeterministicFakeEmbedding(size=64), ["Apollo 11 landed."], similarities=[0.8, 0.9]
    )
    retriever = scripted_retriever()
    guess = answered(("19", 0.9), ("4", 0.2), ("1", 0.2))
    parts = Components(
        chat_model=generator("never asked"),
        judge_model=judge_model(components("Zorvath"), knows="A", says=guess),
        retriever=retriever,
        gate_index=gate,
    )
    question = {"question": "Who proved the Zorvath theorem?"}
    out = run(parts, question, gate=True, web_search="none", t_a=0.8)
    assert events(out, "integrate", "model_declined")[0]["detail"]["then"] == "retrieve"
    assert len(retriever.queries) >= 1  # type: ignore[attr-defined]
    assert len(events(out, "integrate", "model_answer")) == 1
    assert out["abstained"] is True and out["reason"] == "model_unsure"
    assert out["route"]["gate"] == "direct→retrieve"


def test_a_model_that_declines_a_question_nothing_retrieves_abstains_once() -> None:
    gate = VectorCandidatesGate(
        DeterministicFakeEmbedding(size=64), ["Apollo 11 landed."], similarities=[0.8, 0.9]
    )
    retriever = scripted_retriever()
    parts = Components(
        chat_model=generator("never asked"),
        judge_model=judge_model(components("Zorvath"), knows="B"),
        retriever=retriever,
        gate_index=gate,
    )
    out = run(parts, {"question": "Who proved the Zorvath theorem?"}, gate=True, web_search="none")
    assert len(events(out, "integrate", "model_declined")) == 1
    assert len(retriever.queries) >= 1  # type: ignore[attr-defined]
    # Nothing was retrieved: the model's own knowledge was the only candidate.
    assert out["abstained"] is True and out["reason"] == "model_declined"
    assert out["route"]["gate"] == "direct→retrieve"


def test_gate_sends_in_domain_question_to_retrieval() -> None:
    chunks = [QUESTION, "The Moon is a satellite."]
    gate = VectorCandidatesGate(
        DeterministicFakeEmbedding(size=64), chunks, similarities=[0.6, 0.7, 0.8, 0.9]
    )
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11", "land", "the Moon"]),
            label("highly_relevant", "Apollo 11", "land", "the Moon"),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO]),
        gate_index=gate,
    )
    out = run(parts, gate=True)
    route = events(out, "gate", "route")[0]["detail"]
    assert route["route"] == "retrieve" and route["s_max"] >= route["cutoff"]
    assert out["citations"][0]["doc_id"] == "apollo"


def test_gate_without_distribution_falls_back_to_retrieval_and_says_so() -> None:
    gate = VectorCandidatesGate(DeterministicFakeEmbedding(size=16), ["x"], similarities=None)
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict()
        ),
        retriever=scripted_retriever([APOLLO]),
        gate_index=gate,
    )
    out = run(parts, gate=True)
    assert "no similarity distribution" in events(out, "gate", "route")[0]["detail"]["why"]
    assert out["route"]["gate"] == "retrieve"


def test_highly_relevant_document_goes_to_generation_with_citation() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11", "land", "the Moon"]),
            label("highly_relevant", "Apollo 11", "land", "the Moon"),
            label("not_relevant"),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts)
    assert out["abstained"] is False and out["basis"] == "combined"
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    assert out["route"] == {
        "task_type": "open",
        "gate": "retrieve",
        "iterations": 1,
        "web_searched": False,
        "combination": "D_H ∪≠∅ (D_S ∪ K_W)",
        "knowledge": 1,
        "regenerations": 0,
    }
    labels = {e["detail"]["doc_id"]: e["detail"]["label"] for e in events(out, "judge", "judged")}
    assert labels == {"apollo": "highly_relevant", "saturn": "not_relevant"}
    # parse, 2 judges, C_M, verify on the judge model; generate on the generator.
    assert out["cost"]["llm_calls"] == 6
    # parse, judge fan-out (one round), C_M, generate, verify
    assert out["cost"]["llm_rounds"] == 5


def _web_run(
    web: Any, *web_labels: Any, answer: str = "In July 1969 [2].", **settings: Any
) -> dict[str, Any]:
    """An open question the knowledge base only touches (moon: Somewhat, saturn: Not).

    `web`: the injected web, None for none. `web_labels`: the judge's replies for the
    web's results, when they are judged.
    """
    searched = [keywords("Apollo 11 Moon landing date")] if web is not None else []
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant", "Apollo 11"),
            label("not_relevant"),
            *searched,
            *web_labels,
            verdict(True, 0.8),
        ),
        retriever=scripted_retriever([MOON, SATURN]),
        web_search=web,
    )
    return run(parts, max_iterations=1, **settings)


def test_open_question_without_highly_relevant_searches_web_and_keeps_somewhat() -> None:
    web = scripted_retriever([WIKI])
    out = _web_run(web)
    assert web.queries == ["Apollo 11 Moon landing date"]  # type: ignore[attr-defined]
    assert out["route"]["web_searched"] is True
    combined = events(out, "combine", "combined")[0]["detail"]
    assert combined["chosen"] == ["moon", "wiki"]  # D_S ∪ K_W, no Not Relevant
    assert [c["doc_id"] for c in out["citations"]] == ["wiki"]
    assert events(out, "combine", "needs_web")


def test_auto_web_searches_nothing_beside_a_knowledge_base_of_ones_own() -> None:
    # The same question with no web injected: the default ("auto") builds no backend for
    # an injected retriever, so the Somewhat Relevant page is the knowledge.
    out = _web_run(None, answer="In July 1969 [1].")
    assert out["route"]["web_searched"] is False
    assert not events(out, "combine", "needs_web")
    combined = events(out, "combine", "combined")[0]["detail"]
    assert combined["web"] == "off"
    assert combined["chosen"] == ["moon"]


@pytest.mark.parametrize(
    ("injected", "settings", "kind"),
    [
        ({}, {}, "offline_wikipedia"),  # the bundled sample knowledge base
        ({}, {"index_dir": "kb"}, "none"),
        ({}, {"store": "postgres"}, "none"),
        ({"retriever": True}, {}, "none"),
        ({"retriever": True, "web_search": True}, {}, "offline_wikipedia"),
        ({}, {"index_dir": "kb", "web_search": "duckduckgo"}, "duckduckgo"),
        ({}, {"web_search": "none"}, "none"),
    ],
)
def test_auto_web_is_the_offline_wikipedia_beside_the_sample_only(
    injected: dict[str, bool], settings: dict[str, Any], kind: str
) -> None:
    parts = Components(**{name: scripted_retriever([WIKI]) for name in injected})
    assert parts.web_kind(Configuration(**settings)) == kind


def _batched_run(*labels: Any, **settings: Any) -> dict[str, Any]:
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(components("Apollo 11"), *labels, verdict(True, 0.8)),
        retriever=scripted_retriever([MOON, SATURN, APOLLO, WIKI]),
    )
    return run(parts, **{"judge_batch": 2, "max_iterations": 1, **settings})


def test_batched_judging_stops_once_the_support_suffices() -> None:
    # The first batch (moon, saturn) holds nothing; the second finds Apollo 11's page,
    # and the round ends there: no rewrite, the fourth document is judged too (same batch).
    out = _batched_run(
        label("not_relevant"),
        label("not_relevant"),
        label("highly_relevant", "Apollo 11"),
        label("somewhat_relevant", "Apollo 11"),
    )
    judged_ids = [e["detail"]["doc_id"] for e in events(out, "judge", "judged")]
    assert judged_ids == ["moon", "saturn", "apollo", "wiki"]
    assessed = [e["detail"] for e in events(out, "assess", "assessed")]
    assert [(a["judged_by_llm"], a["pending"], a["sufficient"]) for a in assessed] == [
        (2, 2, False),
        (2, 0, True),
    ]
    assert not events(out, "rewrite") and out["route"]["iterations"] == 1
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]


def test_batched_judging_judges_no_more_than_needed() -> None:
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), label("not_relevant")
        ),
        retriever=scripted_retriever([APOLLO, MOON, SATURN, WIKI]),
    )
    out = run(parts, judge_batch=2, max_iterations=1, verify=False)
    # Apollo 11's page is in the first batch: saturn and wiki are never judged.
    assert [e["detail"]["doc_id"] for e in events(out, "judge", "judged")] == ["apollo", "moon"]
    assert events(out, "assess", "assessed")[0]["detail"]["pending"] == 2
    # parse, two judgments, C_M, generate: the unjudged half costs nothing.
    assert out["cost"]["llm_calls"] == 5 and out["answer"] == "On 20 July 1969 [1]."


def test_batched_judging_without_support_judges_the_round_then_moves_on() -> None:
    # One at a time, nothing relevant: four batches, then the iteration budget ends
    # the loop (no rewrite at max_iterations=1); each batch is one LLM round.
    out = _batched_run(*[label("not_relevant")] * 4, judge_batch=1, web_search="none")
    assessed = [e["detail"] for e in events(out, "assess", "assessed")]
    assert [a["pending"] for a in assessed] == [3, 2, 1, 0]
    assert len(events(out, "judge", "judged")) == 4 and not events(out, "rewrite")
    # parse, four batches of one judgment, C_M, generate: as many calls as unbatched,
    # in seven sequential rounds instead of four.
    assert out["cost"]["llm_calls"] == 7 and out["cost"]["llm_rounds"] == 7
    whole = _batched_run(*[label("not_relevant")] * 4, judge_batch=0, web_search="none")
    assert whole["cost"]["llm_calls"] == 7 and whole["cost"]["llm_rounds"] == 4


@pytest.mark.parametrize("finish", ["length", "stop"])
def test_an_answer_cut_at_the_token_limit_is_recorded(finish: str) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    reply = AIMessage(
        content="Apollo 11 landed on 20 Ju", response_metadata={"finish_reason": finish}
    )
    parts = Components(
        chat_model=GenericFakeChatModel(messages=iter([reply])),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict(True, 0.8)
        ),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_iterations=1)
    cut = events(out, "generate", "cut")
    if finish == "length":
        assert cut[0]["detail"]["max_answer_tokens"] == 384
    else:
        assert not cut


def test_the_prompt_budget_cuts_highly_relevant_documents_and_says_so() -> None:
    long_apollo = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969. " * 10)
    long_wiki = doc("wiki", "Apollo 11 was the first crewed Moon landing, in 1969. " * 10)
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(True, 0.8),
        ),
        retriever=scripted_retriever([long_apollo, long_wiki]),
    )
    out = run(parts, max_iterations=1, max_knowledge=1, max_knowledge_chars=500)
    combined = events(out, "combine", "combined")[0]["detail"]
    # max_knowledge does not cut D_H; the 500-character budget keeps the first document.
    assert combined["sets"]["D_H"] == 2 and combined["chosen"] == ["apollo"]
    assert combined["dropped_by_count"] == 0 and combined["dropped_by_chars"] == 1


@pytest.mark.parametrize("subject_check", [True, False])
def test_web_results_that_do_not_name_the_subject_are_dropped(subject_check: bool) -> None:
    # Web results are not judged: a page that names neither Apollo 11 nor the Moon is
    # no evidence about them, whatever the search engine ranked it.
    longevity = doc("longevity", "Longevity is a long duration of individual life.")
    out = _web_run(scripted_retriever([longevity, WIKI]), subject_check=subject_check)
    searched = events(out, "web_search", "searched")[0]["detail"]
    dropped = events(out, "web_search", "off_subject")
    if subject_check:
        assert searched["sources"] == [WIKI.metadata["source"]] and searched["results"] == 1
        assert dropped[0]["detail"]["dropped"] == [longevity.metadata["source"]]
        assert dropped[0]["detail"]["subjects"] == ["apollo 11", "moon"]
    else:
        assert searched["results"] == 2 and not dropped


def test_closed_question_without_highly_relevant_answers_without_knowledge() -> None:
    gen = generator("B. 1969 is when Apollo 11 landed.")
    parts = Components(
        chat_model=gen,
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant"),
            label("not_relevant"),
            verdict(True, 0.7),
        ),
        retriever=scripted_retriever([MOON, SATURN]),
    )
    out = run(
        parts,
        {"question": "In which year did Apollo 11 land?", "options": ["1959", "1969", "1979"]},
        max_iterations=1,
    )
    assert out["answer"] == "1969"
    assert out["route"]["task_type"] == "closed" and out["route"]["knowledge"] == 0
    assert out["route"]["web_searched"] is False  # D_H ∪≠∅ ∅ never reaches K_W
    generated = events(out, "generate", "generated")[0]["detail"]
    assert generated["knowledge"] == 0 and generated["basis"] == "model"
    assert out["basis"] == "model" and out["citations"] == []


def test_rewrite_loop_reaches_sufficiency_on_second_iteration() -> None:
    retriever = scripted_retriever([MOON], [MOON, APOLLO])
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11", "land", "the Moon"]),
            label("somewhat_relevant", "the Moon"),
            rewrite("touch down", pseudo="Apollo 11 touched down on the lunar surface."),
            label("highly_relevant", "Apollo 11", "land", "the Moon"),
            verdict(True, 0.9),
        ),
        retriever=retriever,
    )
    out = run(parts)
    assert out["route"]["iterations"] == 2
    assert out["route"]["web_searched"] is False
    queries = retriever.queries  # type: ignore[attr-defined]
    assert queries[0] == QUESTION
    assert "touch down" in queries[1] and "lunar surface" in queries[1]
    # MOON was found again in round 2 and not judged twice; both documents are kept.
    judged = [e["detail"]["doc_id"] for e in events(out, "judge", "judged")]
    assert judged == ["moon", "apollo"]
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    assessed = [e["detail"]["sufficient"] for e in events(out, "assess", "assessed")]
    assert assessed == [False, True]


def test_rewrite_loop_stops_at_max_iterations() -> None:
    docs = [doc(f"d{i}", f"Unrelated fact number {i}.") for i in range(3)]
    retriever = scripted_retriever([docs[0]], [docs[1]], [docs[2]], [doc("never", "never reached")])
    parts = Components(
        chat_model=generator("Apollo 11 landed in July 1969."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant"),
            rewrite("Apollo eleven"),
            label("somewhat_relevant"),
            rewrite("lunar mission"),
            label("somewhat_relevant"),
            verdict(True, 0.9),
        ),
        retriever=retriever,
    )
    out = run(parts, max_iterations=3, web_search="none", stop_when_stalled=False)
    assert out["route"]["iterations"] == 3
    assert len(retriever.queries) == 3  # type: ignore[attr-defined]
    assert len(events(out, "rewrite", "queries")) == 2
    combined = events(out, "combine", "combined")[0]["detail"]
    assert combined["chosen"] == ["d0", "d1", "d2"]
    # No backend: K_W is empty, no search is asked for, and the route says so.
    assert combined["web"] == "off" and not events(out, "web_search")
    assert out["route"]["web_searched"] is False


def test_rewrite_loop_stops_when_a_round_finds_nothing_better() -> None:
    docs = [doc(f"d{i}", f"Unrelated fact number {i}.") for i in range(3)]
    retriever = scripted_retriever([docs[0]], [docs[1]], [docs[2]])
    parts = Components(
        chat_model=generator("Apollo 11 landed in July 1969."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant"),
            rewrite("Apollo eleven"),
            label("not_relevant"),  # the rewrite found something worse: stop
            verdict(True, 0.9),
        ),
        retriever=retriever,
    )
    out = run(parts, max_iterations=3, web_search="none")
    assert out["route"]["iterations"] == 2
    assert len(retriever.queries) == 2  # type: ignore[attr-defined]
    first, second = (e["detail"] for e in events(out, "assess", "assessed"))
    assert first["stalled"] is False and first["best_before"] is None
    assert second["stalled"] is True and second["best_score"] < second["best_before"]


def test_unsupported_answer_is_regenerated_then_abstained() -> None:
    gen = generator("Apollo 11 landed in 1972 [1].", "Apollo 11 landed in 1970 [1].")
    parts = Components(
        chat_model=gen,
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(False, 0.9, ["landed in 1972"]),
            verdict(False, 0.9, ["landed in 1970"]),
        ),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_regenerations=1)
    assert out["abstained"] is True
    assert out["answer"] == "Unknown" and out["reason"] == "unsupported_claims"
    assert out["route"]["regenerations"] == 1
    assert len(events(out, "generate", "generated")) == 2
    assert events(out, "verify", "regenerate")[0]["detail"] == {"attempt": 1, "of": 1}


def test_regeneration_feedback_reaches_the_generator_and_can_succeed() -> None:
    gen = generator("Apollo 11 landed in 1972 [1].", "Apollo 11 landed in 1969 [1].")
    parts = Components(
        chat_model=gen,
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(False, 0.9, ["landed in 1972"]),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO]),
    )
    graph = build_graph(parts, retry_interval=0)
    cfg = {"max_concurrency": 1, "configurable": {"gate": False}}
    states = list(graph.stream({"question": QUESTION}, cfg, stream_mode="values"))
    assert states[-1]["answer"] == "Apollo 11 landed in 1969 [1]."
    assert any(s.get("feedback") == ["landed in 1972"] for s in states)


def test_low_retrieval_score_and_low_confidence_abstain_with_unknown_without_generating() -> None:
    generate = generator("Maybe 1970 [1].")
    parts = Components(
        chat_model=generate,
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            knows=letter("B", A=0.1, B=0.9),
        ),
        retriever=scripted_retriever(
            [doc("weak", "Apollo 11 landed in 1969.", similarity=0.05, reliability="E")]
        ),
    )
    out = run(parts, t_r=0.5, t_m=0.5)
    assert out["abstained"] is True and out["answer"] == "Unknown"
    assert out["reason"] == "no_trusted_source"
    decided = events(out, "integrate", "decided")[0]["detail"]
    # S = 0.7 * 0.05 + 0.3 * 0.2 (grade E) = 0.095 < T_R; C_M = P(A) = 0.1 < T_M
    assert decided["s_max"] == 0.095 and decided["c_m"] == 0.1 and decided["basis"] == "Unknown"
    assert not events(out, "generate") and not events(out, "verify")
    assert out["cost"]["llm_calls"] == 3  # parse, judge, C_M: no generation at all


def test_citation_to_missing_document_is_repaired_when_another_document_states_it() -> None:
    parts = Components(
        chat_model=generator("In 1969 [7]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(True, 0.9),  # the first check: the citation [7] still makes it unsupported
            verdict(True, 0.9),  # the repaired draft, citing [1]
        ),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_regenerations=1)
    assert events(out, "verify", "invalid_citations")[0]["detail"]["numbers"] == [7]
    repaired = events(out, "verify", "citations_repaired")[0]["detail"]["repairs"]
    assert repaired == [{"claim": "In 1969.", "cited": [7], "to": 1, "support": 1.0}]
    assert out["abstained"] is False and out["answer"] == "In 1969 [1]."
    assert [c["number"] for c in out["citations"]] == [1]
    assert out["route"]["regenerations"] == 0 and out["cost"]["llm_calls"] == 6


def test_citation_to_missing_document_is_caught_when_no_document_states_it() -> None:
    parts = Components(
        chat_model=generator("Armstrong walked on Mars [7].", "Armstrong walked on Mars [7]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(True, 0.9),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_regenerations=1)
    assert out["abstained"] is True and out["reason"] == "unsupported_claims"
    assert events(out, "verify", "invalid_citations")[0]["detail"]["numbers"] == [7]
    assert not events(out, "verify", "citations_repaired")


def test_failing_retriever_and_web_backend_are_recorded_and_the_run_completes() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed in July 1969."),
        judge_model=judge_model(components("Apollo 11"), keywords("Apollo 11"), verdict(True, 0.8)),
        retriever=RunnableLambda(failing(ConnectionError("index server down"))),  # type: ignore[arg-type]
        web_search=RunnableLambda(failing(TimeoutError("search timed out"))),  # type: ignore[arg-type]
    )
    out = run(parts, max_iterations=1)
    errors = events(out, name="error")
    assert {e["node"] for e in errors} == {"retrieve", "web_search"}
    assert errors[0]["detail"]["error"] == "ConnectionError"
    assert errors[1]["detail"]["message"] == "search timed out"
    assert out["route"]["knowledge"] == 0 and out["basis"] == "model"


def test_generator_failure_abstains_with_reason() -> None:
    parts = Components(
        chat_model=RunnableLambda(failing(ValueError("model exploded"))),  # type: ignore[arg-type]
        judge_model=judge_model(components("Apollo 11"), label("highly_relevant", "Apollo 11")),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts)
    assert out["abstained"] is True and out["reason"] == "generation_failed"
    assert events(out, "generate", "error")[0]["detail"]["message"] == "model exploded"


@pytest.mark.parametrize("question", ["", "   \n\t", "\x00\x01"])
def test_empty_question_is_a_clear_error(question: str) -> None:
    from judged_rag.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="question is empty"):
        run(Components(), {"question": question})


def test_options_with_open_task_type_is_a_clear_error() -> None:
    from judged_rag.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="task_type is 'open'"):
        run(Components(), {"question": "Which?", "options": ["a", "b"], "task_type": "open"})


def test_llm_call_budget_cuts_judging_and_keeps_the_answer_calls() -> None:
    docs = [doc(f"d{i}", f"Apollo fact {i}.") for i in range(5)]
    parts = Components(
        chat_model=generator("In 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever(docs),
    )
    # 6 calls: parse, 2 judges, then C_M + generate + verify kept back.
    out = run(parts, max_llm_calls=6)
    assert len(events(out, "judge", "judged")) == 2
    assert out["cost"]["llm_calls"] == 6
    assert out["abstained"] is False and out["answer"] == "In 1969 [1]."


def test_exhausted_time_budget_abstains_with_reason() -> None:
    parts = Components(
        chat_model=generator("never"),
        judge_model=judge_model(components("Apollo 11"), label("highly_relevant", "Apollo 11")),
        retriever=scripted_retriever([APOLLO]),
    )
    out = run(parts, max_seconds=1e-9)
    assert out["abstained"] is True and out["reason"] == "budget_exhausted"
    assert {e["node"] for e in events(out, name="budget")} >= {"generate"}
    assert out["cost"]["llm_calls"] <= 2


@pytest.mark.parametrize(
    "draft",
    ["I don't know.", "I do not know the answer.", "Unknown", "[1] I don't know.", "[2]. Unknown"],
)
def test_a_draft_that_declines_is_an_abstention(draft: str) -> None:
    parts = Components(
        chat_model=generator(draft),
        judge_model=judge_model(components("Apollo 11"), label("not_relevant")),
        retriever=scripted_retriever([SATURN]),
    )
    out = run(parts, max_iterations=1, web_search="none")
    assert out["abstained"] is True and out["answer"] == "Unknown"
    assert out["reason"] == "model_declined"
    assert events(out, "verify", "declined")
    assert out["cost"]["llm_calls"] == 4  # parse, judge, C_M, generate: no verification call


@pytest.mark.parametrize(
    ("answer", "numbers"),
    [
        ("Moscow. [1]", [1]),
        ("Moscow [2, 3] and [1][2].", [2, 3, 1]),
        ("The capital of Russia is Moscow, as stated in document 1.", [1]),
        ('Wiles proved it (document n="4"), see also Document [2].', [4, 2]),
        ("It was built in 1990 by 3 firms.", []),
    ],
)
def test_cited_numbers_reads_brackets_and_document_references(
    answer: str, numbers: list[int]
) -> None:
    from judged_rag.core.citations import cited_numbers

    assert cited_numbers(answer) == numbers


@pytest.mark.parametrize(
    ("now", "before", "stalled"),
    [
        (1.72, None, False),  # the first round
        (1.7273, 1.7222, True),  # a few thousandths: the judge's noise
        (1.80, 1.72, False),  # a clearly better document of the same label
        (2.60, 1.72, False),  # a better label
        (1.49, 1.73, True),  # worse
        (None, 1.73, True),  # nothing new to judge
    ],
)
def test_a_round_makes_progress_only_by_a_margin(
    now: float | None, before: float | None, stalled: bool
) -> None:
    from judged_rag.nodes.assess import is_stalled

    assert is_stalled(now, before) is stalled


def _scored(iteration: int, label: str, composite: float, p: float | None) -> Judgment:
    judgment: Judgment = {
        "doc_id": f"d{iteration}",
        "label": label,  # type: ignore[typeddict-item]
        "reason": "",
        "evidence": "",
        "aligned_components": [],
        "alignment": "none",
        "alignment_ratio": 0.0,
        "composite_score": composite,
        "by": "llm",
        "iteration": iteration,
    }
    if p is not None:
        judgment["p_highly"] = p
    return judgment


def test_progress_is_the_llms_probability_not_the_retrievers_cosine() -> None:
    from judged_rag.nodes.assess import best_scores, is_stalled

    # A rewrite retrieves pages closer to its own words; the judge still finds nothing.
    closer = [_scored(0, "not_relevant", 0.41, 0.0), _scored(1, "not_relevant", 0.58, 0.0)]
    assert is_stalled(*best_scores(closer, 1)) is True
    # The judge's own probability rose by more than the margin: progress.
    likelier = [_scored(0, "not_relevant", 0.58, 0.1), _scored(1, "not_relevant", 0.41, 0.3)]
    assert best_scores(likelier, 1) == (0.3, 0.1)
    assert is_stalled(*best_scores(likelier, 1)) is False
    # Judges without a probability (structured labels) fall back to the composite score.
    labelled = [
        _scored(0, "somewhat_relevant", 0.40, None),
        _scored(1, "somewhat_relevant", 0.52, None),
    ]
    assert best_scores(labelled, 1) == (1.52, 1.40)
    assert is_stalled(*best_scores(labelled, 1)) is False


def _judged_web_run(*web_labels: Any, **settings: Any) -> dict[str, Any]:
    """`_web_run` with the web's two results judged (`judge_web`): wiki first, longevity."""
    longevity = doc("longevity", "Longevity is a long duration of individual life.")
    web = scripted_retriever([longevity, WIKI])
    return _web_run(web, *web_labels, judge_web=True, **settings)


def test_judged_web_results_keep_what_the_judge_did_not_reject() -> None:
    out = _judged_web_run(label("highly_relevant", "Apollo 11"), label("not_relevant"))
    judged = events(out, "web_search", "results_judged")[0]["detail"]
    assert judged == {"kept": 1, "rejected": ["kb/longevity.md"], "unjudged": 0}
    # The page the judge rejected is not K_W; the judged one is, and is cited.
    assert events(out, "combine", "combined")[0]["detail"]["chosen"] == ["moon", "wiki"]
    assert [c["doc_id"] for c in out["citations"]] == ["wiki"]
    labels = {e["detail"]["doc_id"]: e["detail"]["label"] for e in events(out, "judge", "judged")}
    assert labels["wiki"] == "highly_relevant" and labels["longevity"] == "not_relevant"
    # Two judge calls more than the same run with the web unjudged.
    unjudged = _web_run(scripted_retriever([WIKI]))
    assert out["cost"]["llm_calls"] == unjudged["cost"]["llm_calls"] + 2


def test_web_results_the_budget_leaves_unjudged_follow_the_judged_ones() -> None:
    # Four calls spent (parse, two judges, keywords) and three kept for the answer: one
    # web result can be judged; the other stays, after it, unjudged.
    out = _judged_web_run(label("somewhat_relevant", "Apollo 11"), max_llm_calls=8)
    judged = events(out, "web_search", "results_judged")[0]["detail"]
    assert judged == {"kept": 1, "rejected": [], "unjudged": 1}
    assert events(out, "combine", "combined")[0]["detail"]["chosen"] == [
        "moon",
        "wiki",
        "longevity",
    ]
    assert out["cost"]["llm_calls"] <= 8
