"""A document that later replaces its own value: the later one holds, and both are cited."""

from __future__ import annotations

from typing import Any

import pytest

from judged_rag import Components, build_graph
from judged_rag.core.conflicts import disagreement
from judged_rag.core.updates import superseding, unchanged
from judged_rag.state import Update
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

QUESTION = "Who is the chief executive of Iskmere Marine Engineering?"
PAGE = (
    "[Context: dated 2001; earlier in this section: Kozokoth Dikeisik]\n"
    "Iskmere Marine Engineering\n"
    "Kozokoth Dikeisik became chief executive in 2003. Senior managers are promoted from "
    "within. In January 2018 Shimel Beimeker succeeded Dikeisik. In 2020 the yard grew."
)


@pytest.mark.parametrize(
    ("copy", "question", "later"),
    [
        ("Kozokoth Dikeisik", QUESTION, "In January 2018 Shimel Beimeker succeeded Dikeisik."),
        ("Kozokoth Dikeisik became chief executive in 2003", QUESTION, "In January 2018"),
        # The question asks about a year: then, not now.
        ("Kozokoth Dikeisik", "Who was the chief executive of it in 2010?", None),
        # The copy's statement has no year, or nothing later names the copy.
        ("Iskmere Marine Engineering", "What is the company called?", None),
        ("Senior managers", "Who is promoted from within?", None),
        ("Shimel Beimeker", QUESTION, None),
    ],
)
def test_a_copy_is_superseded_by_a_later_dated_statement_that_names_it(
    copy: str, question: str, later: str | None
) -> None:
    found = superseding(PAGE, copy, question)
    if later is None:
        assert found is None
    else:
        assert found is not None and found.text.startswith(later)
        assert (found.since, found.date) == ("2003", "2018")
        assert "[Context" not in found.text and "2020" not in found.text


def test_a_value_and_its_later_replacement_in_one_document_are_a_dated_conflict() -> None:
    update = Update(value="Shimel Beimeker", date="2018", since="2003")
    judged = {"p": {**highly("p", "Kozokoth Dikeisik"), "update": update}}
    conflict = disagreement([state_doc("p", PAGE)], judged)  # type: ignore[arg-type]
    assert conflict is not None and conflict["kind"] == "dated"
    assert [(v["value"], v["numbers"], v["date"]) for v in conflict["values"]] == [
        ("Shimel Beimeker", [1], "2018"),
        ("Kozokoth Dikeisik", [1], "2003"),
    ]


def run(
    parts: Components,
    recorder: PromptRecorder | None = None,
    question: str = QUESTION,
    **settings: Any,
) -> dict[str, Any]:
    graph = build_graph(parts, retry_interval=0)
    base = {"judge": "extract", "judge_threshold": 0.7, "web_search": "none"}
    config = {
        "max_concurrency": 1,
        "configurable": {"gate": False, "max_iterations": 1, **base, **settings},
        "callbacks": [recorder] if recorder else [],
    }
    return graph.invoke({"question": question}, config)  # type: ignore[arg-type,return-value]


def test_the_judge_reads_the_later_statement_once_and_the_answer_gives_the_later_value() -> None:
    answer = "Since 2018 Shimel Beimeker [1]; Kozokoth Dikeisik was chief executive from 2003 [1]."
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            quote("Kozokoth Dikeisik", Koz=0.95, NONE=0.05),
            quote("Shimel Beimeker", Sh=0.9, NONE=0.1),
            verdict(),
        ),
        retriever=scripted_retriever([doc("p", PAGE, similarity=0.8)]),
    )
    recorder = PromptRecorder()
    out = run(parts, recorder)
    reread = [p for p in recorder.prompts if "what replaced Kozokoth Dikeisik?" in p]
    assert len(reread) == 1  # read once: the copy's statement, then the later one alone
    statements = reread[0].split("<document>", 1)[1]
    assert "became chief executive in 2003" in statements and "In January 2018" in statements
    assert statements.index("2003") < statements.index("2018")
    assert "Senior managers" not in statements  # the rest of the chunk is not read again
    event = next(e["detail"] for e in out["trace"] if e["event"] == "later_statement")
    assert event["update"] == "Shimel Beimeker" and (event["since"], event["later"]) == (
        "2003",
        "2018",
    )
    assert out["route"]["conflict"] == "dated"
    assert out["answer"] == answer and not out["abstained"]
    told = [p for p in recorder.prompts if "latest dated document holds" in p]
    assert len(told) == 1 and '"Shimel Beimeker" [1] (dated 2018)' in told[0]


