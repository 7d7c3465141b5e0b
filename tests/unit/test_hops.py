"""A question that names something only by description is asked in two steps."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag import Components, build_graph
from judged_rag.core import hops
from judged_rag.state import Hop, Judgment
from tests.fakes import (
    PromptRecorder,
    doc,
    generator,
    highly,
    judge_model,
    quote,
    scripted_retriever,
    tool,
    verdict,
)

QUESTION = "What is the phone extension of the head of engineering?"
FIRST = "Who is the head of engineering?"
NAMED = "What is the phone extension of the head of engineering (Nazal Kutail)?"
ORG = doc(
    "org", "Management team\n- Head of Finance: Ana Lima\n- Head of Engineering: Nazal Kutail"
)
DIRECTORY = doc(
    "dir", "| Name | Extension |\n|---|---|\n| Ana Lima | 2857 |\n| Nazal Kutail | 4190 |"
)
NONE = quote("NONE", NONE=0.95, Naz=0.05)


def hop_plan(describes: str = "the head of engineering", first: str = FIRST) -> Any:
    return tool("HopPlan", describes=describes, first_question=first)


@pytest.mark.parametrize(
    ("question", "describes", "first", "planned"),
    [
        (QUESTION, "the head of engineering", FIRST, True),
        (QUESTION, "The Head of Engineering", "who is the head of engineering", True),
        (QUESTION, "", "", False),
        (QUESTION, "the head of sales", "Who is the head of sales?", False),  # not in it
        ("What is the budget of Project Bifol?", "Project Bifol", "What is Project Bifol?", False),
        # The description is what is asked, or the first question asks it again.
        (QUESTION, "the phone extension of the head of engineering", QUESTION, False),
        (
            "What savings did Ana Lima expect?",
            "savings",
            "What savings did Ana Lima expect?",
            False,
        ),
        (
            "What yearly savings from new lighting did Ana Lima expect?",
            "yearly savings from new lighting",
            "What yearly savings from new lighting did Ana Lima expect?",
            False,
        ),
    ],
)
def test_a_hop_is_planned_only_for_a_description_the_question_holds(
    question: str, describes: str, first: str, planned: bool
) -> None:
    hop = hops.plan(question, describes, first, 0)
    assert (hop is not None) is planned
    if hop is not None:
        assert hop["describes"].lower() == "the head of engineering"
        assert hop["question"].lower() == FIRST.lower()  # a question mark added


def test_the_name_found_is_written_after_the_description() -> None:
    hop = Hop(
        question=FIRST, describes="the head of engineering", iteration=0, answer=None, doc_id=None
    )
    assert hops.resolved(QUESTION, hop) == QUESTION
    named = {**hop, "answer": "Nazal Kutail", "doc_id": "org"}
    assert hops.resolved(QUESTION, named) == NAMED  # type: ignore[arg-type]
    state: Any = {"question": QUESTION, "hop": hop, "iteration": 0}
    assert hops.asked(state) == FIRST
    assert hops.asked({**state, "iteration": 1, "hop": named}) == NAMED
    assert hops.summary(named) == f"{FIRST} → Nazal Kutail"  # type: ignore[arg-type]
    assert hops.summary(hop) == f"{FIRST} → nothing"


def judged(doc_id: str, evidence: str, score: float, *, hop: bool = True) -> Judgment:
    j = highly(doc_id, evidence, score)
    if hop:
        j["hop"] = True
    return j


def test_the_first_step_is_answered_by_its_best_copy_that_is_a_name() -> None:
    found = [
        judged("a", "Ana Lima", 0.6),
        judged("b", "Nazal Kutail", 0.8),
        judged("c", "Nazal Kutail runs engineering " * 5, 0.9),  # a passage, not a name
        judged("d", "Someone Else", 0.95, hop=False),  # judged for the question itself
    ]
    assert hops.answered(found) == ("Nazal Kutail", "b")
    assert hops.answered([{**found[1], "label": "somewhat_relevant"}]) is None  # type: ignore[list-item]


def run(parts: Components, recorder: PromptRecorder | None = None) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    settings = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 3, "hop_questions": True, **settings},
        "callbacks": [recorder] if recorder else [],
    }
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def test_a_described_subject_is_named_first_and_then_asked_about() -> None:
    answer = "Nazal Kutail, the head of engineering [1], has extension 4190 [2]."
    retriever = scripted_retriever([ORG, DIRECTORY], [DIRECTORY, ORG])
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            hop_plan(),
            quote("Nazal Kutail", Naz=0.95, NONE=0.05),  # org, for the first question
            NONE,  # directory, for the first question
            NONE,  # org, for the question (documents are judged in the order found)
            quote("4190", **{"4": 0.95, "NONE": 0.05}),  # directory, for the question
            verdict(),
        ),
        retriever=retriever,
    )
    recorder = PromptRecorder()
    out = run(parts, recorder)
    assert retriever.queries == [FIRST, NAMED]  # type: ignore[attr-defined]
    assert out["answer"] == answer and not out["abstained"]
    assert out["route"]["hop"] == f"{FIRST} → Nazal Kutail"
    assert out["route"]["iterations"] == 2
    # The page that named the person is read first, beside the one with the extension.
    assert [c["doc_id"] for c in out["citations"]] == ["org", "dir"]
    judge_prompts = [p for p in recorder.prompts if "Nazal Kutail | 4190" in p]
    assert any(FIRST in p for p in judge_prompts) and any(NAMED in p for p in judge_prompts)
    # The generator read both pages, with the question and its name.
    both = [p for p in recorder.prompts if NAMED in p and "4190" in p and "Engineering: Nazal" in p]
    assert both and both[0].startswith('<document n="1" title="org">')
    found = next(e["detail"] for e in out["trace"] if e["event"] == "hop" and e["node"] == "assess")
    assert found == {"question": FIRST, "answer": "Nazal Kutail", "document": "org"}


def test_when_nothing_names_it_the_question_is_asked_as_it_is() -> None:
    retriever = scripted_retriever([DIRECTORY], [DIRECTORY])
    parts = Components(
        chat_model=generator("unused"),
        judge_model=judge_model(hop_plan(), NONE, NONE, NONE, knows="B"),
        retriever=retriever,
    )
    out = run(parts)
    assert retriever.queries[:2] == [FIRST, QUESTION]  # type: ignore[attr-defined]
    assert out["route"]["hop"] == f"{FIRST} → nothing"
    assert out["abstained"] and out["answer"] == "Unknown"
    # The directory, found for the first question, was judged again for the question.
    again = [e["detail"] for e in out["trace"] if e["event"] == "retrieved"]
    assert again[1]["judged_again"] == 1 and again[1]["new"] == 0


def test_a_question_that_names_its_subject_costs_one_call_more_and_no_round() -> None:
    retriever = scripted_retriever([DIRECTORY])
    parts = Components(
        chat_model=generator("It is 4190 [1]."),
        judge_model=judge_model(
            tool("HopPlan", describes="", first_question=""),
            quote("4190", **{"4": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=retriever,
    )
    graph = build_graph(parts, retry_interval=0)
    config = {
        "max_concurrency": 1,
        "configurable": {
            "gate": False,
            "hop_questions": True,
            "judge": "extract",
            "judge_threshold": 0.7,
            "web_search": "none",
        },
    }
    out = graph.invoke({"question": "What is the phone extension of Nazal Kutail?"}, config)  # type: ignore[arg-type]
    assert out["answer"] == "It is 4190 [1]." and "hop" not in out["route"]
    assert retriever.queries == ["What is the phone extension of Nazal Kutail?"]  # type: ignore[attr-defined]
    assert any(e["event"] == "no_hop" for e in out["trace"])
