"""What a question's form asks for, and the extracting judge's copies held to it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from judged_rag import Components, build_graph
from judged_rag.core.asked import (
    FREQUENCY,
    answers_other,
    asked_about,
    asked_cell,
    asks_quantity,
    asks_time,
    common_words,
    gives_value,
    measure_mismatch,
    misread_cell,
    names_pinned,
    of_kind,
    pinned,
    row_words,
    same_word,
    says_asked,
    stated_of_other,
    states_asked,
    table_rows,
    value_asked,
    values_given,
    what_happens,
    words_asked,
    wrong_row,
)
from tests.fakes import (
    doc,
    events,
    generator,
    judge_model,
    quote,
    scripted_retriever,
    state_doc,
    verdict,
)


@pytest.mark.parametrize(
    ("question", "quantity", "time"),
    [
        ("How many staff parking spaces does the office have?", True, False),
        ("how often are laptops replaced?", True, False),
        ("Can I carry over unused leave, and how many days?", True, False),
        ("When does the PRB meet?", False, True),
        ("In what year was the yard founded?", False, True),
        ("Since when has the ferry left at 07:40?", False, True),
        ("What is the lead time for the relay board?", False, False),
        ("Describe the rules for hot desks.", False, False),
        ("Who chairs the board?", False, False),
    ],
)
def test_the_form_of_a_question(question: str, quantity: bool, time: bool) -> None:
    assert asks_quantity(question) is quantity and asks_time(question) is time


@pytest.mark.parametrize(
    ("question", "copy", "fits"),
    [
        ("How many monitors does a desk have?", "two monitors", True),
        ("How many monitors does a desk have?", "2", True),
        ("How many monitors does a desk have?", "the facilities team", False),
        ("How often does the board meet?", "every quarter", True),
        ("When does the PRB meet?", "on the first Tuesday of each month", True),
        ("When does the PRB meet?", "the Product Review Board", False),
        ("In what year was it founded?", "1923", True),
        ("Who chairs the board?", "Rosos Dakrebrok", True),  # any copy: not a form it checks
        # A measure asked: a copy in another measure's unit is not it.
        ("How loud is the TPMG in operation?", "180 centimetres", False),
        ("How loud is the TPMG in operation?", "quieter than 25 dB(A)", True),
        ("How heavy is the unit?", "30 cm", False),
        ("Give the weight of the unit.", "1.5 kg", True),
        ("What is the speed limit on site?", "20 km/h", True),
        ("What is the speed limit on site?", "20 kg", False),
        ("What supply voltage does the GFBC need?", "48", True),  # no unit: not checked
        ("How high is the fee?", "40 euros", True),  # money is no measure it knows
        ("How high is the maximum temperature?", "45 °C", True),  # two measures asked
        ("What is the minimum password length?", "12 characters", True),
        # A time is no height, weight or power; it may give a length ("a 10-minute walk").
        ("At what height should the DTRM be mounted?", "30 seconds", False),
        ("How much power does the TPMG draw in standby?", "8 hours", False),
        ("How much power does the TPMG draw in standby?", "4 W", True),
        ("How heavy is the unit?", "1.5 kg after 2 years", True),
        ("What is the length of the flight to Oslo?", "8 hours", True),
        ("How far is the office from the station?", "10 minutes on foot", True),
        ("How many days of leave do I get?", "25 days", True),
        # A unit per unit of time is a rate: a length per second is a speed.
        ("What is the speed of light?", "299,792 kilometres per second", True),
        ("What is the speed of the belt?", "2 metres", False),
        ("How heavy is the unit?", "20 euros per kilogram", True),  # a price: no measure
        # "How long" asks a time or a length: a power or an amount answers neither.
        ("How long does the GPMG run on its backup battery?", "3 watts", False),
        ("How long does the GPMG run on its backup battery?", "20 euros", False),
        ("How long does the GPMG run on its backup battery?", "8 hours", True),
        ("How long does the GPMG run on its backup battery?", "8 hours at 3 W", True),
        ("How long is the sensor cable?", "100 metres", True),
        ("Is it permitted to be off sick without a note, and for how long?", "5 days", True),
        # How many: not answered by a text whose every number is an amount of a unit.
        ("What is the maximum number of participants in an offsite?", "220 euros", False),
        ("How many monitors does a desk have?", "€90", False),
        ("How many monitors does a desk have?", "2 monitors, 90 euros each", True),
        ("How many people fit in the room?", "30 people in the 40 m2 room", True),
        ("How many euros is the daily allowance?", "40 euros", True),  # an amount asked
        ("How many kilometres is the ride?", "12 km", True),
        ("What is the phone number of the help desk?", "+49 30 1234", True),
    ],
)
def test_a_copy_fits_the_form(question: str, copy: str, fits: bool) -> None:
    assert of_kind(question, copy) is fits


def test_a_year_or_version_asked_must_be_named_by_the_chunk() -> None:
    question = "How many employees did Mordby Brewery have in 2015?"
    assert pinned(question) == ["2015"]
    assert names_pinned(question, "In 2015 the brewery had 198 employees.")
    assert not names_pinned(question, "In 2022 the brewery had 190 employees.")
    # A span of years around it answers for it.
    assert names_pinned(question, "Boshirail became chief executive in 2004; in 2018 …")
    asked = "What is the default polling interval in firmware 4.2?"
    assert pinned(asked) == ["4.2"]
    assert names_pinned(asked, "From version 4.2 the default is 30 seconds.")
    assert not names_pinned(asked, "From version 4.21 the default is 30 seconds.")
    assert names_pinned("How many monitors?", "Two monitors.")


def run(parts: Components, question: str, **settings: Any) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    base = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 1, **base, **settings},
    }
    return graph.invoke({"question": question}, config)  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize(
    ("question", "text", "copy"),
    [
        # A figure of another year than the one asked.
        (
            "How many employees did the brewery have in 2015?",
            "In 2022 the brewery had 190 employees.",
            "190",
        ),
        # A time where a height is asked.
        (
            "At what height should the DTRM be mounted?",
            "The DTRM starts 30 seconds after it is switched on. Mount it 1.8 m above the floor.",
            "30 seconds",
        ),
    ],
)
def test_a_copy_not_of_the_form_asked_is_no_support(question: str, text: str, copy: str) -> None:
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(quote(copy, **{copy.split()[0]: 0.95, "NONE": 0.05}), knows="B"),
        retriever=scripted_retriever([doc("page", text, similarity=0.8)]),
    )
    out = run(parts, question)
    judged = next(e["detail"] for e in out["trace"] if e["event"] == "judged")
    # The judge's copy is kept as the bridge, but the label is not Highly Relevant.
    assert judged["label"] == "somewhat_relevant" and judged["evidence"] == copy
    assert out["abstained"] is True


def test_a_measure_mismatch_says_what_is_given_and_what_is_asked() -> None:
    question = "At what height should the DTRM be mounted?"
    assert measure_mismatch(question, "30 seconds") == (
        "a time value, but the question asks for length"
    )
    assert measure_mismatch(question, "1.8 m") is None
    assert measure_mismatch("How many desks are there?", "40 euros") == (
        "a money value, but the question asks how many"
    )
    assert measure_mismatch("How long does the unit run on battery?", "3 W") == (
        "a power value, but the question asks how long"
    )


def grounding_run(chunk: str, question: str, **settings: Any) -> dict[str, Any]:
    parts = Components(
        chat_model=generator("It opens at 8:00 [1]."),
        judge_model=judge_model(quote("8:00", **{"8": 0.95, "NONE": 0.05}), knows="B"),
        retriever=scripted_retriever([doc("office", chunk, similarity=0.8)]),
    )
    return run(parts, question, **settings)


def test_knowledge_that_never_names_the_subject_is_not_trusted_when_asked() -> None:
    question = "What time does the Shekai office open on weekdays?"
    sibling = "Febus office\nThe office opens at 8:00 on weekdays."
    # On (the default), the run abstains; off, the sibling's hours are the answer.
    out = grounding_run(sibling, question)
    assert out["abstained"] is True and out["reason"] == "no_trusted_source"
    assert [e for e in out["trace"] if e["event"] == "subject_not_grounded"]
    assert grounding_run(sibling, question, subject_grounding=False)["abstained"] is False
    # A chunk whose note names the subject is trusted: "she" is Priya Okafor.
    noted = "[Context: earlier in this section: Priya Okafor]\nShe opens the office at 8:00."
    out = grounding_run(noted, "When does Priya Okafor open the office?")
    assert out["abstained"] is False
    # An imperative's first word names nothing.
    out = grounding_run(sibling, "Describe when the office opens.")
    assert out["abstained"] is False


def allowance_run(chunk: str, **settings: Any) -> dict[str, Any]:
    parts = Components(
        chat_model=generator("It will be 20 euros [1]."),
        judge_model=judge_model(quote("20 euros", **{"20": 0.95, "NONE": 0.05}), knows="B"),
        retriever=scripted_retriever([doc("allowances", chunk, similarity=0.8)]),
    )
    return run(parts, "What will the monthly internet allowance be in 2027?", **settings)


def test_knowledge_that_never_names_the_asked_year_is_not_trusted() -> None:
    other_year = "Allowances\nFrom 2026 the monthly internet allowance is 20 euros."
    out = allowance_run(other_year)
    assert out["abstained"] is True and out["reason"] == "no_trusted_source"
    fired = [e["detail"] for e in out["trace"] if e["event"] == "pinned_not_grounded"]
    assert fired and fired[0]["pinned"] == ["2027"]
    # Off, the other year's page is trusted (answered from, then verified).
    assert decided(allowance_run(other_year, subject_grounding=False)) == "retrieval"
    # Years either side of the asked one: the page speaks for it.
    span = "Allowances\nIn 2025 the monthly internet allowance rose to 20 euros; next review 2029."
    out = allowance_run(span)
    assert decided(out) == "retrieval"
    assert not [e for e in out["trace"] if e["event"] == "pinned_not_grounded"]


def decided(out: dict[str, Any]) -> str:
    """The basis `integrate` chose."""
    return next(e["detail"]["basis"] for e in out["trace"] if e["event"] == "decided")


def cited_run(
    question: str, cited: Any, other: Any, other_copy: str, number: int = 1
) -> dict[str, Any]:
    """Two chunks kept, `cited` the one both drafts cite (as knowledge document `number`)."""
    draft = f"It is 20 euros [{number}]."
    parts = Components(
        chat_model=generator(draft, draft),
        judge_model=judge_model(
            quote("20 euros", **{"20": 0.95, "NONE": 0.05}),
            quote(other_copy, **{other_copy.split()[0]: 0.3, "NONE": 0.7}),
            knows="B",
        ),
        retriever=scripted_retriever([cited, other]),
    )
    return run(parts, question)


def test_an_answer_citing_only_pages_about_something_else_is_not_accepted() -> None:
    # Another page names 2027, so the knowledge is trusted; the cited one gives 2026's
    # figure: the draft is not accepted, and no verifier call reads it.
    question = "What will the monthly internet allowance be in 2027?"
    allowance = doc("allowances", "From 2026 the monthly internet allowance is 20 euros.")
    budget = doc("budget", "The budget for 2027 is set in March.")
    out = cited_run(question, allowance, budget, "in March")
    assert out["abstained"] is True and out["reason"] == "unsupported_claims"
    fired = events(out, "verify", "cited_elsewhere")
    assert fired and "2027" in fired[0]["claim"]
    # Two judgments, C_M and two drafts: neither draft cost a verifier call.
    assert out["cost"]["llm_calls"] == 5
    # Another product's manual, cited for this one's figure: the same.
    question = "What does the GPMG's yearly service cost?"
    sibling = doc("GFBC user manual", "A yearly service of the unit costs 20 euros.")
    own = doc("GPMG user manual", "The GPMG is mounted on a wall.")
    # (The page that does not name it is ranked after the one that does: [2].)
    out = cited_run(question, sibling, own, "on a wall", number=2)
    assert out["abstained"] is True
    assert "gpmg" in events(out, "verify", "cited_elsewhere")[0]["claim"]
    # Cited pages that name the product, and the year: checked as before.
    named = doc("GPMG service", "A yearly service of the GPMG costs 20 euros from 2027.")
    out = cited_run(question, named, own, "on a wall")
    assert out["abstained"] is False and not events(out, "verify", "cited_elsewhere")
    # A cited page naming years either side of 2027 speaks for it.
    span = "Allowances\nIn 2025 the monthly internet allowance rose to 20 euros; next review 2029."
    out = allowance_run(span)
    assert out["abstained"] is False and "20 euros" in out["answer"]
    assert not events(out, "verify", "cited_elsewhere")


def test_a_citation_is_not_repaired_to_a_page_about_something_else() -> None:
    # The draft cites the Bugrai office's page for a figure only the Graider office's
    # page states; re-pointing the citation there would cite a sibling office for it.
    question = "How many bookable meeting rooms does the Bugrai office have?"
    own = doc("Bugrai office", "There are 14 parking spaces for staff.")
    sibling = doc("Graider office", "The office has 13 bookable meeting rooms.")
    claim = "The Bugrai office has 13 bookable meeting rooms."
    parts = Components(
        chat_model=generator(f"{claim[:-1]} [1]."),
        judge_model=judge_model(
            quote("14 parking spaces", **{"14": 0.3, "NONE": 0.7}),
            quote("13", **{"13": 0.95, "NONE": 0.05}),
            verdict(False, 0.9, [claim]),
            verdict(True, 0.9),  # what a check of the re-pointed draft would say
            knows="B",
        ),
        retriever=scripted_retriever([own, sibling]),
    )
    out = run(parts, question, max_regenerations=0)
    assert out["abstained"] is True and out["reason"] == "unsupported_claims"
    failed = events(out, "verify", "citation_repair_failed")
    assert failed and "bugrai" in failed[0]["why"]
    assert not events(out, "verify", "citations_repaired")
    # Two judgments, C_M, the draft and one check: the re-pointed draft is not read.
    assert out["cost"]["llm_calls"] == 5


def test_an_answer_giving_an_amount_for_how_many_is_regenerated() -> None:
    # The page states a budget beside the count; the first draft answers the count with
    # it, and the judge copied no number (it passed the page on another phrase).
    question = "What is the maximum number of participants in a company offsite?"
    page = doc(
        "Offsites",
        "A company offsite takes at most 40 participants. The budget is 220 euros a head.",
    )
    parts = Components(
        chat_model=generator(
            "The maximum number of participants is 220 euros [1].",
            "A company offsite takes at most 40 participants [1].",
        ),
        judge_model=judge_model(quote("a company offsite", **{"a": 0.95}), knows="B"),
        retriever=scripted_retriever([page]),
    )
    out = run(parts, question)
    assert out["abstained"] is False and "40 participants" in out["answer"]
    fired = events(out, "verify", "other_measure")
    assert fired[0]["claim"] == "the answer gives a money value, but the question asks how many"
    assert "replaced_by" not in fired[0] and out["route"]["regenerations"] == 1


def _loudness_run(judge_copy: str, *replies: AIMessage) -> dict[str, Any]:
    # The page states both; the first draft gives its height for "how loud". The
    # verifier's LLM would find it stated, so the form is checked without a call.
    manual = doc(
        "TPMG user manual",
        "In operation the TPMG is quieter than 25 decibels. "
        "The unit should be mounted 180 centimetres above the floor.",
    )
    parts = Components(
        chat_model=generator(
            "The unit should be mounted 180 centimetres above the floor [1].",
            "The TPMG is quieter than 25 decibels [1].",
        ),
        judge_model=judge_model(
            quote(judge_copy, **{judge_copy.split()[0]: 0.95, "NONE": 0.05}),
            *replies,
            knows="B",
        ),
        retriever=scripted_retriever([manual]),
    )
    return run(parts, "How loud is the TPMG in operation?")


def test_an_answer_giving_another_measure_is_replaced_by_the_judges_copy() -> None:
    # The judge copied the loudness from the page it passed: that copy is the answer.
    out = _loudness_run("quieter than 25 decibels")
    assert out["abstained"] is False and out["answer"] == "quieter than 25 decibels [1]"
    fired = events(out, "verify", "other_measure")
    assert len(fired) == 1 and fired[0]["claim"] == (
        "the answer gives a length value, but the question asks for sound"
    )
    assert fired[0]["replaced_by"] == "quieter than 25 decibels [1]"
    assert out["route"]["regenerations"] == 0
    assert out["cost"]["llm_calls"] == 3  # extraction, C_M, generate: no second draft


def test_an_answer_giving_another_measure_is_regenerated() -> None:
    # The judge's copy is a bare number, not a loudness: the draft is asked for again
    # with why (a bare number passed for a question no page answers is no answer).
    out = _loudness_run("25", verdict(True, 0.9))
    assert out["abstained"] is False and "25 decibels" in out["answer"]
    fired = events(out, "verify", "other_measure")
    assert len(fired) == 1 and "replaced_by" not in fired[0]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("How many days of annual leave do I get?", "quantity"),
        ("Am I allowed to work from home, and how many days a week?", "quantity"),
        ("When does the PRB meet?", "time"),
        ("Give the weight of the TAQSH.", "mass"),
        ("What is the operating temperature of the unit?", "temperature"),
        # A measure word that names a condition of a thing asked for, not the value.
        ("Which metal is liquid at room temperature?", None),
        ("Who checks the weight of parcels?", None),
        # A yes/no question with no value clause is answered yes or no.
        ("Does the unit weigh more than 2 kg?", None),
        ("Who chairs the board?", None),
        ("Describe the rules for hot desks.", None),
    ],
)
def test_the_value_a_question_asks_for(question: str, asked: str | None) -> None:
    assert value_asked(question) == asked


@pytest.mark.parametrize(
    ("question", "text", "gives"),
    [
        ("Give the weight of the TAQSH.", "The TAQSH weighs 2.1 kg.", True),
        (
            "Give the weight of the TAQSH.",
            "The weight of the TAQSH is given in the specifications section of the document.",
            False,
        ),
        (
            "Am I allowed to work from home, and how many days a week?",
            "Yes, you are allowed to work from home.",
            False,
        ),
        (
            "Am I allowed to work from home, and how many days a week?",
            "Yes, up to three days a week.",
            True,
        ),
        ("How often are salaries reviewed?", "Salaries are reviewed annually.", True),
        ("How often are salaries reviewed?", "Salaries are reviewed by the board.", False),
        ("When does the PRB meet?", "It meets on the second Thursday of each month.", True),
        ("When does the PRB meet?", "The PRB meets in the main meeting room.", False),
        ("How much does the company pay for a gym?", "No, it pays nothing.", True),
        ("Who chairs the board?", "Rosos Dakrebrok chairs it.", True),  # no value asked
        ("Does the unit weigh more than 2 kg?", "No.", True),
    ],
)
def test_whether_a_text_gives_the_value_asked(question: str, text: str, gives: bool) -> None:
    assert gives_value(question, text) is gives


def _weight_run(*drafts: str) -> dict[str, Any]:
    # The judge passes the page on its weight; the first draft says where the weight is
    # given instead of giving it, and the verifier's LLM would find that supported.
    manual = doc("TAQSH user manual", "Specifications: the TAQSH weighs 2.1 kg.")
    found = quote("2.1 kg", **{"2": 0.95, "NONE": 0.05})
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(found, verdict(True, 0.9), verdict(True, 0.9), knows="B"),
        retriever=scripted_retriever([manual]),
    )
    return run(parts, "Give the weight of the TAQSH.")


def test_an_answer_stating_no_value_asked_for_is_regenerated_with_why() -> None:
    out = _weight_run(
        "The weight of the TAQSH is given in the specifications section of the document [1].",
        "The TAQSH weighs 2.1 kg [1].",
    )
    assert out["abstained"] is False and "2.1 kg" in out["answer"]
    fired = events(out, "verify", "no_value")
    assert [f["claim"] for f in fired] == [
        "the answer states no value, but the question asks for a weight"
    ]
    assert out["route"]["regenerations"] == 1


def test_an_answer_that_never_states_the_value_is_abstained_from() -> None:
    out = _weight_run(
        "The weight of the TAQSH is given in the specifications section [1].",
        "The specifications section of the manual gives the weight of the TAQSH [1].",
    )
    assert out["abstained"] is True and out["reason"] == "unsupported_claims"
    assert len(events(out, "verify", "no_value")) == 2


@pytest.mark.parametrize(
    ("question", "happens"),
    [
        ("How often does the WSB meet?", ["wsb", "meet"]),
        ("Explain how often the TAQSH needs recalibrating.", ["taqsh", "recalibrating"]),
        ("Can I work abroad, and how often?", []),
        ("How often must a service account change its password?", ["service", "account"]),
        ("When does the WSB meet?", []),
    ],
)
def test_what_happens_in_a_question_asking_how_often(question: str, happens: list[str]) -> None:
    assert what_happens(question)[: len(happens)] == happens


@pytest.mark.parametrize(
    ("question", "sentence", "says"),
    [
        # The charter's own review cadence is not how often the board meets.
        ("How often does the WSB meet?", "It is reviewed at least once a year.", False),
        ("How often does the WSB meet?", "It meets on the first Monday of each quarter.", True),
        # A title that names meetings does not make its page's review cadence one.
        ("How often does the DGC meet?", "The minutes are reviewed once a year.", False),
        ("how often does the wsb meet?", "It is reviewed every two years.", False),
        ("How often are laptops replaced?", "The laptop replacement cycle is 5 years.", True),
        ("How often are laptops replaced?", "| E-mail | 5 years |", False),
        (
            "How often must an administrator account change its password?",
            "| Administrator | 10 characters | 365 days |",
            True,
        ),
        ("Explain how often the TAQSH needs recalibrating.", "Recalibrate it yearly.", True),
        # Said in other words: no word in common (why it takes another document's statement).
        ("How often is the Tour held?", "The Tour is an annual race.", False),
        ("What is the capital?", "Paris.", True),
    ],
)
def test_whether_a_sentence_says_asked(question: str, sentence: str, says: bool) -> None:
    assert says_asked(question, sentence) is says


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("How often does the WSB meet?", ["meet"]),
        (
            "May I fly business class, and on flights of what length?",
            ["fly", "business", "class", "flights", "length"],
        ),
        (
            "May I bring a visitor, and how early must they be registered?",
            ["bring", "visitor", "early", "registered"],
        ),
        # Numbers in the question state a condition, not what it asks about.
        (
            "May I book a two-week holiday at short notice, or how much notice is needed?",
            ["book", "week", "holiday", "short", "notice"],
        ),
        # The names are left out: a page may call the GPMG "the unit".
        ("Is the GPMG allowed on site, and for how long?", ["site"]),
        # Asking who, where or which, or no value after the yes/no question: any statement.
        ("Is there a company car scheme, and who qualifies?", []),
        ("May I fly business class?", []),
        ("What is the nightly hotel limit?", []),
    ],
)
def test_what_a_question_asks_about(question: str, asked: list[str]) -> None:
    assert asked_about(question) == asked


@pytest.mark.parametrize(
    ("sentence", "says"),
    [
        ("Flights over six hours may be booked in business class.", True),
        ("The hotel limit outside capital cities is 120 euros a night.", False),
        ("| Service | 15 characters | 180 days |", False),
    ],
)
def test_whether_a_sentence_is_about_the_value_a_yes_no_question_asks(
    sentence: str, says: bool
) -> None:
    question = "May I fly business class, and on flights of what length?"
    assert says_asked(question, sentence) is says


def test_a_statement_of_the_value_asked_in_the_questions_words() -> None:
    question = "May I bring a visitor, and how early must they be registered?"
    assert words_asked(question, "Visitors must be registered two working days before they come.")
    # A question word with no number, or a number with no question word, states nothing.
    assert not words_asked(question, "Visitors are accompanied by their host while on site.")
    assert not words_asked(question, "Security must be told about a lost badge within 24 hours.")
    # A number of another measure than one asked is no length of a flight.
    flights = "May I fly business class, and on flights of what length?"
    assert not words_asked(flights, "Business class luggage on flights may weigh 32 kg.")
    assert words_asked(flights, "Flights over six hours may be booked in business class.")


def test_forms_of_one_word() -> None:
    assert same_word("meet", "meets") and same_word("replaced", "replacement")
    assert same_word("recalibrated", "recalibrating") and same_word("salaries", "salary")
    assert not same_word("meet", "met") and not same_word("review", "meet")
    assert not same_word("change", "charter")
    assert not same_word("a", "allowance") and not same_word("me", "meet")
    assert same_word("run", "runs") and same_word("it", "it")


CHARTER = doc("WSB charter", "It is reviewed at least once a year.")
BODIES = doc(
    "Governance bodies", "The WSB sets priorities. It meets on the first Monday of each quarter."
)


def _meeting_run(pages: list[Any], *judged: AIMessage, drafts: tuple[str, ...]) -> dict[str, Any]:
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(*judged, verdict(True, 0.9), knows="B"),
        retriever=scripted_retriever(pages),
    )
    return run(parts, "How often does the WSB meet?")


def test_a_copy_of_how_often_something_else_happens_is_no_support() -> None:
    # The judge copies the charter's review cadence and misreads the page that answers.
    out = _meeting_run(
        [CHARTER, BODIES],
        quote("At least once a year", **{"At": 0.95, "NONE": 0.05}),
        quote("Once a month", **{"Once": 0.9, "NONE": 0.1}),
        drafts=("The WSB meets on the first Monday of each quarter [2].",),
    )
    assert events(out, "assess", "other_fact") == [{"documents": ["WSB charter"]}]
    # Its copy was Highly Relevant; both pages reach the generator as Somewhat Relevant.
    assert events(out, "judge", "judged")[0]["label"] == "highly_relevant"
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 0
    combined = events(out, "combine", "combined")[0]
    assert combined["sets"] == {"D_H": 0, "D_S": 2, "D_N": 0}
    # The page stating how often the board meets leads; the other copy's page comes last.
    assert combined["chosen"] == ["Governance bodies", "WSB charter"]
    assert "first Monday of each quarter" in out["answer"]


def test_with_no_page_saying_it_the_copy_stays_support() -> None:
    # Nothing retrieved says how often the board meets: the copy may say it in other words.
    out = _meeting_run(
        [CHARTER],
        quote("At least once a year", **{"At": 0.95, "NONE": 0.05}),
        drafts=("The WSB charter is reviewed at least once a year [1].",),
    )
    assert events(out, "assess", "other_fact") == []
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 1


@pytest.mark.parametrize(
    ("text", "frequency"),
    [
        ("It meets on the first Monday of each quarter.", True),
        ("It is reviewed at least once a year.", True),
        ("The device must be recalibrated every 18 months.", True),
        ("Backups run nightly.", True),
        ("The meeting was held on 2024-03-15.", False),
        ("The laptop replacement cycle is 5 years.", False),  # said otherwise: not ranked
    ],
)
def test_a_frequency_in_so_many_words(text: str, frequency: bool) -> None:
    assert (FREQUENCY.search(text) is not None) is frequency


def test_a_document_stating_how_often_what_is_asked_happens() -> None:
    question = "How often does the WSB meet?"
    wsb = "The WSB sets priorities. It meets on the first Monday of each quarter."
    other = "The DGC reviews decisions. The board meets on the first Tuesday of each month."
    held = "Minutes of the meeting of the WSB held on 2024-03-15."
    assert words_asked(question, wsb) and words_asked(question, other)
    assert not words_asked(question, held)
    assert not words_asked("Who chairs the WSB?", wsb)
    # Ranked first only when it is about the question's subject.
    assert states_asked(question, state_doc("Governance bodies", wsb))
    assert not states_asked(question, state_doc("Governance bodies", other))


def test_another_subjects_wording_is_enough_to_doubt_a_copy() -> None:
    # Nothing says how often the GPMG is recalibrated; the TAQSH's manual words it.
    gpmg = doc("GPMG manual", "The GPMG is a gateway. Check the connections once a year.")
    taqsh = doc("TAQSH manual", "The TAQSH must be recalibrated every 30 months.")
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            quote("once a year", **{"once": 0.95, "NONE": 0.05}),
            quote("NONE", **{"NONE": 0.9, "every": 0.1}),
            knows="B",
        ),
        retriever=scripted_retriever([gpmg, taqsh]),
    )
    out = run(parts, "How often must the GPMG be recalibrated?")
    assert events(out, "assess", "other_fact") == [{"documents": ["GPMG manual"]}]
    assert out["abstained"] is True


FOOTER = "It is reviewed at least once a year and whenever the underlying process changes."
FOOTED = [
    state_doc("Working hours", "The working week is 36 hours. The rules are reviewed every year."),
    state_doc("Equipment", f"Laptops are replaced every 5 years. {FOOTER}"),
    state_doc("Shubrend office", f"The office opens at 8:00. {FOOTER}"),
    state_doc("Minutes, January 2025", f"The council met on 9 January. {FOOTER}"),
]


FOOTED_PAGES = [doc(d["title"], d["content"]) for d in FOOTED]
NOTHING = quote("NONE", **{"NONE": 0.9, "at": 0.1})


def _salaries_run(pages: list[Any], *judged: AIMessage, drafts: tuple[str, ...]) -> dict[str, Any]:
    """ "how often are salaries reviewed?" over `pages`, judged and drafted as scripted."""
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(*judged, knows="B"),
        retriever=scripted_retriever(pages),
    )
    return run(parts, "how often are salaries reviewed?")


def test_a_word_most_pages_state_a_value_with_does_not_tell_what_is_asked() -> None:
    question = "how often are salaries reviewed?"
    assert common_words(question, ["salaries", "reviewed"], FOOTED) == ["reviewed"]
    other = answers_other(question, FOOTED)
    assert other is not None
    assert other("every year", FOOTED[0]) and other("at least once a year", FOOTED[2])
    # A page about salaries stating it is no other fact, whatever words the others share.
    pay = state_doc("Pay", "Salaries are reviewed once a year, in April.")
    assert not answers_other(question, [*FOOTED, pay])("once a year", pay)  # type: ignore[misc]
    # Common to three pages of ten is not common: "reviewed" still says what is asked.
    few = FOOTED[1:] + [state_doc(f"Page {n}", "Visitors sign in.") for n in range(7)]
    assert common_words(question, ["salaries", "reviewed"], few) == []
    assert not answers_other(question, few)("at least once a year", few[0])  # type: ignore[misc]
    # Under three pages nothing is common.
    assert common_words(question, ["salaries", "reviewed"], FOOTED[:2]) == []


def test_a_common_word_stands_when_the_page_holds_the_others() -> None:
    # Every board meets monthly; "It meets …" answers for the page naming the WSB.
    boards = [
        state_doc(f"{name} charter", "The board meets on the first Tuesday of each month.")
        for name in ("DGC", "ISF", "PRB")
    ]
    wsb = state_doc("WSB charter", "It meets on the second Thursday of each month.")
    question = "how often does the wsb meet?"
    other = answers_other(question, [*boards, wsb])
    assert other is not None
    assert not other("second Thursday of each month", wsb)
    assert other("first Tuesday of each month", boards[0])
    # A question whose only word is common is read as before.
    only = answers_other("How often does the WSB meet?", [*boards, wsb])
    assert only is not None and not only("first Tuesday of each month", boards[0])


def test_a_yes_no_question_is_not_held_to_words_most_pages_state() -> None:
    # Its words hold the value's unit ("days"), and the page says "another country".
    pages = [
        state_doc(f"Page {n}", f"Leavers return equipment within {n + 5} working days.")
        for n in range(3)
    ]
    remote = state_doc(
        "Remote work", "Working from another country is limited to 15 working days per year."
    )
    question = "Is it permitted to work from abroad, and for how many days?"
    assert common_words(question, asked_about(question), [*pages, remote]) == ["work", "days"]
    other = answers_other(question, [*pages, remote])
    assert other is not None and not other("15 working days", remote)


def test_a_footer_copy_for_what_no_page_states_is_declined() -> None:
    draft = "Salaries are reviewed every year [1]."
    out = _salaries_run(
        FOOTED_PAGES,
        quote("every year", **{"every": 0.95, "NONE": 0.05}),
        NOTHING,
        quote("at least once a year", **{"at": 0.95, "NONE": 0.05}),
        NOTHING,
        drafts=(draft, draft),
    )
    assert events(out, "assess", "other_fact") == [
        {"documents": ["Working hours", "Shubrend office"]}
    ]
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 0
    # The generator gives the footer's cycle anyway: the verifier knows it for another
    # fact with no call (the judge model has no verdict left to give), twice.
    assert [e["claim"] for e in events(out, "verify", "other_fact")] == [
        'the answer gives "every year", which document [1] states of something else'
    ] * 2
    assert out["abstained"] is True and out["reason"] == "unsupported_claims"


def test_a_draft_giving_a_footer_cycle_from_a_page_the_judge_found_nothing_in() -> None:
    # The judge misreads the working-hours page (a copy it does not hold: Somewhat, no
    # copy), so that page leads; the draft gives its "every year" for salaries.
    draft = "Salaries are reviewed every year [1]."
    out = _salaries_run(
        FOOTED_PAGES,
        quote("Each month", **{"Each": 0.6, "NONE": 0.4}),
        NOTHING,
        quote("at least once a year", **{"at": 0.95, "NONE": 0.05}),
        NOTHING,
        drafts=(draft, draft),
    )
    judged = {e["doc_id"]: e for e in events(out, "judge", "judged")}
    assert judged["Working hours"]["label"] == "somewhat_relevant"
    assert judged["Working hours"]["evidence"] == ""
    assert events(out, "combine", "combined")[0]["chosen"][0] == "Working hours"
    assert [e["claim"] for e in events(out, "verify", "other_fact")] == [
        'the answer gives "every year", which document [1] states of something else'
    ] * 2
    assert out["abstained"] is True


def test_a_draft_citing_a_page_without_its_value_is_read_against_the_others() -> None:
    # The draft cites the minutes, which state no cycle; the knowledge states "once a
    # year" only in footers.
    minutes = doc("Minutes", "The council agreed to revisit the topic next quarter.")
    draft = "The document states that salaries are reviewed at least once a year [1]."
    out = _salaries_run(
        [minutes, *FOOTED_PAGES],
        quote("Each month", **{"Each": 0.6, "NONE": 0.4}),
        NOTHING,
        NOTHING,
        quote("at least once a year", **{"at": 0.95, "NONE": 0.05}),
        NOTHING,
        drafts=(draft, draft),
    )
    assert events(out, "combine", "combined")[0]["chosen"][0] == "Minutes"
    assert [e["claim"] for e in events(out, "verify", "other_fact")] == [
        'the answer gives "once a year", which document [2] states of something else'
    ] * 2
    assert out["abstained"] is True


def test_a_citation_is_not_repaired_to_a_footer() -> None:
    # The draft cites a page that states another cycle of salaries; the verifier's repair
    # would point it at a footer, which states the cycle of something else.
    claim = "Salaries are reviewed at least once a year and whenever the process changes"
    bands = doc("Salary bands", "The salary bands are published once a year.")
    out = _salaries_run(
        [bands, *FOOTED_PAGES],
        quote("Each month", **{"Each": 0.6, "NONE": 0.4}),
        NOTHING,
        NOTHING,
        quote("at least once a year", **{"at": 0.95, "NONE": 0.05}),
        NOTHING,
        verdict(False, 0.9, claims=[claim]),
        verdict(False, 0.9, claims=[claim]),
        drafts=(f"{claim} [1].", f"{claim} [1]."),
    )
    assert events(out, "combine", "combined")[0]["chosen"][:2] == [
        "Salary bands",
        "Shubrend office",
    ]
    assert events(out, "verify", "other_fact") == []  # "once a year" of salaries: read
    failed = events(out, "verify", "citation_repair_failed")
    assert [f["why"] for f in failed] == [
        'the answer gives "once a year", which document [2] states of something else'
    ] * 2
    assert events(out, "verify", "citations_repaired") == []
    assert out["abstained"] is True


def test_the_values_a_text_gives() -> None:
    often = "how often are salaries reviewed?"
    text = "Reviewed every year, or at least once a year, from 2024."
    assert values_given(often, text) == ["every year", "once a year"]
    assert values_given("May I claim a meal, and up to what amount?", "Up to 1,500 or 20") == [
        "1,500",
        "20",
    ]
    refused = stated_of_other(often, FOOTED)
    assert refused is not None
    assert refused("The rules are reviewed every year.", FOOTED[0])
    pay = state_doc("Pay", "Salaries are reviewed once a year.")
    assert not refused("Salaries are reviewed once a year.", pay)


HOTELS = doc("Hotels", "The hotel limit outside capital cities is 120 euros a night.")
FLIGHTS = doc("Flights", "Flights over six hours may be booked in business class.")


def _flights_run(hotel_share: float) -> dict[str, Any]:
    """The judge copies the hotel limit (P = `hotel_share`) and nothing from "Flights"."""
    parts = Components(
        chat_model=generator("Yes, on flights over six hours [1]."),
        judge_model=judge_model(
            quote("120 euros a night", **{"120": hotel_share, "NONE": 1 - hotel_share}),
            quote("Long flights", **{"Long": 0.6, "NONE": 0.4}),
            verdict(True, 0.9),
            knows="B",
        ),
        retriever=scripted_retriever([HOTELS, FLIGHTS]),
    )
    return run(parts, "May I fly business class, and on flights of what length?")


def test_a_copy_of_another_fact_comes_after_the_page_stating_the_value_asked() -> None:
    # The copy falls just under the threshold: on its score the hotel page would lead,
    # and the first draft cite it.
    out = _flights_run(0.6)
    judged = {e["doc_id"]: e for e in events(out, "judge", "judged")}
    assert judged["Hotels"]["label"] == judged["Flights"]["label"] == "somewhat_relevant"
    assert judged["Hotels"]["evidence"] == "120 euros a night"
    assert events(out, "assess", "other_fact") == []  # nothing Highly Relevant to relabel
    combined = events(out, "combine", "combined")[0]
    assert combined["chosen"] == ["Flights", "Hotels"]
    assert out["citations"][0]["title"] == "Flights"


def test_a_highly_relevant_copy_of_another_fact_is_no_support() -> None:
    out = _flights_run(0.95)
    assert events(out, "judge", "judged")[0]["label"] == "highly_relevant"
    assert events(out, "assess", "other_fact") == [{"documents": ["Hotels"]}]
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 0
    # The other fact's page is last; the generator reads the page that answers first.
    assert out["citations"][0]["title"] == "Flights"


DIRECTORY = """Staff directory
| Name | Office | Extension |
|---|---|---|
| Nukilil Saizethu | Kurovak | 2163 |
| Zaleth Dumas | Maiti | 4690 |
| Numatre Kasai | Kurovak | 3072 |"""


def test_the_data_rows_of_a_table() -> None:
    assert table_rows(DIRECTORY) == [
        [
            "| Nukilil Saizethu | Kurovak | 2163 |",
            "| Zaleth Dumas | Maiti | 4690 |",
            "| Numatre Kasai | Kurovak | 3072 |",
        ]
    ]
    # A chunk cut inside a table starts with data rows; prose has none.
    assert table_rows("| 2023 | 576 |\n| 2022 | 550 |\nMore text.") == [
        ["| 2023 | 576 |", "| 2022 | 550 |"]
    ]
    assert table_rows("No table here.") == []


@pytest.mark.parametrize(
    ("question", "text", "copy", "wrong"),
    [
        # Another person's office; the row the question names holds another.
        ("which office is zaleth dumas based in?", DIRECTORY, "Kurovak", True),
        ("which office is zaleth dumas based in?", DIRECTORY, "Maiti", False),
        ("What is Numatre Kasai's extension?", DIRECTORY, "2163", True),
        ("What is Numatre Kasai's extension?", DIRECTORY, "3072", False),
        # No row holds the question's words: nothing tells the rows apart.
        ("Who is in the Kurovak office?", "| 2023 | 576 |\n| 2022 | 550 |", "576", False),
        (
            "How many people does Ulvdene employ?",
            "| Year | Employees |\n|---|---|\n| 2023 | 576 |\n| 2022 | 550 |",
            "550",
            False,
        ),
        # A year is a row's key: only as itself.
        (
            "How many people did Ulvdene employ in 2022?",
            "| Year | Employees |\n|---|---|\n| 2023 | 576 |\n| 2022 | 550 |",
            "576",
            True,
        ),
        # The unit named in the column of the values: no row is the one asked about.
        (
            "How hot can the GPMG get?",
            "| Model | GPMG |\n| Operating temperature | 40 °C |\n| Weight | 2.1 kg |",
            "40 °C",
            False,
        ),
        # A sentence holding the copy: not read from a row.
        (
            "which office is zaleth dumas based in?",
            DIRECTORY + "\nKurovak has 40 desks.",
            "Kurovak",
            False,
        ),
    ],
)
def test_a_copy_read_from_another_row(question: str, text: str, copy: str, wrong: bool) -> None:
    assert wrong_row(row_words(question), text, copy) is wrong


TWO_DUMAS = f"{DIRECTORY}\n| Peri Dumas | Sadeth | 5120 |"


@pytest.mark.parametrize(
    ("question", "text", "copy", "cell"),
    [
        # The copy's column, the row the question names.
        ("which office is zaleth dumas based in?", DIRECTORY, "Kurovak", "Maiti"),
        ("What is Numatre Kasai's extension?", DIRECTORY, "2163", "3072"),
        (
            "How many people did Ulvdene employ in 2022?",
            "| Year | Employees |\n|---|---|\n| 2023 | 576 |\n| 2022 | 550 |",
            "576",
            "550",
        ),
        # Read from the row asked about: nothing to re-read.
        ("which office is zaleth dumas based in?", DIRECTORY, "Maiti", None),
        # Another column's cell is a copy of another fact; a chunk cut inside a table
        # has no heading to say which column is asked.
        ("which office is zaleth dumas based in?", DIRECTORY, "2163", None),
        (
            "which office is zaleth dumas based in?",
            "| Nukilil Saizethu | Kurovak | 2163 |\n| Zaleth Dumas | Maiti | 4690 |",
            "Kurovak",
            None,
        ),
        # The row holding the most of the question's words; with two alike, not known.
        ("Which office is Zaleth Dumas in?", TWO_DUMAS, "Kurovak", "Maiti"),
        ("Which office is Dumas in?", TWO_DUMAS, "Kurovak", None),
    ],
)
def test_the_cell_a_copy_from_another_row_stands_for(
    question: str, text: str, copy: str, cell: str | None
) -> None:
    assert asked_cell(row_words(question), text, copy) == cell


def directory_and_office(directory: str, question: str) -> dict[str, Any]:
    """A run over a staff directory and an office page, the judge copying "Kurovak"."""
    office = doc("Kurovak office", "The Kurovak office is one of the three offices.")
    parts = Components(
        chat_model=generator("Zaleth Dumas is based in Maiti [1]."),
        judge_model=judge_model(
            quote("Kurovak", **{"Kurovak": 0.95, "NONE": 0.05}),
            quote("One of three", **{"One": 0.6, "NONE": 0.4}),
            verdict(True, 0.9),
            knows="B",
        ),
        retriever=scripted_retriever([doc("Staff directory", directory), office]),
    )
    return run(parts, question)


def test_a_copy_from_another_row_is_read_from_the_row_asked_about() -> None:
    # The judge reads the office from the row above: the directory's copy becomes the
    # office of the row the question names, and the directory stays the support.
    out = directory_and_office(DIRECTORY, "which office is zaleth dumas based in?")
    assert events(out, "judge", "judged")[0]["evidence"] == "Kurovak"
    assert events(out, "assess", "other_row") == [
        {"documents": ["Staff directory"], "read": {"Staff directory": "Maiti"}}
    ]
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 1
    assert events(out, "combine", "combined")[0]["chosen"] == ["Staff directory"]
    assert "Maiti" in out["answer"]


def test_a_cell_an_answer_gives_from_another_row() -> None:
    asked = row_words("which office is zaleth dumas based in?")
    assert misread_cell(asked, DIRECTORY, "Zaleth Dumas is based in Kurovak.") == (
        "Kurovak",
        "Maiti",
    )
    # The row asked about: its own cells, whatever else the answer says.
    assert misread_cell(asked, DIRECTORY, "Zaleth Dumas is based in Maiti.") is None
    assert misread_cell(asked, DIRECTORY, "Maiti, not Kurovak.") is None
    # No row is known to be the one asked about.
    assert misread_cell(row_words("Which office is Dumas in?"), TWO_DUMAS, "Kurovak") is None


def test_an_answer_read_from_another_row_is_replaced_by_the_row_asked_about() -> None:
    # The judge's copy is re-read, and the generator reads the row above all the same:
    # the cited directory's row for Zaleth Dumas answers, with no verifier call.
    parts = Components(
        chat_model=generator("The office of Zaleth Dumas is based in Kurovak. [1]"),
        judge_model=judge_model(quote("Kurovak", **{"Kurovak": 0.95, "NONE": 0.05}), knows="B"),
        retriever=scripted_retriever([doc("Staff directory", DIRECTORY)]),
    )
    out = run(parts, "which office is zaleth dumas based in?")
    assert events(out, "verify", "other_row") == [
        {"claim": "Kurovak", "document": 1, "replaced_by": "Maiti"}
    ]
    assert out["answer"] == "Maiti [1]"
    assert [c["title"] for c in out["citations"]] == ["Staff directory"]
    assert events(out, "verify", "checked")[-1]["by"] == "table_row"
    assert out["cost"]["llm_calls"] == 3  # the judge, the model's confidence, the draft


def test_a_copy_from_another_row_is_no_support_when_the_row_is_not_known() -> None:
    # Two rows hold "Dumas": the copy is dropped; the directory keeps its score and
    # still leads the page the judge found nothing in.
    out = directory_and_office(TWO_DUMAS, "Which office is Dumas in?")
    assert events(out, "judge", "judged")[0]["label"] == "highly_relevant"
    assert events(out, "assess", "other_row") == [
        {"documents": ["Staff directory"], "read": {"Staff directory": ""}}
    ]
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 0
    combined = events(out, "combine", "combined")[0]
    assert combined["chosen"] == ["Staff directory", "Kurovak office"]


def test_a_question_describing_what_it_asks_about_is_not_held_to_a_row() -> None:
    # "the person who hired Ana Lima" is in another row than Ana Lima's.
    parts = Components(
        chat_model=generator("It is 4690 [1]."),
        judge_model=judge_model(
            quote("4690", **{"4690": 0.95, "NONE": 0.05}), verdict(True, 0.9), knows="B"
        ),
        retriever=scripted_retriever([doc("Staff directory", DIRECTORY)]),
    )
    out = run(
        parts, "What is the extension of the person who hired Numatre Kasai?", hop_questions="off"
    )
    assert events(out, "assess", "other_row") == []
    assert events(out, "assess", "assessed")[-1]["counts"]["highly_relevant"] == 1