def test_a_reread_that_copies_a_sentence_or_the_same_value_changes_nothing() -> None:
    for reply in ("Shimel Beimeker succeeded Dikeisik", "Dikeisik", "NONE"):
        parts = Components(
            chat_model=generator("Kozokoth Dikeisik [1]."),
            judge_model=judge_model(
                quote("Kozokoth Dikeisik", Koz=0.95, NONE=0.05),
                quote(reply, **({"NONE": 0.9, "Sh": 0.1} if reply == "NONE" else {"Sh": 0.9})),
                verdict(),
            ),
            retriever=scripted_retriever([doc("p", PAGE, similarity=0.8)]),
        )
        out = run(parts, PromptRecorder())
        event = next(e["detail"] for e in out["trace"] if e["event"] == "later_statement")
        assert event["update"] is None, reply
        assert out["route"].get("conflict") is None
        assert out["answer"] == "Kozokoth Dikeisik [1]."


def test_dated_support_is_read_beside_the_rounds_pages_about_its_subject() -> None:
    question = "Who is the chief executive of Grelby Weaving Company?"
    digest = doc(
        "digest",
        "[Context: dated 2021]\nBusiness digest 2021\nGrelby Weaving Company employed 1,125 "
        "people. Its chief executive, Fadei Bovos, spoke to the digest.",
        similarity=0.8,
        title="Business digest 2021",
    )
    page = doc(
        "page",
        "Leadership\nFadei Bovos became chief executive in 2011. In April 2022 Brutrokal "
        "Darer succeeded Bovos.",
        similarity=0.7,
        title="Grelby Weaving Company",
    )
    other = doc("other", "Grelby Dyeworks is based in Posoth.", similarity=0.6)
    answer = "Brutrokal Darer, since 2022 [2]; Fadei Bovos before [1]."
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            quote("Fadei Bovos", Fa=0.95, NONE=0.05),  # the digest, first batch
            quote("Fadei Bovos", Fa=0.95, NONE=0.05),  # the company's page, read next
            quote("Brutrokal Darer", Br=0.9, NONE=0.1),  # its later statement
            verdict(),
        ),
        retriever=scripted_retriever([digest, page, other]),
    )
    out = run(parts, question=question, judge_batch=1)
    reading = next(e["detail"] for e in out["trace"] if e["event"] == "dated_support")
    assert reading == {"reading": ["page"]}  # the page about the subject, not "other"
    judged_ids = [e["detail"]["doc_id"] for e in out["trace"] if e["event"] == "judged"]
    assert judged_ids == ["digest", "page"]
    assert out["route"]["conflict"] == "dated"
    assert out["answer"] == answer


def test_dated_support_is_read_beside_a_page_naming_its_subject_in_a_section() -> None:
    # The minutes of one meeting are dated; the page that says when the board meets is
    # titled by its topic and names the board in a section of its own.
    minutes = doc(
        "minutes",
        "[Context: dated 2024-08-19]\nMinutes of the WSB meeting, August 2024\nMinutes of the "
        "meeting of the WSB held on 2024-08-19.",
        similarity=0.8,
        title="Minutes of the WSB meeting, August 2024",
    )
    bodies = doc(
        "bodies",
        "[Context: dated 2025-08-01]\nGovernance bodies\nWSB\nThe Workplace Services Board "
        "(WSB) reports to the management team. It meets on the second Thursday of each month.",
        similarity=0.6,
        title="Governance bodies",
    )
    other = doc("other", "Canteen\nThe canteen opens at eight.", similarity=0.7, title="Canteen")
    answer = "The WSB meets on the second Thursday of each month [2]; it met on 2024-08-19 [1]."
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            quote("2024-08-19", x=0.95, NONE=0.05),  # the minutes, first batch
            quote("second Thursday of each month", x=0.9, NONE=0.1),  # the section
            verdict(),
        ),
        retriever=scripted_retriever([minutes, other, bodies]),
    )
    out = run(parts, question="When does the WSB meet?", judge_batch=1)
    reading = next(e["detail"] for e in out["trace"] if e["event"] == "dated_support")
    assert reading == {"reading": ["bodies"]}  # named in its text, not its title
    judged_ids = [e["detail"]["doc_id"] for e in out["trace"] if e["event"] == "judged"]
    assert judged_ids == ["minutes", "bodies"]


