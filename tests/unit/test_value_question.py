"""A yes/no question that asks a value after it, asked as the value's question.

By default (`value_question="after_decline"`) a declined first draft is drafted again
as the value's question; with "first" the judge and the generator answer it from the
start.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from judged_rag.components.llm import read_question
from judged_rag.core.asked import value_clause
from tests.fakes import (
    PromptRecorder,
    doc,
    events,
    generator,
    judge_model,
    quote,
    scripted_retriever,
)

PAGE = doc("Working time", "Staff may build up at most 40 hours of overtime.")
COMPOUND = "May I build up extra hours, and up to how many?"
REWRITTEN = "How many extra hours can I build up?"


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        (COMPOUND, "up to how many?"),
        (
            "Am I allowed to book any hotel, or what is the nightly limit?",
            "what is the nightly limit?",
        ),
        ("Is it permitted to work from abroad, and for how many days?", "for how many days?"),
        ("Is there a company car scheme, and who qualifies?", "who qualifies?"),
        ("can I carry over leave and how many days", "how many days"),
        # A preposition and a few words may lead the question word.
        (
            "May I fly business class, and on flights of what length?",
            "on flights of what length?",
        ),
        ("Is it permitted, and under which conditions?", "under which conditions?"),
        # Not a yes/no question, or nothing asked after it.
        ("How many extra hours may I build up, and when?", None),
        ("What is the nightly limit, and what is it in capitals?", None),
        ("May I build up extra hours?", None),
        ("Can contractors and staff fly business class?", None),
        ("Describe the rules for hot desks, and how they are booked.", None),
        ("Can I go home, or must I stay where I am?", None),
    ],
)
def test_the_value_a_yes_no_question_asks_after_it(question: str, clause: str | None) -> None:
    assert value_clause(question) == clause


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        (REWRITTEN, REWRITTEN),
        (f'"{REWRITTEN}"\n', REWRITTEN),
        (f"\n\n{REWRITTEN}\nThat is the question.", REWRITTEN),
        ("Sure, here it is.", None),
        ("", None),
        ("Why " + "very " * 45 + "long?", None),
    ],
)
def test_a_rewritten_question_is_read_from_the_first_line(reply: str, read: str | None) -> None:
    assert read_question(AIMessage(content=reply)) == read


def run(
    question: str,
    *internal: AIMessage,
    drafts: tuple[str, ...],
    first: tuple[AIMessage, ...] = (),
    recorder: PromptRecorder | None = None,
    **settings: Any,
) -> Any:
    """One round over `PAGE`: `first` replies, the judge copies "40 hours", `internal` replies."""
    retriever = scripted_retriever([PAGE])
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(
            *first, quote("40 hours", **{"40": 0.95, "NONE": 0.05}), *internal, knows="B"
        ),
        retriever=retriever,
    )
    graph = build_graph(parts, retry_interval=0)
    base = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config: dict[str, Any] = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 1, **base, **settings},
    }
    if recorder is not None:
        config["callbacks"] = [recorder]
    out = graph.invoke({"question": question}, config)  # type: ignore[arg-type]
    return {**out, "queries": retriever.queries}  # type: ignore[attr-defined]


def test_a_yes_no_question_asking_a_value_is_judged_and_answered_as_its_value_question() -> None:
    recorder = PromptRecorder()
    out = run(
        COMPOUND,
        first=(AIMessage(content=REWRITTEN),),
        drafts=("Staff may build up at most 40 hours [1].",),
        recorder=recorder,
        value_question="first",
    )
    assert out["abstained"] is False and "40 hours [1]" in out["answer"]
    assert events(out, "parse", "value_question")[0]["asked"] == REWRITTEN
    # Retrieved for the question as written; judged and drafted for the value's question.
    assert out["queries"] == [COMPOUND]
    read = [p for p in recorder.prompts if "at most 40 hours of overtime" in p]
    assert len(read) == 2 and all(f"Question: {REWRITTEN}" in p for p in read)
    assert not any(COMPOUND in p for p in read)
    # The rewrite, the judgment, C_M and the draft; the draft restates the judge's copy,
    # so no verifier call, and no second rewrite after it.
    assert out["cost"]["llm_calls"] == 4
    assert not events(out, "generate", "value_question")


def test_a_question_asking_no_value_after_a_yes_no_one_is_not_rewritten() -> None:
    for question in (REWRITTEN, "May I build up extra hours?"):
        out = run(
            question,
            drafts=("Staff may build up at most 40 hours [1].",),
            value_question="first",
        )
        assert out["abstained"] is False
        assert not events(out, "parse", "value_question") and out["cost"]["llm_calls"] == 3


def test_an_unreadable_rewrite_leaves_the_question_as_written() -> None:
    recorder = PromptRecorder()
    unreadable = tuple(AIMessage(content="Sure, here it is.") for _ in range(3))
    out = run(
        COMPOUND,
        first=unreadable,
        drafts=("Yes, at most 40 hours [1].",),
        recorder=recorder,
        value_question="first",
    )
    assert out["abstained"] is False and "40 hours" in out["answer"]
    skipped = events(out, "parse", "value_question_skipped")
    assert skipped and skipped[0]["why"] == "no question read"
    read = [p for p in recorder.prompts if "at most 40 hours of overtime" in p]
    assert read and all(f"Question: {COMPOUND}" in p for p in read)
    # Three attempts at the rewrite, then the judgment, C_M and the draft.
    assert out["cost"]["llm_calls"] == 6


def test_a_declined_yes_no_question_is_drafted_again_as_its_value_question() -> None:
    out = run(
        COMPOUND,
        AIMessage(content=REWRITTEN),
        drafts=("I don't know.", "Staff may build up at most 40 hours [1]."),
    )
    assert out["abstained"] is False and "40 hours [1]" in out["answer"]
    assert events(out, "generate", "value_question")[0]["asked"] == REWRITTEN
    # The judgment, C_M, the first draft, the rewrite and the second draft; the second
    # draft restates the judge's copy, so no verifier call.
    assert out["cost"]["llm_calls"] == 5


def test_only_a_declined_yes_no_question_asking_a_value_is_drafted_again() -> None:
    # A question asking the value directly: its decline stands.
    out = run(REWRITTEN, drafts=("I don't know.",), value_question="after_decline")
    assert out["abstained"] is True and out["reason"] == "model_declined"
    assert not events(out, "generate", "value_question") and out["cost"]["llm_calls"] == 3
    # Switched off: the same.
    out = run(COMPOUND, drafts=("I don't know.",), value_question="off")
    assert out["abstained"] is True and out["cost"]["llm_calls"] == 3
    # A first draft that answers: nothing more.
    out = run(COMPOUND, drafts=("Yes, at most 40 hours [1].",), value_question="after_decline")
    assert out["abstained"] is False and not events(out, "generate", "value_question")


def test_the_first_decline_stands_when_no_question_is_read_or_no_call_is_left() -> None:
    unreadable = [AIMessage(content="Sure, here it is.") for _ in range(4)]
    out = run(
        COMPOUND,
        *unreadable,
        drafts=("I don't know.", "At most 40 hours [1]."),
        value_question="after_decline",
    )
    assert out["abstained"] is True and out["reason"] == "model_declined"
    skipped = events(out, "generate", "value_question_skipped")
    assert skipped and skipped[0]["why"] == "no question read"
    # Three calls spent (judgment, C_M, draft) and one kept for the verifier: none left
    # for the rewrite and its draft.
    out = run(
        COMPOUND,
        AIMessage(content=REWRITTEN),
        drafts=("I don't know.", "At most 40 hours [1]."),
        max_llm_calls=5,
        value_question="after_decline",
    )
    assert out["abstained"] is True and out["cost"]["llm_calls"] == 3
    assert events(out, "generate", "budget")[0]["stops"] == "value_question"
