"""SRA's knowledge-integration protocol, decided before generation (Algorithm 1)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult

from judged_rag import Components, Configuration, build_graph
from judged_rag.core.scores import sra_score
from judged_rag.nodes.integrate import decide_basis
from judged_rag.prompts import generate as generate_prompt
from tests.fakes import (
    answered,
    components,
    doc,
    events,
    judge_model,
    label,
    letter,
    scripted_retriever,
    verdict,
)

APOLLO = "Apollo 11 landed on the Moon on 20 July 1969."


class RecordingGenerator(GenericFakeChatModel):
    """The generator, remembering the system prompt of each call."""

    prompts: list[str]

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.prompts.append(str(messages[0].content))
        return super()._generate(messages, *args, **kwargs)


@pytest.mark.parametrize(
    ("s_max", "c_m", "expected"),
    [
        (0.6, 0.9, "combined"),  # R_C: S_max >= T_R and C_M >= T_M
        (0.6, 0.2, "retrieval"),  # R_R: only the documents are trusted
        (0.3, 0.9, "model"),  # R_M: only the model is trusted
        (0.3, 0.2, "none"),  # "Unknown"
        (None, 0.9, "model"),  # no scored document: retrieval is not trusted
        (None, 0.2, "none"),
        (0.4, 0.5, "combined"),  # reaching a threshold is enough
    ],
)
def test_the_four_cases_of_the_switch(s_max: float | None, c_m: float, expected: str) -> None:
    assert decide_basis(s_max, c_m, Configuration(t_r=0.4, t_m=0.5)) == expected


def test_the_score_is_on_the_retrievers_scale_or_none() -> None:
    cfg = Configuration(alpha=0.7, beta=0.3)
    scored: Any = {"similarity": 0.5, "reliability": "A"}
    assert sra_score(scored, cfg) == 0.65  # 0.7 * 0.5 + 0.3 * 1.0
    assert sra_score({"similarity": None, "reliability": "A"}, cfg) is None  # type: ignore[arg-type]


def run(
    similarity: float, knows: AIMessage | str, **settings: Any
) -> tuple[dict[str, Any], list[str]]:
    generate = RecordingGenerator(messages=iter([AIMessage(content="In 1969 [1].")]), prompts=[])
    parts = Components(
        chat_model=generate,
        judge_model=judge_model(
            components("Apollo 11"),
            label("highly_relevant", "Apollo 11"),
            verdict(True),
            knows=knows,
        ),
        retriever=scripted_retriever([doc("apollo", APOLLO, similarity=similarity)]),
    )
    config = {"configurable": {"gate": False, "max_regenerations": 0, **settings}}
    out = build_graph(parts, retry_interval=0).invoke({"question": "When?"}, config)
    return out, generate.prompts  # type: ignore[return-value]


def test_r_c_generates_from_documents_and_own_knowledge() -> None:
    out, prompts = run(0.9, letter("A", A=0.8, B=0.2))
    assert prompts == [generate_prompt.OPEN_COMBINED]
    assert out["basis"] == "combined" and [c["number"] for c in out["citations"]] == [1]


def test_r_r_generates_from_the_documents_only() -> None:
    out, prompts = run(0.9, letter("B", A=0.3, B=0.7))
    assert prompts == [generate_prompt.OPEN_WITH_KNOWLEDGE]
    assert out["basis"] == "retrieval"


def test_r_m_shows_no_document_and_carries_no_citation() -> None:
    # S = 0.7 * 0.1 + 0.3 * 0.8 = 0.31 < T_R = 0.4
    out, prompts = run(0.1, "A")
    assert prompts == [generate_prompt.OPEN_WITHOUT_KNOWLEDGE]
    assert out["basis"] == "model" and out["citations"] == [] and not out["abstained"]
    # nothing to check against: no verification call (parse, judge, C_M, generate)
    assert out["cost"]["llm_calls"] == 4


def _unsure_run(says: AIMessage, **settings: Any) -> tuple[dict[str, Any], list[str]]:
    generate = RecordingGenerator(messages=iter([AIMessage(content="In 1969.")]), prompts=[])
    parts = Components(
        chat_model=generate,
        judge_model=judge_model(
            components("Apollo 11"), label("not_relevant"), knows="A", says=says
        ),
        retriever=scripted_retriever([doc("apollo", APOLLO, similarity=0.1)]),
    )
    config = {
        "configurable": {"gate": False, "max_iterations": 1, "web_search": "none", **settings}
    }
    out = build_graph(parts, retry_interval=0).invoke({"question": "When?"}, config)
    return out, generate.prompts  # type: ignore[return-value]


def test_r_m_needs_a_sure_short_answer_when_t_a_is_set() -> None:
    sure = answered(("19", 0.98), ("69", 0.95))
    out, prompts = _unsure_run(sure, t_a=0.8)
    assert out["basis"] == "model" and prompts == [generate_prompt.OPEN_WITHOUT_KNOWLEDGE]
    checked = [e["detail"] for e in out["trace"] if e["event"] == "model_answer"]
    assert checked[0]["answer"] == "1969" and checked[0]["unsure"] is False
    # A guess (its digits unlikely) and an UNKNOWN are "Unknown", with their own reason.
    for says in (answered(("19", 0.9), ("4", 0.2), ("1", 0.2)), answered(("UNKNOWN", 0.9))):
        out, prompts = _unsure_run(says, t_a=0.8)
        assert out["abstained"] is True and out["reason"] == "model_unsure"
        assert prompts == []  # no answer is generated
    # Unset for an injected model: no check, no call more.
    out, _ = _unsure_run(answered(("UNKNOWN", 0.9)))
    assert out["basis"] == "model"
    assert not [e for e in out["trace"] if e["event"] == "model_answer"]


def test_without_token_probabilities_the_model_is_unsure() -> None:
    out, _ = _unsure_run(AIMessage(content="1969"), t_a=0.5)
    assert out["reason"] == "model_unsure"


def test_verify_off_never_makes_unknown_unreachable() -> None:
    out, prompts = run(0.1, "B", verify=False)
    assert out["abstained"] is True and out["reason"] == "no_trusted_source"
    assert prompts == []  # "Unknown" costs no generation


def test_web_results_are_scored_with_the_knowledge_bases_embeddings() -> None:
    web = scripted_retriever([doc("w", "The Moon landing was in 1969.", similarity=0.99)])
    parts = Components(
        chat_model=RecordingGenerator(messages=iter([AIMessage(content="1969 [1].")]), prompts=[]),
        judge_model=judge_model(components("Apollo 11"), label("not_relevant"), verdict(True)),
        retriever=scripted_retriever([doc("saturn", "Saturn has rings.")]),
        web_search=web,
        embeddings=DeterministicFakeEmbedding(size=16),
    )
    config = {"configurable": {"gate": False, "max_iterations": 1}}
    out = build_graph(parts, retry_interval=0).invoke({"question": "When?"}, config)
    searched = next(e for e in out["trace"] if e["event"] == "searched")["detail"]
    assert searched["similarity"] == "knowledge-base cosine"
    decided = next(e for e in out["trace"] if e["event"] == "decided")["detail"]
    # The backend's 0.99 is not on the knowledge base's scale and is not what S uses.
    assert decided["scores"]["w"] is not None and decided["scores"]["w"] != round(
        0.7 * 0.99 + 0.3 * 0.5, 4
    )


def test_without_the_knowledge_bases_embeddings_web_results_stay_unscored() -> None:
    parts = Components(
        chat_model=RecordingGenerator(messages=iter([AIMessage(content="1969.")]), prompts=[]),
        judge_model=judge_model(components("Apollo 11"), label("not_relevant"), knows="B"),
        retriever=scripted_retriever([doc("saturn", "Saturn has rings.")]),
        web_search=scripted_retriever([doc("w", "The Moon landing was in 1969.")]),
    )
    config = {"configurable": {"gate": False, "max_iterations": 1}}
    out = build_graph(parts, retry_interval=0).invoke({"question": "When?"}, config)
    decided = next(e for e in out["trace"] if e["event"] == "decided")["detail"]
    assert decided["unscored"] == ["w"] and decided["s_max"] is None
    assert out["abstained"] is True and out["reason"] == "no_trusted_source"


def _namesake_run(
    page: str,
    title: str,
    question: str = "In what year was Dravstead Avionics founded?",
    **settings: Any,
) -> tuple[dict[str, Any], list[str]]:
    generate = RecordingGenerator(messages=iter([AIMessage(content="In 1960.")]), prompts=[])
    parts = Components(
        chat_model=generate,
        judge_model=judge_model(components("Dravstead"), label("not_relevant"), knows="A"),
        retriever=scripted_retriever([doc("d", page, title=title, similarity=0.1)]),
    )
    configurable = {"gate": False, "max_iterations": 1, "web_search": "none", **settings}
    config = {"configurable": configurable}
    out = build_graph(parts, retry_interval=0).invoke({"question": question}, config)
    return out, generate.prompts  # type: ignore[return-value]


def test_r_m_is_refused_when_the_knowledge_base_names_only_namesakes() -> None:
    # The knowledge base knows Dravstead Aircraft, not Dravstead Avionics: the model's
    # confidence about the latter is a confusion, so no answer from its own knowledge.
    out, prompts = _namesake_run("Dravstead Aircraft was founded in 1911.", "Dravstead Aircraft")
    assert out["abstained"] is True and out["reason"] == "namesakes_only"
    assert prompts == []
    namesakes = [e["detail"] for e in out["trace"] if e["event"] == "namesakes_only"]
    assert namesakes == [{"basis": "Unknown", "similar": ["Dravstead Aircraft"]}]


def test_r_m_is_refused_for_a_name_nothing_retrieved_names() -> None:
    # Nothing retrieved names Dravstead at all: a name nobody mentions is not one the
    # model knows ("the Basogrer office opens at 9:00 AM").
    out, prompts = _namesake_run("Saturn has rings.", "Saturn")
    assert out["abstained"] is True and out["reason"] == "unnamed_subject"
    assert prompts == []
    assert events(out, "integrate", "unnamed_subject") == [{"basis": "Unknown", "retrieved": 1}]
    # A retrieved page that names the subject (though not trusted enough to answer
    # from) leaves SRA's R_M as it was; so does a question that names nothing.
    out, prompts = _namesake_run("Dravstead Avionics makes radios.", "Radios")
    assert out["basis"] == "model" and prompts == [generate_prompt.OPEN_WITHOUT_KNOWLEDGE]
    out, prompts = _namesake_run("Saturn has rings.", "Saturn", "When were radios invented?")
    assert out["basis"] == "model" and prompts == [generate_prompt.OPEN_WITHOUT_KNOWLEDGE]
    # Off, the paper's switch.
    out, _ = _namesake_run("Saturn has rings.", "Saturn", namesake_guard=False)
    assert out["basis"] == "model"
