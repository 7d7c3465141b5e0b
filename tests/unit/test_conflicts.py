"""Documents that disagree: the latest dated one holds, or the answer gives each value."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag import Components, build_graph
from judged_rag.core.conflicts import comparable, disagreement, name_like, stated_date, unmet
from judged_rag.core.documents import doc_date
from judged_rag.indexing.dates import document_date, parse_date
from judged_rag.state import Doc
from tests.fakes import (
    PromptRecorder,
    doc,
    generator,
    highly,
    judge_model,
    quote,
    scripted_retriever,
    state_doc,
    verdict,
)

QUESTION = "When does the morning ferry to Holm leave?"
OLD = "[Context: dated 2019-03-01]\nNotice\nThe morning ferry to Holm leaves at 07:10."
NEW = "[Context: dated 2024-06-01]\nNotice\nThe morning ferry to Holm leaves at 07:40."


@pytest.mark.parametrize(
    ("meta", "text", "title", "date"),
    [
        ({"date": "2024-08-08"}, "", "Travel", "2024-08-08"),
        ({"updated": "March 2025", "date": "2020"}, "", "Travel", "2025-03"),
        ({}, "Notice\nPublished: 3 May 2021\nThe ferry leaves at 9.", "Notice", "2021-05-03"),
        ({}, "**As of** June 2024 the ferry leaves at 10.", "Notice", "2024-06"),
        ({}, "The board met.", "Minutes of the board meeting, April 2024", "2024-04"),
        ({}, "It was built in 1999.", "Ferry", None),  # a year in the text is no date
        ({}, "Text.", "Annual report", None),
        ({}, "Figures are for the end of the year.", "Shipbuilding industry review 2016", "2016"),
        ({}, "Text.", "2019 annual report", "2019"),
        ({}, "Text.", "The Vision 2030 plan", None),  # a year inside a title is a name
    ],
)
def test_a_document_is_dated_by_what_it_states(
    meta: dict[str, str], text: str, title: str, date: str | None
) -> None:
    assert document_date(meta, text, title) == date


def test_dates_are_read_as_documents_write_them() -> None:
    assert parse_date("August 8, 2024") == parse_date("8th Aug. 2024") == "2024-08-08"
    assert parse_date("2024-13-01") is None and parse_date("1999") is None
    assert parse_date("in 1999", year_alone=True) == "1999"


def test_a_chunk_carries_its_date_in_its_note_and_only_a_kb_chunk_is_dated() -> None:
    assert doc_date(state_doc("a", NEW)) == "2024-06-01"
    assert doc_date(state_doc("a", "The ferry leaves at 07:40.")) is None
    web = {**state_doc("w", NEW), "origin": "web"}
    assert doc_date(web) is None  # type: ignore[arg-type]


def test_the_latest_dated_value_holds_and_the_others_are_listed_after_it() -> None:
    knowledge = [state_doc("old", OLD), state_doc("new", NEW), state_doc("copy", NEW)]
    judged = {
        "old": highly("old", "07:10"),
        "new": highly("new", "07:40"),
        "copy": highly("copy", "leaves at 07:40"),
    }
    conflict = disagreement(knowledge, judged)
    assert conflict is not None and conflict["kind"] == "dated"
    assert [(v["value"], v["numbers"], v["date"]) for v in conflict["values"]] == [
        ("07:40", [2, 3], "2024-06-01"),
        ("07:10", [1], "2019-03-01"),
    ]
    assert (
        unmet(conflict, "It leaves at 07:40 since June 2024 [2]; in 2019 it was 07:10 [1].") is None
    )
    assert "07:40" in (unmet(conflict, "It leaves at 07:10 [1].") or "")
    # Both given, the earlier one as the answer: not the value that holds.
    led = unmet(conflict, "The latest notice says 07:10 [1]; an earlier one said 07:40 [2].")
    assert led is not None and "first" in led


def test_values_nothing_decides_between_must_all_be_given() -> None:
    undated = [state_doc("a", "The society was founded in 1871."), state_doc("b", "Founded 1874.")]
    judged = {"a": highly("a", "1871"), "b": highly("b", "1874")}
    conflict = disagreement(undated, judged)
    assert conflict is not None and conflict["kind"] == "undated"
    assert unmet(conflict, "In 1871 [1] or 1874 [2]: the documents disagree.") is None
    assert "1874" in (unmet(conflict, "It was founded in 1871 [1].") or "")
    # One value dated and one not, or two on the same date: nothing decides.
    same_day = [state_doc("a", NEW), state_doc("b", NEW.replace("07:40", "08:00"))]
    tie = disagreement(same_day, {"a": highly("a", "07:40"), "b": highly("b", "08:00")})
    assert tie is not None and tie["kind"] == "undated"


def test_a_value_is_dated_by_its_own_statement_before_its_document() -> None:
    page = state_doc(
        "page", "## Staff\n| Year | Staff |\n|---|---|\n| 2011 | 480 |\n| 2023 | 445 |"
    )
    digest = state_doc("digest", "[Context: dated 2021]\nGrelby Dyeworks employed 408 people.")
    assert stated_date(page, "445") == "2023"
    assert stated_date(page, "480") == "2011"
    assert stated_date(digest, "408") == "2021"  # no year of its own: the document's
    mill = state_doc("mill", "In 2013 the mill had 526 employees; by 2023 it had 467.")
    assert (stated_date(mill, "526"), stated_date(mill, "467")) == ("2013", "2023")
    founded = state_doc("f", "The society was founded in 1971.")
    assert stated_date(founded, "1971") is None  # a year answers "when": the document's date
    life = state_doc("life", "[Context: dated 2020]\nShe was born in 1923 and died in 1987.")
    assert stated_date(life, "1987") == "2020"
    assert stated_date(founded, "the society") == "1971"  # after it in its clause
    judged = {"page": highly("page", "445"), "digest": highly("digest", "408")}
    conflict = disagreement([page, digest], judged, "How many people does it employ?")
    assert conflict is not None and conflict["kind"] == "dated"
    assert [(v["value"], v["date"]) for v in conflict["values"]] == [
        ("445", "2023"),
        ("408", "2021"),
    ]
    # A question naming a year asks about then: the page's rows do not date its values.
    pinned = disagreement([page, digest], judged, "How many people did it employ in 2021?")
    assert pinned is not None and pinned["kind"] == "undated"


def test_agreeing_copies_and_other_labels_are_no_conflict() -> None:
    knowledge = [state_doc("a", NEW), state_doc("b", NEW), state_doc("c", OLD)]
    judged = {
        "a": highly("a", "07:40"),
        "b": highly("b", "The morning ferry to Holm leaves at 07:40"),
        "c": {**highly("c", "07:10"), "label": "somewhat_relevant"},
    }
    assert disagreement(knowledge, judged) is None  # type: ignore[arg-type]


def run(
    parts: Components,
    recorder: PromptRecorder | None = None,
    question: str = QUESTION,
    options: list[str] | None = None,
) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    settings = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 1, **settings},
        "callbacks": [recorder] if recorder else [],
    }
    inputs = {"question": question, **({"options": options} if options else {})}
    return graph.invoke(inputs, config)  # type: ignore[arg-type,return-value]


def test_a_run_answers_with_the_latest_value_and_cites_both() -> None:
    answer = "Since June 2024 it leaves at 07:40 [2]; the 2019 notice said 07:10 [1]."
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            quote("07:10", **{"07": 0.95, "NONE": 0.05}),
            quote("07:40", **{"07": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever(
            [doc("old", OLD, similarity=0.7), doc("new", NEW, similarity=0.7)]
        ),
    )
    recorder = PromptRecorder()
    out = run(parts, recorder)
    assert out["route"]["conflict"] == "dated"
    found = next(e["detail"] for e in out["trace"] if e["event"] == "conflict")
    assert found["values"][0] == {"value": "07:40", "documents": [2], "date": "2024-06-01"}
    assert out["answer"] == answer and not out["abstained"]
    # The generator was told which value holds.
    told = [p for p in recorder.prompts if "latest dated document holds" in p]
    assert len(told) == 1 and '"07:40" [2] (dated 2024-06-01)' in told[0]


def test_an_answer_that_picks_one_side_of_an_undated_conflict_is_written_again() -> None:
    a = doc("a", "The society was founded in 1871.", similarity=0.7)
    b = doc("b", "The society was founded in 1874.", similarity=0.7)
    parts = Components(
        chat_model=generator(
            "It was founded in 1871 [1].",
            "The documents disagree: 1871 [1] or 1874 [2].",
        ),
        judge_model=judge_model(
            quote("1871", **{"18": 0.95, "NONE": 0.05}),
            quote("1874", **{"18": 0.95, "NONE": 0.05}),
            verdict(),
            verdict(),
        ),
        retriever=scripted_retriever([a, b]),
    )
    out = run(parts, question="When was the society founded?")
    assert out["route"]["conflict"] == "undated" and out["route"]["regenerations"] == 1
    assert out["answer"] == "The documents disagree: 1871 [1] or 1874 [2]."
    checked = [
        e["detail"] for e in out["trace"] if e["event"] == "conflict" and e["node"] == "verify"
    ]
    assert checked == [{"kind": "undated"}]


def test_a_copy_of_another_fact_is_no_conflict() -> None:
    # The judge passed a chunk stating a polling interval for a mounting height.
    knowledge = [state_doc("a", NEW), state_doc("b", OLD), state_doc("c", NEW)]
    judged = {
        "a": highly("a", "180 centimetres"),
        "b": highly("b", "30 seconds"),
        "c": highly("c", "the installer"),
    }
    assert disagreement(knowledge, judged) is None
    # Two values in one unit are, and the odd one out is left out.
    judged["c"] = highly("c", "150 centimetres")
    conflict = disagreement(knowledge, judged)
    assert conflict is not None
    assert [v["value"] for v in conflict["values"]] == ["180 centimetres", "150 centimetres"]


def test_values_the_judge_was_less_sure_of_than_another_copy_are_no_conflict() -> None:
    # A manual's start-up time, and two release notes' screen timeouts in one unit.
    manual = state_doc("manual", "The gateway takes 45 seconds to start up.")
    old = state_doc("old", "[Context: dated 2024-05-16]\nThe default screen timeout is 5 minutes.")
    new = state_doc(
        "new", "[Context: dated 2025-07-03]\nThe default screen timeout is now 3 minutes."
    )
    knowledge = [manual, old, new]
    judged = {
        "manual": {**highly("manual", "45 seconds"), "p_highly": 1.0},
        "old": {**highly("old", "5 minutes"), "p_highly": 0.81},
        "new": {**highly("new", "3 minutes"), "p_highly": 0.8},
    }
    question = "How long does the gateway take to start up?"
    assert disagreement(knowledge, judged, question) is None  # type: ignore[arg-type]
    # Where the surest copy is one of them (a tie counts), they disagree.
    judged["new"]["p_highly"] = 1.0
    conflict = disagreement(knowledge, judged, question)  # type: ignore[arg-type]
    assert conflict is not None and conflict["kind"] == "dated"
    assert [v["value"] for v in conflict["values"]] == ["3 minutes", "5 minutes"]
    # A surer copy that states no number is no rival value of two numbers.
    judged["new"]["p_highly"] = 0.8
    judged["manual"] = {**highly("manual", "It starts up in a few minutes"), "p_highly": 1.0}
    assert disagreement(knowledge, judged, question) is not None  # type: ignore[arg-type]
    # A judge that gives no probabilities: every disagreement stands.
    for j in judged.values():
        j.pop("p_highly")
    assert disagreement(knowledge, judged, question) is not None  # type: ignore[arg-type]


def test_for_a_measure_asked_only_copies_stating_it_are_values() -> None:
    # Two release notes: the judge passed their version numbers for a mounting height.
    old = state_doc("old", "[Context: dated 2023-02-09]\nFirmware 3.2 changes the timeout.")
    new = state_doc("new", "[Context: dated 2024-07-18]\nFirmware 3.6 changes the timeout.")
    knowledge = [old, new]
    versions = {"old": highly("old", "3.2"), "new": highly("new", "3.6")}
    height = "At what height should the DTRM be mounted?"
    assert disagreement(knowledge, versions) is not None  # no measure asked: rivals
    assert disagreement(knowledge, versions, height) is None
    # Copies in the measure's unit still disagree.
    heights = {"old": highly("old", "150 cm"), "new": highly("new", "180 cm")}
    conflict = disagreement(knowledge, heights, height)
    assert conflict is not None and [v["value"] for v in conflict["values"]] == ["180 cm", "150 cm"]


def test_two_chunks_of_one_page_state_two_facts_unless_each_names_its_year() -> None:
    def page(doc_id: str, text: str, source: str = "kb/travel.md") -> Doc:
        return {
            **state_doc(doc_id, "[Context: dated 2024-08-08]\nBusiness travel\n" + text),
            "source": source,
        }

    outside = page("outside", "Hotels may cost up to 120 euros per night outside capital cities.")
    capital = page("capital", "From July 2023 the hotel limit in capital cities is 210 euros.")
    judged = {"outside": highly("outside", "120 euros"), "capital": highly("capital", "210 euros")}
    assert disagreement([outside, capital], judged, "What is the hotel limit in capitals?") is None
    # The same two statements on two pages disagree, and the dates decide.
    other = {**outside, "source": "kb/other.md"}
    split = disagreement([other, capital], {**judged, "outside": highly("outside", "120 euros")})
    assert split is not None and [v["value"] for v in split["values"]] == ["120 euros", "210 euros"]
    # Documents whose retriever names no source are not taken for one page.
    nameless = [{**outside, "source": ""}, {**capital, "source": ""}]
    assert disagreement(nameless, judged) is not None
    # A page's own history, each value's statement naming its year, is a dated conflict.
    then = page("then", "In 2019 the company employed 408 people.")
    now = page("now", "In 2023 it employed 445 people.")
    history = disagreement(
        [then, now], {"then": highly("then", "408"), "now": highly("now", "445")}
    )
    assert history is not None and history["kind"] == "dated"
    assert [(v["value"], v["date"]) for v in history["values"]] == [
        ("445", "2023"),
        ("408", "2019"),
    ]


@pytest.mark.parametrize(
    ("a", "b", "same_fact"),
    [
        ("07:10", "07:40", True),
        ("1871", "1874", True),
        ("37 hours", "39 hours", True),
        ("37 hours", "39 hour", True),
        ("180 centimetres", "30 seconds", False),
        ("Rosos Dakrebrok", "Tatand Boshirail", False),
        ("12 hours", "the backup battery", False),
    ],
)
def test_which_copies_can_be_values_of_one_fact(a: str, b: str, same_fact: bool) -> None:
    assert comparable(a, b) is same_fact


@pytest.mark.parametrize(
    ("copy", "name"),
    [
        ("Ostrel, Vantmark", True),
        ("Kabrek Instruments", True),
        ("Bank of England", True),
        ("the installer", False),
        ("12 hours", False),
        ("The league moved the final to Ostrel, Vantmark in February", False),
    ],
)
def test_which_copies_are_names(copy: str, name: bool) -> None:
    assert name_like(copy) is name


CUP_FINAL = "Where was the Marrow Cup final played?"


def test_two_names_for_one_fact_disagree_unless_a_page_names_both() -> None:
    true = state_doc("a", "The Marrow Cup final was played at Harnow Park in Ostrel, Vantmark.")
    fake = state_doc("b", "The Marrow Cup final was played at Brisk Field in Kelby, Dunhaven.")
    judged = {"a": highly("a", "Ostrel, Vantmark"), "b": highly("b", "Kelby, Dunhaven")}
    conflict = disagreement([true, fake], judged)
    assert conflict is not None and conflict["kind"] == "undated"
    assert [v["value"] for v in conflict["values"]] == ["Ostrel, Vantmark", "Kelby, Dunhaven"]
    # The stadium and its city, each copied from a page naming both: one answer.
    judged["b"] = highly("b", "Harnow Park")
    stadium = state_doc("b", "The final was at Harnow Park in Ostrel, Vantmark.")
    assert disagreement([true, stadium], judged) is None
    # Two names on one page, however the copies differ, are held together there.
    assert disagreement([true, true | {"id": "b"}], judged) is None  # type: ignore[operator]


def test_when_the_generator_cannot_give_a_disagreement_the_answer_states_it() -> None:
    a = doc("a", "The Marrow Cup final was played in Ostrel, Vantmark.", similarity=0.7)
    b = doc("b", "The Marrow Cup final was played in Kelby, Dunhaven.", similarity=0.7)
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(
            quote("Ostrel, Vantmark", **{"O": 0.95, "NONE": 0.05}),
            quote("Kelby, Dunhaven", **{"K": 0.95, "NONE": 0.05}),
        ),
        retriever=scripted_retriever([a, b]),
    )
    out = run(parts, question=CUP_FINAL)
    assert out["route"]["conflict"] == "undated" and not out["abstained"]
    assert out["answer"] == (
        'The documents disagree, and nothing says which is right: "Ostrel, Vantmark" [1]; '
        '"Kelby, Dunhaven" [2].'
    )
    assert [c["doc_id"] for c in out["citations"]] == ["a", "b"]
    stated = [e["detail"] for e in out["trace"] if e["event"] == "conflict_stated"]
    assert stated == [{"kind": "undated", "values": 2}]


def test_an_answer_that_copies_the_checkers_instruction_is_no_answer() -> None:
    copied = (
        'The latest dated document states "07:40" [2]; the answer must give it first, as '
        "the value that holds."
    )
    parts = Components(
        chat_model=generator("It leaves at 07:10 [1]; since 2024 at 07:40 [2].", copied),
        judge_model=judge_model(
            quote("07:10", **{"07": 0.95, "NONE": 0.05}),
            quote("07:40", **{"07": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever(
            [doc("old", OLD, similarity=0.7), doc("new", NEW, similarity=0.7)]
        ),
    )
    out = run(parts)
    assert out["route"]["regenerations"] == 1
    assert [e for e in out["trace"] if e["event"] == "echoed_feedback"]
    # The values themselves, latest first, instead of the copied instruction.
    assert out["answer"].startswith('The latest dated document gives "07:40" [2]')
    assert "must" not in out["answer"]


def test_without_a_conflict_a_declining_generator_still_abstains() -> None:
    a = doc("a", "The Marrow Cup final was played in Ostrel, Vantmark.", similarity=0.7)
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(quote("Ostrel, Vantmark", **{"O": 0.95, "NONE": 0.05})),
        retriever=scripted_retriever([a]),
    )
    out = run(parts, question=CUP_FINAL)
    assert out["abstained"] and out["reason"] == "model_declined"


def test_a_closed_ended_task_answers_with_its_option_whatever_the_documents_say() -> None:
    a = doc("a", "The society was founded in 1871.", similarity=0.7)
    b = doc("b", "The society was founded in 1874.", similarity=0.7)
    parts = Components(
        chat_model=generator("1871"),
        judge_model=judge_model(
            quote("1871", **{"18": 0.95, "NONE": 0.05}),
            quote("1874", **{"18": 0.95, "NONE": 0.05}),
            verdict(),
        ),
        retriever=scripted_retriever([a, b]),
    )
    options = ["1871", "1874", "1900"]
    out = run(parts, question="When was the society founded?", options=options)
    assert out["answer"] == "1871" and not out["abstained"]
    assert "conflict" not in out["route"] and out["route"]["regenerations"] == 0


def test_two_pages_about_two_named_things_do_not_disagree() -> None:
    def page(doc_id: str, title: str, text: str) -> Doc:
        return {
            **state_doc(doc_id, f"[Context: dated 2025-04-21]\n{title}\n{text}"),
            "title": title,
        }

    bifol = page("bifol", "Project Bifol", "The core team has 9 people.")
    meigais = page("meigais", "Project Meigais", "The core team has 5 people.")
    judged = {"bifol": highly("bifol", "9"), "meigais": highly("meigais", "5")}
    asked = "how many people are in the core team of project bifol?"
    assert disagreement([meigais, bifol], judged, asked) is None
    # A page that names the asked project does disagree, whatever its own title.
    digest = page("digest", "Planning digest 2024", "Project Bifol's core team has 5 people.")
    judged["digest"] = highly("digest", "5")
    conflict = disagreement([digest, bifol], judged, asked)
    assert conflict is not None and {v["value"] for v in conflict["values"]} == {"9", "5"}
    # A question that names neither title's name leaves the values to disagree.
    assert disagreement([meigais, bifol], judged, "How large is a core team?") is not None
    # Nor is a title's first word a name, capitalised as every title's first word is.
    budget = page("budget", "Training budget", "The training budget is 1,500 euros.")
    travel = page("travel", "Travel rules", "The budget is 1,000 euros.")
    spent = {"budget": highly("budget", "1,500 euros"), "travel": highly("travel", "1,000 euros")}
    assert disagreement([budget, travel], spent, "What is the training budget?") is not None
    # Capitals make a name wherever they stand: the warranty of one unit is not another's.
    gfbc = page("gfbc", "GFBC user manual", "The unit carries a warranty of 24 months.")
    nldr = page("nldr", "NLDR user manual", "The unit carries a warranty of 12 months.")
    held = {"gfbc": highly("gfbc", "24 months"), "nldr": highly("nldr", "12 months")}
    assert disagreement([gfbc, nldr], held, "How long is the warranty on the GFBC?") is None
