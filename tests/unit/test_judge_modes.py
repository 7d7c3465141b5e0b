"""The ways of judging: structured (see test_routes), one letter, extracting, and off."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from judged_rag import Components, Configuration, build_graph
from judged_rag.components.llm import LetterChoice, read_extraction, read_letter
from judged_rag.configuration import JUDGE_SIMILARITY_WEIGHTS, SRA_T_M, T_M_MEASURED
from judged_rag.core.asked import worded_as_asked
from judged_rag.core.citations import names_only
from judged_rag.core.quotes import (
    grounded,
    names_subject,
    quoted_within,
    subject_coverage,
    subject_terms,
)
from judged_rag.nodes.judge import judge_score, letter_label
from judged_rag.nodes.step import NodeDeps
from judged_rag.nodes.verify import sourced
from tests.fakes import (
    components,
    doc,
    events,
    generator,
    judge_model,
    label,
    letter,
    quote,
    scripted_retriever,
    tool,
    verdict,
)

APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
SATURN = doc("saturn", "Saturn V was the rocket of the Apollo programme.")
QUESTION = "When did Apollo 11 land on the Moon?"


def run(parts: Components, question: str = QUESTION, **settings: Any) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    config = {"max_concurrency": 1, "configurable": {"gate": False, **settings}}
    return graph.invoke({"question": question}, config)  # type: ignore[arg-type,return-value]


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
    # The letter's probabilities alone (weight 0): see below for the cosine's part.
    out = run(parts, judge="letter", alignment=True, judge_similarity_weight=0.0)
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


GARBAGE = letter("{", **{"{": 0.97, "A": 0.01})  # letters hold too little probability


@pytest.mark.parametrize(
    ("mode", "unreadable", "readable"),
    [
        (
            "letter",
            [AIMessage(content="Sure! The answer is"), GARBAGE, GARBAGE],
            letter("A", A=0.9, B=0.05, C=0.05),
        ),
        (
            "extract",
            [AIMessage(content=""), AIMessage(content=" "), AIMessage(content="\n")],
            quote("20 July 1969", **{"20": 0.9, "NONE": 0.1}),
        ),
    ],
)
def test_unreadable_judgment_is_retried_then_recorded_as_fallback(
    mode: str, unreadable: list[AIMessage], readable: AIMessage
) -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed in 1969 [1]."),
        judge_model=judge_model(*unreadable, readable, verdict()),
        retriever=scripted_retriever([SATURN, APOLLO]),
    )
    out = run(parts, judge=mode, max_iterations=1)
    labels = judged(out)
    assert labels["saturn"]["by"] == "fallback"
    assert labels["saturn"]["label"] == "somewhat_relevant"
    assert labels["apollo"]["label"] == "highly_relevant"
    fallbacks = [e for e in out["trace"] if (e["node"], e["event"]) == ("judge", "fallback")]
    assert len(fallbacks) == 1 and fallbacks[0]["detail"]["error"] == "MalformedOutputError"
    # three attempts + one judgment + C_M + generate + verify
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


# ------------------------------------------------------------------ the extracting judge


def test_extracting_judge_labels_by_the_quote_and_its_probability() -> None:
    unscored = {"similarity": None}  # no cosine: the score is the LLM's alone
    apollo = doc("apollo", APOLLO.page_content, **unscored)
    saturn = doc("saturn", SATURN.page_content, **unscored)
    moon = doc("moon", "The Moon is Earth's only natural satellite.", **unscored)
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            quote("20 July 1969", **{"20": 0.7, "NONE": 0.2, "July": 0.1}),
            quote("NONE", NONE=0.9, Apollo=0.1),
            quote("in 1969", **{"in": 0.6, "NONE": 0.4}),  # not in the Moon document
            verdict(),
        ),
        retriever=scripted_retriever([apollo, saturn, moon]),
    )
    out = run(parts, judge="extract", alignment=True, judge_threshold=0.6)
    labels = judged(out)
    # The quote is in the document: p = 1 - P(NONE) = 0.8, and the score is p.
    assert labels["apollo"]["label"] == "highly_relevant"
    assert labels["apollo"]["p_highly"] == pytest.approx(0.8)
    assert labels["apollo"]["judge_score"] == pytest.approx(0.8)
    assert labels["apollo"]["evidence"] == "20 July 1969"
    assert labels["apollo"]["score"] == pytest.approx(0.7 * 0.5 + 0.3 * 0.8)  # SRA's S: F = 0.5
    # NONE: nothing to quote.
    assert labels["saturn"]["label"] == "not_relevant"
    assert labels["saturn"]["p_highly"] == 0.0
    # An answer the document does not hold is no evidence, whatever its probability.
    assert labels["moon"]["label"] == "somewhat_relevant"
    assert labels["moon"]["p_highly"] == 0.0 and labels["moon"]["evidence"] == ""
    skipped = [e for e in out["trace"] if (e["node"], e["event"]) == ("parse", "skipped")]
    assert skipped and "extract" in skipped[0]["detail"]["why"]
    combined = [e for e in out["trace"] if (e["node"], e["event"]) == ("combine", "combined")]
    assert combined[0]["detail"]["chosen"] == ["apollo"]  # D_H alone
    # No cosine, so SRA trusts no retrieval: R_M, whose answer verify does not check.
    assert out["basis"] == "model"
    assert out["cost"]["llm_calls"] == 5  # three extractions, C_M, generate


def test_extracting_judge_combines_the_probability_with_the_cosine() -> None:
    close = doc("close", "Apollo 11 landed on the Moon on 20 July 1969.", similarity=0.6)
    far = doc("far", "The Apollo programme ran from 1961 to 1972.", similarity=0.2)
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            quote("20 July 1969", **{"20": 0.9, "NONE": 0.1}),
            quote("1961 to 1972", **{"196": 0.9, "NONE": 0.1}),
            verdict(),
        ),
        retriever=scripted_retriever([close, far]),
    )
    out = run(parts, judge="extract", judge_threshold=0.6, judge_similarity_weight=0.5)
    labels = judged(out)
    # 0.5 * 0.9 + 0.5 * 0.6 = 0.75 and 0.5 * 0.9 + 0.5 * 0.2 = 0.55: the same quote
    # confidence, but only the close document reaches 0.6.
    assert labels["close"]["judge_score"] == pytest.approx(0.75)
    assert labels["far"]["judge_score"] == pytest.approx(0.55)
    assert labels["close"]["label"] == "highly_relevant"
    assert labels["far"]["label"] == "somewhat_relevant"


def test_an_unset_cosine_weight_is_the_one_the_judges_threshold_was_measured_at() -> None:
    for judge in ("extract", "letter", "list"):
        assert Configuration(judge=judge).judge_weight == JUDGE_SIMILARITY_WEIGHTS[judge]
    assert Configuration(judge="extract", judge_similarity_weight=0.25).judge_weight == 0.25
    assert Configuration(judge="extract", judge_similarity_weight=0.0).judge_weight == 0.0
    # The graph scores with it: 0.75 * 0.9 + 0.25 * 0.2 = 0.725 for the far document.
    far = doc("far", "Apollo 11 landed on the Moon on 20 July 1969.", similarity=0.2)
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(quote("20 July 1969", **{"20": 0.9, "NONE": 0.1}), verdict()),
        retriever=scripted_retriever([far]),
    )
    out = run(parts, judge="extract", judge_similarity_weight=0.25)
    assert judged(out)["far"]["judge_score"] == pytest.approx(0.725)


def test_judge_score_arithmetic() -> None:
    assert judge_score(0.8, 0.4, 0.5) == pytest.approx(0.6)
    assert judge_score(0.8, 0.4, 0.25) == pytest.approx(0.7)
    assert judge_score(0.8, 0.4, 0.0) == pytest.approx(0.8)
    assert judge_score(0.3, None, 0.5) == pytest.approx(0.3)  # no cosine: the LLM alone


def test_a_quote_counts_only_when_it_is_in_the_document() -> None:
    text = "Apollo 11 landed on the Moon on 20 July 1969, at Tranquility Base."
    assert grounded("20 July 1969", text)
    assert grounded("tranquility base.", text)  # case and punctuation aside
    assert grounded("Apollo  11", text)  # spacing aside
    assert grounded("Tranquility Base", "Tranquílity Base")  # accents aside
    assert not grounded("19", text)  # a whole word, not part of "1969"
    assert not grounded("21 July 1969", text)
    assert not grounded("", text) and not grounded("...", text)


def test_the_names_a_question_asks_about() -> None:
    assert subject_terms("In what year did Vosk Tarren die?") == ["vosk", "tarren"]
    assert subject_terms("Vosk Tarren was born when?") == ["vosk", "tarren"]
    assert subject_terms("When did Apollo 11 land on the Moon?") == ["apollo", "moon"]
    assert subject_terms("In which state was Lyndon B. Johnson born?") == ["lyndon", "b", "johnson"]
    assert subject_terms("find the largest continent") == []
    assert subject_coverage("find the largest continent", "anything") is None
    assert subject_coverage("When did Vosk Tarren die?", "VOSK TARREN (1890–1950)") == 1.0
    assert subject_coverage("When did Vosk Tarren die?", "Tarrenson and Vosken") == 0.0
    assert subject_coverage("When did Vosk Tarren die?", "Lufen Tarren", "Title") == 0.5


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("In what year did Vosk Tarren die?", [["vosk", "tarren"]]),
        ("When was the Great Wall of China built?", [["great", "wall", "china"]]),
        ("When did Lokaivom van der Nikemer die?", [["lokaivom", "nikemer"]]),
        ("When did Apollo 11 land on the Moon?", [["apollo", "11"], ["moon"]]),
        (
            "Which was founded first, Orkmere Marine or Talvik Freight?",
            [["orkmere", "marine"], ["talvik", "freight"]],
        ),
        ("find the largest continent", []),
        # A sentence capitalises its first word: alone, it is no name, unless an abbreviation.
        ("Above what cost does a course need approval?", []),
        ("Over what connection does the GFBC reach the network?", [["gfbc"]]),
        ("GFBC: how loud is it?", [["gfbc"]]),
        ("Dotis Tobi was born when?", [["dotis", "tobi"]]),
        # Days and months are capitalised, but no page's subject.
        ("What are the Saturday opening hours of the Graider office?", [["graider"]]),
        ("What did Ulva Mills decide in March 2024?", [["ulva", "mills"]]),
    ],
)
def test_a_question_names_its_subjects_one_name_at_a_time(
    question: str, names: list[list[str]]
) -> None:
    from judged_rag.core.quotes import subject_names

    assert subject_names(question) == names


def test_a_sibling_page_saying_saturdays_does_not_name_the_office_asked_about() -> None:
    question = "What are the Saturday opening hours of the Graider office?"
    sibling = "Bugrai office\nOn Saturdays the office opens from 10:00 to 14:00."
    assert not names_subject(question, "Bugrai office", sibling)
    assert names_subject(question, "Graider office", "The office opens at 7:00.")


def test_a_question_about_two_names_asks_each_document_for_one_of_them() -> None:
    question = "Which was founded first, Orkmere Marine or Talvik Freight?"
    # Each page names one of the two in full: it is about the question's subject.
    assert (
        subject_coverage(question, "Talvik Freight", "Talvik Freight was founded in 1961.") == 1.0
    )
    assert subject_coverage(question, "Orkmere Marine", "It was founded in 1987.") == 1.0
    # A sibling with the same first word names half of one name; a stranger none.
    assert subject_coverage(question, "Orkmere Shipyards", "Founded in 1990.") == 0.5
    assert subject_coverage(question, "Dalvey Mills", "Founded in 1990.") == 0.0


def test_a_quote_from_a_page_about_someone_else_is_no_evidence() -> None:
    question = "In what year did Vosk Tarren die?"
    own = doc("own", "Vosk Tarren (1890–1950) was a poet.", similarity=0.5)
    other = doc("other", "Lufen Neineri (1880–1959) was a painter.", similarity=0.6)
    parts = Components(
        chat_model=generator("Vosk Tarren died in 1950 [1]."),
        # One extraction: the other person's page is not sent to the model.
        judge_model=judge_model(quote("1950", **{"195": 0.95, "NONE": 0.05})),
        retriever=scripted_retriever([own, other]),
    )
    out = run(
        parts, question, judge="extract", judge_threshold=0.7, max_iterations=1, subject_check=True
    )
    labels = judged(out)
    assert labels["own"]["label"] == "highly_relevant" and labels["own"]["evidence"] == "1950"
    assert labels["other"]["label"] == "not_relevant"  # about someone else
    assert labels["other"]["by"] == "subject_check" and labels["other"]["evidence"] == ""
    # p 0 and the score a quote from it would get: (1 - w) * 0 + w * 0.6.
    w = JUDGE_SIMILARITY_WEIGHTS["extract"]
    assert labels["other"]["p_highly"] == 0.0
    assert labels["other"]["judge_score"] == pytest.approx(w * 0.6)
    # The extraction, C_M and the answer (which restates the quote: no verifier call).
    assert out["cost"]["llm_calls"] == 3 and out["answer"] == "Vosk Tarren died in 1950 [1]."
    # Off (the default), the judge is asked about every page, and any quote found in the
    # document counts ((1 - w) * 0.95 + w * 0.6).
    parts = Components(
        chat_model=generator("Vosk Tarren died in 1950 [1]."),
        judge_model=judge_model(
            quote("1950", **{"195": 0.95, "NONE": 0.05}),
            quote("1959", **{"195": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([own, other]),
    )
    out = run(parts, question, judge="extract", judge_threshold=0.7, max_iterations=1)
    assert judged(out)["other"]["label"] == "highly_relevant"
    assert judged(out)["other"]["by"] == "llm"


def test_by_default_a_page_that_never_names_the_subject_is_still_judged() -> None:
    # Minutes name a person once, then say "she": the chunk with the fact names nobody.
    question = "When does Priya Okafor expect the new site to open?"
    text = "She expects the new site to open in March 2027."

    def parts(chunk: str, *replies: Any) -> Components:
        return Components(
            chat_model=generator("In March 2027 [1]."),
            judge_model=judge_model(*replies, knows="B"),
            retriever=scripted_retriever([doc("minutes", chunk, similarity=0.55)]),
        )

    found = quote("March 2027", **{"March": 0.9, "NONE": 0.1})
    settings: dict[str, Any] = {"judge": "extract", "judge_threshold": 0.7, "max_iterations": 1}
    out = run(parts(text, found), question, **settings, subject_grounding=False)
    labels = judged(out)
    assert labels["minutes"]["by"] == "llm" and labels["minutes"]["evidence"] == "March 2027"
    assert labels["minutes"]["label"] == "highly_relevant"
    assert out["abstained"] is False and "March 2027" in out["answer"]
    # Judged the same with subject_grounding (the default), knowledge that names nobody
    # is not trusted; judged-rag's index gives such a chunk its note, which names her.
    out = run(parts(text, found), question, **settings)
    assert judged(out)["minutes"]["label"] == "highly_relevant" and out["abstained"] is True
    noted = f"[Context: earlier in this section: Priya Okafor]\n{text}"
    out = run(parts(noted, found), question, **settings)
    assert out["abstained"] is False and "March 2027" in out["answer"]
    # The lexical rule, asked for, discards the chunk without its note without a call.
    out = run(parts(text), question, **settings, subject_check=True, subject_grounding=False)
    assert judged(out)["minutes"]["by"] == "subject_check" and out["abstained"] is True


def test_support_about_someone_else_is_somewhat_relevant_and_ranked_after_the_subjects() -> None:
    # Another person's page gave a year with the judge sure of it; the subject's own page
    # fell just under the threshold. The other page is no support: the loop goes on,
    # and the subject's page leads the knowledge.
    question = "In what year was Drabruth Letel born?"
    own = doc("own", "Drabruth Letel\nDrabruth Letel (born 1917) is a writer.", similarity=0.45)
    other = doc("other", "Nevu Drabri\nNevu Drabri (1798–1855) was a poet.", similarity=0.75)

    def parts() -> Components:
        return Components(
            chat_model=generator("Drabruth Letel was born in 1917 [1]."),
            judge_model=judge_model(
                quote("1917", **{"191": 0.99, "NONE": 0.01}),  # 0.5 * 0.99 + 0.5 * 0.45
                quote("1798", **{"179": 0.99, "NONE": 0.01}),
                verdict(),
                knows="B",
            ),
            retriever=scripted_retriever([own, other]),
        )

    # At the cosine weight 0.5 (the subject's page's low cosine keeps its copy under 0.75).
    settings: dict[str, Any] = {
        "judge": "extract",
        "max_iterations": 1,
        "web_search": "none",
        "judge_similarity_weight": 0.5,
    }
    out = run(parts(), question, **settings)
    assert judged(out)["other"]["label"] == "highly_relevant"  # the judge's own label
    relabelled = [e["detail"] for e in out["trace"] if e["event"] == "not_grounded"]
    assert relabelled == [{"documents": ["other"]}]
    combined = next(e["detail"] for e in out["trace"] if e["event"] == "combined")
    assert combined["sets"]["D_H"] == 0 and combined["chosen"][0] == "own"
    assert out["answer"] == "Drabruth Letel was born in 1917 [1]." and not out["abstained"]
    # Off, the other person's year is the support the generator is given.
    out = run(parts(), question, **settings, subject_grounding=False)
    combined = next(e["detail"] for e in out["trace"] if e["event"] == "combined")
    assert combined["chosen"] == ["other"]


def test_pages_all_about_other_people_cost_no_judge_call() -> None:
    question = "In what year did Vosk Tarren die?"
    others = [
        doc("a", "Lufen Neineri (1880–1959) was a painter.", similarity=0.6),
        doc("b", "Maro Keltin (1870–1940) was a sculptor.", similarity=0.5),
    ]
    parts = Components(
        chat_model=generator("Vosk Tarren died in 1959."),  # never asked
        judge_model=judge_model(knows="B"),  # C_M: the model does not know it
        retriever=scripted_retriever(others),
    )
    out = run(
        parts,
        question,
        judge="extract",
        judge_threshold=0.7,
        max_iterations=1,
        web_search="none",
        subject_check=True,
    )
    assert {d["by"] for d in judged(out).values()} == {"subject_check"}
    assessed = next(e["detail"] for e in out["trace"] if e["event"] == "assessed")
    assert assessed["judged_by_llm"] == 0 and assessed["counts"]["not_relevant"] == 2
    # C_M is the only call and the only round; no generation without trusted knowledge.
    assert out["cost"]["llm_calls"] == 1 and out["cost"]["llm_rounds"] == 1
    assert out["answer"] == "Unknown" and out["reason"] == "no_trusted_source"


def test_a_copy_within_the_judges_own_words_is_the_evidence() -> None:
    leave = doc(
        "leave",
        "Employees may carry over up to 5 days of unused leave into the next year.",
        similarity=None,
    )
    sick = doc("sick", "Employees may self-certify absences of up to 3 days.", similarity=None)
    question = "Can I carry over unused leave, and how many days?"
    parts = Components(
        chat_model=generator("Yes: up to 5 days of unused leave carry over [1]."),
        judge_model=judge_model(
            # Not a copy as a whole; its run "carry over up to 5 days of unused leave
            # into the" is one.
            quote(
                "Yes, you can carry over up to 5 days of unused leave into the",
                Yes=0.9,
                NONE=0.1,
            ),
            # The only run the document holds is "up to", without a number: no copy.
            quote("Yes, up to a week.", Yes=0.9, NONE=0.1),
            verdict(),
        ),
        retriever=scripted_retriever([leave, sick]),
    )
    # Judged as asked (`value_question="off"`): the bundled judge's reply to a yes/no
    # question holds the copy within its own words.
    out = run(
        parts,
        question,
        judge="extract",
        judge_threshold=0.6,
        max_iterations=1,
        value_question="off",
    )
    labels = judged(out)
    assert labels["leave"]["label"] == "highly_relevant"
    assert labels["leave"]["evidence"] == "carry over up to 5 days of unused leave into the"
    assert labels["leave"]["p_highly"] == pytest.approx(0.9)
    assert labels["sick"]["label"] == "somewhat_relevant"
    assert labels["sick"]["evidence"] == ""


def test_a_time_worded_around_the_chunks_words_is_the_evidence() -> None:
    bodies = doc(
        "bodies",
        "WSB\nThe Workplace Services Board (WSB) runs the offices. It meets on the second "
        "Thursday of each month.",
        similarity=None,
    )
    charter = doc("charter", "The WSB decides each case by a vote.", similarity=None)
    parts = Components(
        chat_model=generator("The second Thursday of each month [1]."),
        judge_model=judge_model(
            # Not in the chunk as a whole ("The WSB meets"); the run after it is, and
            # names a weekday.
            quote("The WSB meets on the second Thursday of each month.", The=0.9, NONE=0.1),
            # The held run "the WSB decides each case" names no time: no copy.
            quote("Yes, the WSB decides each case.", Yes=0.9, NONE=0.1),
            verdict(),
        ),
        retriever=scripted_retriever([bodies, charter]),
    )
    out = run(parts, "When does the WSB meet?", judge="extract", judge_threshold=0.6)
    labels = judged(out)
    assert labels["bodies"]["evidence"] == "meets on the second Thursday of each month"
    assert labels["bodies"]["label"] == "highly_relevant"
    assert labels["charter"]["evidence"] == ""


def test_a_run_of_the_question_own_numbers_is_no_copy() -> None:
    notes = doc("notes", "Firmware 3.2 fixes the alarm delay.", similarity=None)
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            quote("It is firmware 3.2 that changed", It=0.8, NONE=0.2), verdict()
        ),
        retriever=scripted_retriever([notes]),
    )
    question = "What did firmware 3.2 change about the display?"
    out = run(parts, question, judge="extract", max_iterations=1, web_search="none")
    assert judged(out)["notes"]["evidence"] == ""
    assert judged(out)["notes"]["label"] == "somewhat_relevant"


@pytest.mark.parametrize(
    ("reply", "document", "expected"),
    [
        # The longest run holding a number; the reply's own words around it left out.
        ("Yes, for up to 3 days.", "Self-certify for up to 3 days only.", "for up to 3 days"),
        # A lone number is in too many documents to count.
        ("Yes, 3.", "There are 3 rooms.", ""),
        # A run without a number says nothing the question can check.
        ("Yes, staff may travel.", "Staff may travel abroad.", ""),
        # Of equally long runs, the first.
        ("12 hours or 30 days", "after 12 hours; within 30 days", "12 hours"),
        ("", "Anything 5 days.", ""),
    ],
)
def test_quoted_within(reply: str, document: str, expected: str) -> None:
    assert quoted_within(reply, document) == expected


@pytest.mark.parametrize(
    ("question", "reply", "expected"),
    [
        # A weekday the question does not name: the run is the copy.
        (
            "When does the WSB meet?",
            "The WSB meets on the second Thursday of each month.",
            "meets on the second Thursday of each month",
        ),
        # A number word for a quantity.
        (
            "How long may flights be in economy?",
            "Flights up to ten hours.",
            "Flights up to ten hours",
        ),
        # "each" and "every" say how often, not when: no copy.
        ("When does the WSB meet?", "The WSB decides each case.", ""),
        # Not a question of quantity or time: any phrase could be held.
        ("Who approves a purchase?", "The policy sets who approves a purchase.", ""),
        # The weekday is the question's own.
        ("What happens on Thursday each month?", "On Thursday the WSB meets.", ""),
    ],
)
def test_a_run_in_words_is_a_copy_for_what_the_question_asks(
    question: str, reply: str, expected: str
) -> None:
    document = (
        "It meets on the second Thursday of each month. The WSB decides each case. "
        "Flights up to ten hours are economy. The policy sets who approves a purchase. "
        "On Thursday the WSB meets."
    )
    test = worded_as_asked(question)
    in_words = quoted_within(reply, document, min_words=3, states=test) if test else ""
    assert in_words == expected


def test_reading_an_extraction() -> None:
    found = read_extraction(quote('"1969"', **{"196": 0.5, "NONE": 0.3, "None": 0.1}))
    assert found is not None
    assert found.text == "1969" and not found.none
    assert found.p_none == pytest.approx(0.4)  # NONE and None both say "no answer"
    said_none = read_extraction(quote("NONE.", NONE=0.95))
    assert said_none is not None and said_none.none and said_none.text == ""
    bare = read_extraction(AIMessage(content="Tranquility Base"))
    assert bare is not None and bare.p_none is None
    assert read_extraction(AIMessage(content="  ")) is None


# ------------------------------------------------------------------ judge="auto"


@pytest.mark.parametrize(
    ("settings", "injected", "expected"),
    [
        ({}, False, "extract"),  # the bundled 1.5B model
        ({"model": "local:/models/any.gguf"}, False, "extract"),
        ({"model": "openai:gpt-4o-mini"}, False, "structured"),
        (
            {"model": "openai:gpt-4o-mini", "judge_model": "local:qwen2.5-coder-1.5b"},
            False,
            "extract",
        ),
        (
            {"model": "local:qwen2.5-coder-1.5b", "judge_model": "ollama:llama3.2"},
            False,
            "structured",
        ),
        ({}, True, "structured"),  # an injected model: its capability is unknown
        ({"judge": "letter"}, False, "letter"),  # an explicit choice stands
        ({"judge": "off", "model": "openai:gpt-4o-mini"}, False, "off"),
    ],
)
def test_auto_judge_is_chosen_by_the_judges_model(
    settings: dict[str, Any], injected: bool, expected: str
) -> None:
    parts = Components(judge_model=judge_model()) if injected else Components()
    cfg = Configuration.from_mapping(settings)
    assert parts.judge_kind(cfg) == expected
    deps = NodeDeps(components=parts)
    assert deps.configuration({"configurable": settings}, None).judge == expected


@pytest.mark.parametrize(
    ("settings", "injected", "expected"),
    [
        ({}, False, T_M_MEASURED["local:qwen2.5-coder-1.5b"]),  # measured for the bundled model
        ({"model": "openai:gpt-4o-mini"}, False, SRA_T_M),
        ({"model": "local:/models/any.gguf"}, False, SRA_T_M),  # nothing measured for it
        (
            {"model": "openai:gpt-4o-mini", "judge_model": "local:qwen2.5-coder-1.5b"},
            False,
            T_M_MEASURED["local:qwen2.5-coder-1.5b"],
        ),  # C_M is asked by the judge model
        ({}, True, SRA_T_M),  # an injected model
        ({"t_m": 0.6}, False, 0.6),  # an explicit value stands
    ],
)
def test_unset_t_m_is_the_measured_value_of_the_model_asking_c_m(
    settings: dict[str, Any], injected: bool, expected: float
) -> None:
    parts = Components(judge_model=judge_model()) if injected else Components()
    assert parts.self_trust_cutoff(Configuration.from_mapping(settings)) == expected
    deps = NodeDeps(components=parts)
    assert deps.configuration({"configurable": settings}, None).t_m == expected


def test_auto_judge_with_an_injected_model_gives_the_structured_judgment() -> None:
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11", "landing date"]),
            label("highly_relevant", "Apollo 11", "landing date"),
            label("not_relevant"),
            verdict(),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    labels = judged(run(parts))
    assert labels["apollo"]["alignment"] == "full"
    assert labels["saturn"]["label"] == "not_relevant"


# ------------------------------------------------------------------ verify by the judge's quote


def _quoted_run(draft: str, *replies: AIMessage, **settings: Any) -> dict[str, Any]:
    parts = Components(
        chat_model=generator(draft),
        judge_model=judge_model(
            quote("20 July 1969", **{"20": 0.95, "NONE": 0.05}),
            quote("NONE", NONE=0.9),
            *replies,
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    return run(parts, judge="extract", max_iterations=1, **settings)


def verify_events(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["detail"] for e in out["trace"] if (e["node"], e["event"]) == ("verify", "checked")]


def test_an_answer_restating_the_judges_quote_needs_no_verifier_call() -> None:
    out = _quoted_run("Apollo 11 landed on 20 July 1969 [1].")
    assert out["answer"] == "Apollo 11 landed on 20 July 1969 [1]." and not out["abstained"]
    checked = verify_events(out)
    assert checked[0]["by"] == "judge_quote"
    assert checked[0]["quotes"] == [{"document": 1, "quote": "20 July 1969"}]
    assert out["cost"]["llm_calls"] == 4  # two extractions, C_M, generate: no verifier call


def _two_quotes_run(draft: str, *replies: AIMessage, second: float = 0.95) -> dict[str, Any]:
    # Each chunk has its own quote; `second`: the judge's share for the second one's.
    battery = doc("battery", "The KVMS runs for 12 hours on its battery.")
    start = doc("start", "The KVMS takes 90 seconds to start up.")
    parts = Components(
        chat_model=generator(draft),
        judge_model=judge_model(
            quote("12 hours", **{"12": 0.97, "NONE": 0.03}),
            quote("90 seconds", **{"90": second, "NONE": 1 - second}),
            *replies,
        ),
        retriever=scripted_retriever([battery, start]),
    )
    return run(parts, "How long does the KVMS take to start up?", judge="extract", max_iterations=1)


def test_an_answer_restating_another_documents_quote_is_cited_to_it() -> None:
    out = _two_quotes_run("The KVMS takes 90 seconds to start up [1].")
    assert not out["abstained"] and "90 seconds" in out["answer"]
    assert [c["doc_id"] for c in out["citations"]] == ["start"]
    checked = verify_events(out)
    assert checked[0]["by"] == "judge_quote" and checked[0]["recited"] is True
    assert checked[0]["quotes"] == [{"document": 2, "quote": "90 seconds"}]
    assert out["cost"]["llm_calls"] == 4  # two extractions, C_M, generate: no verifier call


def test_only_a_passed_documents_quote_moves_a_citation() -> None:
    # The judge did not pass the chunk it quoted "90 seconds" from: the verifier reads.
    out = _two_quotes_run("The KVMS takes 90 seconds to start up [1].", verdict(), second=0.3)
    assert "by" not in verify_events(out)[0]
    # A draft restating neither quote goes to the verifier too.
    out = _two_quotes_run("The KVMS runs for two minutes [1].", verdict(False, 0.2))
    assert "by" not in verify_events(out)[0]


def test_other_answers_still_go_to_the_verifier() -> None:
    # The draft cites the document but does not restate its quote.
    out = _quoted_run("Apollo 11 landed in the summer [1].", verdict(False, 0.2), verdict())
    assert "by" not in verify_events(out)[0]
    assert out["cost"]["llm_calls"] >= 5
    # Citing a document whose quote it restates is required: no citation, no shortcut.
    out = _quoted_run("Apollo 11 landed on 20 July 1969.", verdict())
    assert "by" not in verify_events(out)[0]
    # And the shortcut can be switched off.
    out = _quoted_run("Apollo 11 landed on 20 July 1969 [1].", verdict(), verify_quotes=False)
    assert "by" not in verify_events(out)[0] and out["cost"]["llm_calls"] == 5


def test_an_uncited_answer_is_cited_to_the_documents_whose_quote_it_restates() -> None:
    # The verifier reads an uncited draft against all the knowledge; accepted, it is
    # given with the citation of the document the judge quoted its value from.
    out = _quoted_run("Apollo 11 landed on 20 July 1969.", verdict())
    assert not out["abstained"]
    assert out["answer"] == "Apollo 11 landed on 20 July 1969. [1]"
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    cited = [e["detail"] for e in out["trace"] if e["event"] == "cited_by_quote"]
    assert cited == [{"documents": [1]}]
    assert out["cost"]["llm_calls"] == 5  # the verifier still read it
    # An accepted answer restating no quote keeps its text: nothing to cite it to.
    out = _quoted_run("Apollo 11 landed in the summer.", verdict())
    assert out["answer"] == "Apollo 11 landed in the summer." and out["citations"] == []
    assert not [e for e in out["trace"] if e["event"] == "cited_by_quote"]


def test_an_uncited_answer_giving_disagreeing_values_is_cited_to_their_documents() -> None:
    def known(doc_id: str, content: str) -> dict[str, Any]:
        return {"id": doc_id, "content": content, "title": doc_id, "source": doc_id}

    older = known("old", "Release 4.4: the default screen timeout is 5 minutes.")
    newer = known("new", "Release 4.8: the default screen timeout is now 3 minutes.")
    other = known("other", "The unit is mounted 2 metres above the floor.")
    state: dict[str, Any] = {
        "question": "What is the default screen timeout?",
        "knowledge": [older, other, newer],
        "judgments": [],
        "draft": "The default screen timeout is 3 minutes; it was 5 minutes before.",
        "conflict": {
            "kind": "dated",
            "values": [
                {"value": "3 minutes", "numbers": [3], "date": "2025-03-05"},
                {"value": "5 minutes", "numbers": [1], "date": "2024-11-09"},
            ],
        },
    }
    accepted = {"verdict": "accept", "basis": "retrieval", "trace": []}
    out = sourced(state, accepted)
    assert out["answer"].endswith(" [1][3]")
    assert [c["doc_id"] for c in out["citations"]] == ["old", "new"]
    # Left alone: a draft that cites, an answer from the model, an abstention.
    cited = {**state, "draft": "The default screen timeout is 3 minutes [3]."}
    assert sourced(cited, accepted) == accepted
    model = {**accepted, "basis": "model"}
    assert sourced(state, model) == model
    abstained = {**accepted, "verdict": "abstain"}
    assert sourced(state, abstained) == abstained


def test_a_quote_from_a_document_the_judge_did_not_pass_goes_to_the_verifier() -> None:
    # P(quote) 0.6 is below the extract threshold: the document is only Somewhat
    # Relevant, so its quote is the judge's guess, not its verdict.
    parts = Components(
        chat_model=generator("Apollo 11 landed on 20 July 1969 [1]."),
        judge_model=judge_model(
            quote("20 July 1969", **{"20": 0.6, "NONE": 0.4}),
            quote("NONE", NONE=0.9),
            verdict(False, 0.2),
            verdict(False, 0.1),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts, judge="extract", max_iterations=1, max_regenerations=0)
    assert judged(out)["apollo"]["label"] == "somewhat_relevant"
    checked = verify_events(out)
    assert "by" not in checked[0] and checked[0]["supported"] is False
    assert out["abstained"] and out["reason"] == "unsupported_claims"


def test_a_quote_not_in_the_document_is_no_support() -> None:
    # The structured judge's evidence is the model's word; it counts only if it is there.
    parts = Components(
        chat_model=generator("Apollo 11 landed on 21 July 1969 [1]."),
        judge_model=judge_model(
            components(["Apollo 11"]),
            tool(
                "RelevanceJudgment",
                label="highly_relevant",
                evidence="21 July 1969",
                aligned=["Apollo 11"],
                reason="scripted",
            ),
            label("not_relevant"),
            verdict(False, 0.1),
            verdict(False, 0.1),
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts, max_iterations=1, max_regenerations=0)
    assert "by" not in verify_events(out)[0]
    assert out["abstained"]


@pytest.mark.parametrize(
    ("reply", "titles_only"),
    [
        ("[1] Working hours\n[2] Minutes of the works council\n[3] Shubrend office", True),
        ("- working hours [1]\n- Minutes of the works council.\n- Shubrend office [3]", True),
        # Some of the titles, or one, may be the answer; so may a sentence.
        ("[1] Working hours\n[2] Minutes of the works council", False),
        ("Shubrend office [3]", False),
        ("Working hours are reviewed yearly [1].\n[2] Working hours\n[3] Shubrend office", False),
        ("", False),
    ],
)
def test_a_reply_listing_only_the_documents_titles(reply: str, titles_only: bool) -> None:
    titles = ["Working hours", "Minutes of the works council", "Shubrend office"]
    assert names_only(reply, titles) is titles_only


def test_a_reply_of_titles_only_is_no_answer_and_the_judges_copy_answers() -> None:
    # Both documents shown, both listed by title: the judge's one copy of both answers.
    landing = doc("landing", "The Moon landing of Apollo 11 was on 20 July 1969.")
    parts = Components(
        chat_model=generator("[1] apollo\n[2] landing"),
        judge_model=judge_model(
            quote("20 July 1969", **{"20": 0.95, "NONE": 0.05}),
            quote("20 July 1969", **{"20": 0.95, "NONE": 0.05}),
        ),
        retriever=scripted_retriever([APOLLO, landing]),
    )
    out = run(parts, judge="extract", max_iterations=1)
    fallbacks = events(out, "generate", "fallback")
    assert fallbacks and fallbacks[0]["error"] == "TitlesOnly"
    assert out["answer"] == "20 July 1969 [1][2]" and not out["abstained"]


def test_a_reply_of_citations_only_is_no_answer_and_the_judges_copy_answers() -> None:
    out = _quoted_run("[1]")
    fallbacks = events(out, "generate", "fallback")
    assert fallbacks and fallbacks[0]["error"] == "CitationsOnly"
    # The one Highly Relevant document's copy, cited, written without a call.
    assert out["answer"] == "20 July 1969 [1]" and not out["abstained"]
    assert [c["doc_id"] for c in out["citations"]] == ["apollo"]
    quoted = [e["detail"] for e in out["trace"] if e["event"] == "quoted"]
    assert quoted == [{"answer": "20 July 1969 [1]"}]
    assert out["cost"]["llm_calls"] == 4  # no verifier call for a draft that says nothing


def test_a_decline_beside_a_highly_relevant_copy_stands() -> None:
    # The generator read the documents and declined: the judge's copy does not overrule it.
    out = _quoted_run("I don't know.")
    assert out["abstained"] and out["reason"] == "model_declined"
    assert not [e for e in out["trace"] if e["event"] == "quoted"]


def test_the_date_of_a_chunks_note_is_not_a_copy_from_the_chunk() -> None:
    # Minutes dated 26 June (the chunk's note): the judge copied the note's date for "when
    # … go live?", sure of it; the minutes never say when. The copy is the indexer's
    # label, not the chunk's statement: no support, and nothing to answer "[1]" with.
    def pointed_at(text: str) -> dict[str, Any]:
        parts = Components(
            chat_model=generator("[1]"),
            judge_model=judge_model(quote("2025-06-26", **{"202": 0.95, "NONE": 0.05})),
            retriever=scripted_retriever([doc("minutes", f"[Context: dated 2025-06-26]\n{text}")]),
        )
        question = "When is Project Tukroze planned to go live?"
        return run(parts, question, judge="extract", max_iterations=1, web_search="none")

    out = pointed_at("Project Tukroze: go-live waits for the pilot review.")
    assert judged(out)["minutes"]["label"] == "somewhat_relevant"
    assert judged(out)["minutes"]["evidence"] == ""
    assert out["abstained"] and out["reason"] == "generation_failed"
    assert not [e for e in out["trace"] if e["event"] == "quoted"]
    # The same date stated by the minutes themselves is their statement: it answers.
    out = pointed_at("Project Tukroze goes live on 2025-06-26 after the pilot.")
    assert judged(out)["minutes"]["label"] == "highly_relevant"
    assert out["answer"] == "2025-06-26 [1]" and not out["abstained"]


def test_a_reply_pointing_at_a_page_whose_copy_fell_under_the_threshold_gets_that_copy() -> None:
    # The subject's page: the judge copied its year, sure of it, but the cosine kept the
    # score under the threshold (at the cosine weight 0.5); the generator pointed at it and
    # wrote nothing else.
    question = "In what year did Nuleinas Drefai die?"
    settings: dict[str, Any] = {
        "judge": "extract",
        "max_iterations": 1,
        "web_search": "none",
        "judge_similarity_weight": 0.5,
    }
    page = doc(
        "page", "Nuleinas Drefai\nNuleinas Drefai (1820–1884) was a chemist.", similarity=0.45
    )
    parts = Components(
        chat_model=generator("[1]"),
        judge_model=judge_model(quote("1884", **{"188": 0.99, "NONE": 0.01}), verdict(), knows="B"),
        retriever=scripted_retriever([page]),
    )
    out = run(parts, question, **settings)
    assert judged(out)["page"]["label"] == "somewhat_relevant"
    assert out["answer"] == "1884 [1]" and not out["abstained"]
    # A page whose copy is not what the question asks (no year for "when") is no answer.
    parts = Components(
        chat_model=generator("[1]"),
        judge_model=judge_model(quote("a chemist", a=0.99, NONE=0.01), knows="B"),
        retriever=scripted_retriever([page]),
    )
    out = run(parts, question, **settings)
    assert out["abstained"] and out["reason"] == "generation_failed"


def test_without_a_copy_a_reply_of_citations_only_abstains() -> None:
    # Somewhat Relevant only (the answers the judge gave are not in the documents).
    parts = Components(
        chat_model=generator("[1]"),
        judge_model=judge_model(
            quote("Tranquility Base", Tr=0.9, NONE=0.1),
            quote("Tranquility Base", Tr=0.9, NONE=0.1),
            knows="B",
        ),
        retriever=scripted_retriever([APOLLO, SATURN]),
    )
    out = run(parts, judge="extract", max_iterations=1, web_search="none")
    assert out["basis"] == "none" and out["reason"] == "generation_failed"
    assert not [e for e in out["trace"] if e["event"] == "quoted"]


def test_a_sibling_organisations_page_is_no_evidence() -> None:
    question = "How much revenue did Iskmere Shipyards report for 2022?"
    sibling = doc(
        "sibling",
        "Iskmere Marine Engineering reported revenue of 634 million euros for 2022.",
        similarity=0.7,
    )
    own = doc("own", "Iskmere Shipyards builds ferries and tugs.", similarity=0.6)
    parts = Components(
        chat_model=generator("Unknown"),
        # One extraction, for its own page: the sibling's page (and its figure) is not asked.
        judge_model=judge_model(quote("NONE", **{"NONE": 0.9, "Is": 0.1})),
        retriever=scripted_retriever([sibling, own]),
    )
    out = run(
        parts, question, judge="extract", judge_threshold=0.7, max_iterations=1, subject_check=True
    )
    labels = judged(out)
    # Half of the name ("Iskmere") is not the subject: nothing on that page is evidence.
    assert labels["sibling"]["p_highly"] == 0.0 and labels["sibling"]["evidence"] == ""
    assert labels["sibling"]["label"] == "not_relevant"
    assert labels["sibling"]["by"] == "subject_check" and labels["own"]["by"] == "llm"
    assert labels["own"]["label"] == "not_relevant"  # it said NONE


@pytest.mark.parametrize(
    ("question", "title", "coverage"),
    [
        ("What country does Linoel Messi play for?", "Lionel Messi", 1.0),  # a typo
        ("What is Woodrow Wilson's political alliance?", "Woodrow Wilson", 1.0),
        ("In which state was Lyndon B. Johnson born?", "Lyndon Baines Johnson", 1.0),
        ("What is the height of Mount Everest?", "Mount Kilimanjaro", 0.5),
        ("Who founded Iskmere Shipyards?", "Iskmere Ship Repair", 0.5),
    ],
)
def test_a_document_names_the_subject_in_full_a_typo_aside(
    question: str, title: str, coverage: float
) -> None:
    assert subject_coverage(question, title, "") == coverage


@pytest.mark.parametrize(
    "hatnote",
    [
        "_Not to be confused with Mordby Brewery or Mordby Bottling Company._",
        "For other uses, see Mordby Brewery (disambiguation).",
        "This article is about the maltster. For the brewer, see Mordby Brewery.",
        "For the brewer, see Mordby Brewery.",
        "> Mordby Brewery redirects here.",
    ],
)
def test_a_hatnote_naming_the_subject_does_not_make_the_page_about_it(hatnote: str) -> None:
    question = "Who founded Mordby Brewery?"
    page = f"{hatnote}\nMordby Maltings is a maltster. Puton Vabram founded it in 1926."
    assert subject_coverage(question, "Mordby Maltings", page) == 0.5
    # The same name in the page's own sentences still counts.
    assert subject_coverage(question, "Mordby Maltings", page + " It bought Mordby Brewery.") == 1.0


@pytest.mark.parametrize(
    ("text", "coverage"),
    [
        ("Queldene Books is a publisher.", 1.0),
        ("Queldene   books, a publisher.", 1.0),  # case and punctuation aside
        ("Queldene Publishing House prints books for schools.", 0.5),  # scattered words
        ("Books of Queldene.", 0.5),  # out of order
    ],
)
def test_a_name_is_named_by_its_words_in_order_and_close_together(
    text: str, coverage: float
) -> None:
    assert subject_coverage("In which town is Queldene Books headquartered?", text) == coverage