NOTES_3_5 = (
    "[Context: dated 2025-04-02]\n[Defined elsewhere: KLDR = Kredroth Leak Detection Relay]\n"
    "KLDR firmware 3.5 release notes\nChanges to defaults\nThe default log retention is now "
    "90 days. The default alarm delay is unchanged. From version 3.5 the default screen "
    "timeout is 5 minutes (previously 10 minutes)."
)
NOTES_3_3 = (
    "[Context: dated 2024-06-11]\nKLDR firmware 3.3 release notes\nChanges to defaults\n"
    "From version 3.3 the default alarm delay is 20 seconds (previously 30 seconds)."
)
ALARM = "What is the current default alarm delay of the KLDR?"


@pytest.mark.parametrize(
    ("text", "question", "said"),
    [
        (NOTES_3_5, ALARM, "The default alarm delay is unchanged."),
        (NOTES_3_5, "what's the kldr's default alarm delay now?", "The default alarm delay is"),
        # Another thing did not change, or the value is stated.
        (NOTES_3_5, "What is the current default log retention of the KLDR?", None),
        (NOTES_3_5, "What is the default screen timeout of the KLDR?", None),
        (NOTES_3_3, ALARM, None),
        (
            "From version 2.8 the default screen timeout has not changed.",
            "What is the screen timeout by default?",
            "From version 2.8",
        ),
        ("The canteen menu remains the same. Prices rose.", "How much is lunch?", None),
    ],
)
def test_a_statement_that_what_is_asked_did_not_change(
    text: str, question: str, said: str | None
) -> None:
    found = unchanged(text, question)
    if said is None:
        assert found is None
    else:
        assert found is not None and found.startswith(said)


@pytest.mark.parametrize("copy", ["10 minutes", "unchanged"])  # the first: the screen timeout's
def test_a_chunk_saying_the_value_did_not_change_is_no_support(copy: str) -> None:
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(quote(copy, x=0.95, NONE=0.05), verdict()),
        retriever=scripted_retriever([doc("n35", NOTES_3_5, similarity=0.8)]),
    )
    out = run(parts, question=ALARM)
    judged = next(e["detail"] for e in out["trace"] if e["event"] == "judged")
    assert judged["label"] == "somewhat_relevant" and judged["evidence"] == ""
    assert judged["p_highly"] == 0.0


def test_the_earlier_document_that_states_the_value_answers() -> None:
    answer = "The default alarm delay of the KLDR is 20 seconds [1]."
    parts = Components(
        chat_model=generator(answer),
        judge_model=judge_model(
            quote("10 minutes", x=0.95, NONE=0.05),  # the latest notes: "unchanged"
            quote("20 seconds", x=0.95, NONE=0.05),  # the notes that set it
            verdict(),
        ),
        retriever=scripted_retriever(
            [doc("n35", NOTES_3_5, similarity=0.8), doc("n33", NOTES_3_3, similarity=0.7)]
        ),
    )
    recorder = PromptRecorder()
    out = run(parts, recorder, question=ALARM, judge_batch=2)
    labels = {
        e["detail"]["doc_id"]: e["detail"]["label"] for e in out["trace"] if e["event"] == "judged"
    }
    assert labels == {"n35": "somewhat_relevant", "n33": "highly_relevant"}
    drafted = [p for p in recorder.prompts if p.endswith(f"Question: {ALARM}")]
    assert drafted and "(previously 30 seconds)" in drafted[-1]
    assert "is unchanged" not in drafted[-1]  # only the Highly Relevant notes are shown
    assert out["answer"] == answer and not out["abstained"]


def test_a_value_the_no_change_statement_gives_is_kept() -> None:
    text = "KLDR firmware 3.6 release notes\nThe default alarm delay is unchanged at 20 seconds."
    parts = Components(
        chat_model=generator("20 seconds [1]."),
        judge_model=judge_model(quote("20 seconds", x=0.95, NONE=0.05), verdict()),
        retriever=scripted_retriever([doc("n36", text, similarity=0.8)]),
    )
    out = run(parts, question=ALARM)
    judged = next(e["detail"] for e in out["trace"] if e["event"] == "judged")
    assert judged["label"] == "highly_relevant" and judged["evidence"] == "20 seconds"
