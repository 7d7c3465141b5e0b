"""Reading a short answer and its tokens' probabilities (the check on R_M)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from judged_rag.components.llm import read_short_answer
from tests.fakes import answered


def test_the_first_line_and_its_tokens_odds() -> None:
    reply = answered(("\n", 0.9), ("Leon", 0.8), ("ardo", 0.98), ("\n", 0.5), ("Note", 0.01))
    found = read_short_answer(reply)
    assert found is not None
    assert found.text == "Leonardo"
    assert found.probabilities == pytest.approx([0.8, 0.98])  # the break and the note left out
    assert found.confidence == pytest.approx((0.8 * 0.98) ** 0.5, abs=1e-4)


def test_a_guess_is_less_sure_than_a_known_answer() -> None:
    guess = read_short_answer(answered(("19", 0.9), ("4", 0.2), ("1", 0.15)))
    known = read_short_answer(answered(("19", 0.99), ("6", 0.95), ("9", 0.97)))
    assert guess is not None and known is not None
    assert guess.confidence is not None and known.confidence is not None
    assert guess.confidence < 0.5 < known.confidence


def test_without_token_probabilities_the_text_stands_alone() -> None:
    found = read_short_answer(AIMessage(content="Paris"))
    assert found is not None and found.text == "Paris"
    assert found.probabilities == [] and found.confidence is None


def test_tokens_that_do_not_spell_the_reply_are_not_read() -> None:
    reply = answered(("Par", 0.9), ("is", 0.9))
    reply.content = "Rome"  # a backend whose tokens disagree with its text
    found = read_short_answer(reply)
    assert found is not None and found.text == "Rome" and found.confidence is None


@pytest.mark.parametrize("text", ["", "  \n \n"])
def test_an_empty_reply_is_unreadable(text: str) -> None:
    assert read_short_answer(AIMessage(content=text)) is None
