"""Citation repair: a correct claim that cites the wrong document is re-pointed."""

from __future__ import annotations

from typing import Any

from judged_rag.core.citations import content_words, repair_citations, support


def docs(*texts: str) -> list[Any]:
    return [{"content": t} for t in texts]


KNOWLEDGE = docs(
    "Apollo 11 landed on the Moon on 20 July 1969.",
    "The Eiffel Tower stands in Paris.",
    "Neil Armstrong was the first person to walk on the Moon.",
)


def test_support_counts_the_claims_content_words_the_document_holds() -> None:
    assert content_words("The Tower is in Paris [2].") == {"tower", "paris", "2"}
    # "apollo", "11", "landed", "1969" of 4 content words are in document 1
    assert support("Apollo 11 landed in 1969", KNOWLEDGE[0]["content"]) == 1.0
    assert support("Apollo 11 landed in 1969", KNOWLEDGE[2]["content"]) == 0.0
    assert support("the of in", "anything") == 0.0


def test_a_named_unsupported_claim_moves_to_the_document_that_states_it() -> None:
    draft = "Apollo 11 landed on the Moon on 20 July 1969 [3][2]. Armstrong walked first [3]."
    fixed, repairs = repair_citations(draft, KNOWLEDGE, ["Apollo 11 landed on 20 July 1969"])
    assert fixed == "Apollo 11 landed on the Moon on 20 July 1969 [1]. Armstrong walked first [3]."
    assert [(r.cited, r.to, r.support) for r in repairs] == [((3, 2), 1, 1.0)]


def test_a_citation_to_no_document_is_repaired_without_being_named() -> None:
    fixed, repairs = repair_citations("The Eiffel Tower stands in Paris [9].", KNOWLEDGE, [])
    assert fixed == "The Eiffel Tower stands in Paris [2]." and repairs[0].to == 2


def test_nothing_moves_without_a_clearly_better_document() -> None:
    # Half the words in document 1 is below the 0.75 bar.
    weak = "Apollo 11 crashed on Mars in 1975 [3]."
    assert repair_citations(weak, KNOWLEDGE, [weak]) == (weak, [])
    # The cited document already states it: nothing to repair.
    right = "Armstrong was the first person on the Moon [3]."
    assert repair_citations(right, KNOWLEDGE, [right]) == (right, [])
    # A sentence the verifier did not name keeps its citation.
    other = "Apollo 11 landed in 1969 [2]."
    assert repair_citations(other, KNOWLEDGE, ["The Eiffel Tower is in Rome"]) == (other, [])
