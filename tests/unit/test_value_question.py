"""A yes/no question that asks a value after it, drafted again as the value's question."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from judged_rag.components.llm import read_question
from judged_rag.core.asked import value_clause
from tests.fakes import doc, events, generator, judge_model, quote, scripted_retriever

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


def run(question: str, *internal: AIMessage, drafts: tuple[str, ...], **settings: Any) -> Any:
    """One round over `PAGE`: the judge copies "40 hours", then `internal` replies."""
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(
            quote("40 hours", **{"40": 0.95, "NONE": 0.05}), *internal, knows="B"
        ),
        retriever=scripted_retriever([PAGE]),
    )
    graph = build_graph(parts, retry_interval=0)
    base = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 1, **base, **settings},
    }
    return graph.invoke({"question": question}, config)  # type: ignore[arg-type]


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
    out = run(REWRITTEN, drafts=("I don't know.",))
    assert out["abstained"] is True and out["reason"] == "model_declined"
    assert not events(out, "generate", "value_question") and out["cost"]["llm_calls"] == 3
    # Switched off: the same.
    out = run(COMPOUND, drafts=("I don't know.",), value_question=False)
    assert out["abstained"] is True and out["cost"]["llm_calls"] == 3
    # A first draft that answers: nothing more.
    out = run(COMPOUND, drafts=("Yes, at most 40 hours [1].",))
    assert out["abstained"] is False and not events(out, "generate", "value_question")


def test_the_first_decline_stands_when_no_question_is_read_or_no_call_is_left() -> None:
    unreadable = [AIMessage(content="Sure, here it is.") for _ in range(4)]
    out = run(COMPOUND, *unreadable, drafts=("I don't know.", "At most 40 hours [1]."))
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
    )
    assert out["abstained"] is True and out["cost"]["llm_calls"] == 3
    assert events(out, "generate", "budget")[0]["stops"] == "value_question"
