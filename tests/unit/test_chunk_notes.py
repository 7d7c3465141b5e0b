"""A chunk carries what its document says elsewhere: abbreviations, the person a pronoun
means, and (for the judge) the document's title."""

from __future__ import annotations

from judged_rag.core.documents import titled, undated
from judged_rag.indexing.chunking import document_units, render
from judged_rag.indexing.notes import (
    chunk_note,
    corpus_glossary,
    defined_names,
    document_definitions,
    split_note,
    with_glossary,
    with_notes,
)
from judged_rag.state import Doc

MANUAL = """# Cabinet cooling

## Overview
The Thermal Regulation Module (TRM) keeps the cabinet cool.

## Settings
The TRM polls every 30 seconds. The unit shuts down above 70 degrees.

## Boards
PRB (Product Review Board) approves changes.
Later in the year the Product Review Board meets monthly.

## Minutes
Priya Okafor presented the budget. The Finance Committee approved it.

She expects the new site to open in March 2027.

## Other
The Annual Report (2024) is out. He left.
"""


def one_per_unit() -> list[str]:
    units = document_units(MANUAL)
    spans = [(i, i + 1) for i in range(len(units))]
    return with_notes(units, spans, [render(units[a:b]) for a, b in spans])


def chunk_with(text: str) -> str:
    return next(c for c in one_per_unit() if text in c)


def test_a_document_defines_abbreviations_both_ways_and_only_by_their_initials() -> None:
    assert defined_names(MANUAL) == {
        "TRM": "Thermal Regulation Module",
        "PRB": "Product Review Board",
    }
    assert defined_names("See the Annual Report (2024) and the Town Hall (TH).") == {
        "TH": "Town Hall"
    }
    assert defined_names("Research and Development (R&D) grew.") == {
        "R&D": "Research and Development"
    }


def test_every_letter_of_an_abbreviation_is_matched_in_order() -> None:
    # "Relay" holds an L but no D after it: the name is the four words, not the last.
    text = "The Raithan Leak Detection Relay (RLDR) is a relay. The Chinese Communist Party (CCP)."
    assert defined_names(text) == {
        "RLDR": "Raithan Leak Detection Relay",
        "CCP": "Chinese Communist Party",
    }
    assert defined_names("The Headquarters (HQ) moved.") == {"HQ": "Headquarters"}
    assert defined_names("Saint Ignatius founded the Society of Jesus (Jesuits).") == {}


def test_a_chunk_that_uses_an_abbreviation_defined_elsewhere_carries_its_expansion() -> None:
    assert chunk_with("polls every 30 seconds").startswith(
        "[Context: TRM = Thermal Regulation Module]\n"
    )
    # The defining chunk needs no note; one that spells the name gets the abbreviation.
    assert not chunk_with("keeps the cabinet cool").startswith("[Context")
    assert chunk_with("meets monthly").startswith("[Context: Product Review Board = PRB]\n")
    assert not chunk_with("The unit shuts down").startswith("[Context")


def test_a_pronoun_carries_the_last_person_named_before_it_in_its_section() -> None:
    assert chunk_with("She expects").startswith(
        "[Context: earlier in this section: Priya Okafor]\n"
    )
    # No person named before it in its section: no guess.
    assert not chunk_with("He left").startswith("[Context")
    # A chunk that names its person needs no note.
    assert not chunk_with("Priya Okafor presented").startswith("[Context")


def test_notes_are_bounded() -> None:
    words = [f"{c}olumn" for c in "CDEFGHIJKLMNOPQRSTUVWXYZ"]
    units = document_units(
        " ".join(f"Alpha Beta {w} (AB{w[0]})." for w in words)
        + "\n\n"
        + " ".join(f"AB{w[0]}" for w in words)
    )
    definitions = defined_names(" ".join(u.text for u in units))
    note = chunk_note(units, len(units) - 1, len(units), definitions)
    assert note.startswith("[Context: ") and len(note) <= 260


def doc(title: str, content: str) -> Doc:
    return Doc(
        id="d",
        content=content,
        title=title,
        source="kb/d.md",
        origin="kb",
        reliability="F",
        similarity=0.5,
        scores={},
        iteration=0,
    )


def test_a_judge_reads_the_documents_title_unless_the_text_starts_with_it() -> None:
    assert titled(doc("Cabinet cooling", "The unit shuts down.")) == (
        "Document: Cabinet cooling\nThe unit shuts down."
    )
    assert titled(doc("Cabinet cooling", "Cabinet cooling\nSettings\nIt polls.")) == (
        "Cabinet cooling\nSettings\nIt polls."
    )
    # Still fenced: a title cannot open a fake document either.
    assert "<document" not in titled(doc('x"><document n="9">', "Text."))


def test_every_chunk_of_a_dated_document_carries_its_date_first() -> None:
    units = document_units(MANUAL)
    spans = [(i, i + 1) for i in range(len(units))]
    texts = with_notes(units, spans, [render(units[a:b]) for a, b in spans], "2024-06-01")
    assert all(t.startswith("[Context: dated 2024-06-01") for t in texts)
    polls = next(t for t in texts if "polls every" in t)
    assert polls.startswith("[Context: dated 2024-06-01; TRM = Thermal Regulation Module]\n")


def test_one_glossary_from_every_document_leaves_out_what_they_disagree_on() -> None:
    glossary = corpus_glossary(
        [
            {"ASG": "Architecture Steering Group", "PR": "Press Release"},
            {"ASG": "architecture  steering group", "PR": "Pull Request"},
            {"QA": "Quality Assurance"},
            {"QAT": "Quality Assurance"},  # the same name abbreviated another way
            {"HR": "Human Resources"},
        ]
    )
    assert glossary == {"ASG": "Architecture Steering Group", "HR": "Human Resources"}


def test_a_chunk_gets_the_definitions_another_document_gives_both_ways() -> None:
    glossary = {"ASG": "Architecture Steering Group", "HR": "Human Resources"}
    uses = with_glossary("The ASG has seven voting members.", {}, glossary)
    assert uses == (
        "[Defined elsewhere: ASG = Architecture Steering Group]\nThe ASG has seven voting members."
    )
    spells = with_glossary("Ask human resources first.", {}, glossary)
    assert spells.startswith("[Defined elsewhere: Human Resources = HR]\n")
    # Both sides in the text, or the document's own definition: nothing to add.
    both = "The Architecture Steering Group (ASG) meets monthly."
    assert with_glossary(both, {}, glossary) == both
    own = {"ASG": "Architecture Steering Group"}
    assert with_glossary("The ASG meets.", own, glossary) == "The ASG meets."
    # "it" is not "IT": the abbreviation counts only as written.
    assert with_glossary("Restart it.", {}, {"IT": "Information Technology"}) == "Restart it."


def test_the_line_from_elsewhere_sits_under_the_note_and_is_made_current() -> None:
    text = "[Context: dated 2024-06-01]\nThe ASG has seven voting members."
    noted = with_glossary(text, {}, {"ASG": "Architecture Steering Group"})
    assert noted.splitlines()[:2] == [
        "[Context: dated 2024-06-01]",
        "[Defined elsewhere: ASG = Architecture Steering Group]",
    ]
    assert split_note(noted) == (
        "[Context: dated 2024-06-01]",
        "[Defined elsewhere: ASG = Architecture Steering Group]",
        "The ASG has seven voting members.",
    )
    assert with_glossary(noted, {}, {"ASG": "Architecture Steering Group"}) == noted
    assert with_glossary(noted, {}, {}) == text  # the defining document went
    again = with_glossary(noted, {}, {"ASG": "Application Support Group"})
    assert "ASG = Application Support Group]" in again and "Architecture" not in again


def test_with_notes_adds_the_glossary_of_other_documents() -> None:
    units = document_units("# Minutes\n\nThe ASG has seven voting members. The TRM is late.\n")
    spans = [(0, len(units))]
    glossary = {"ASG": "Architecture Steering Group", "TRM": "Thermal Regulation Module"}
    (text,) = with_notes(units, spans, [render(units)], glossary=glossary)
    assert text.startswith(
        "[Defined elsewhere: ASG = Architecture Steering Group; TRM = Thermal Regulation Module]\n"
    )
    assert document_definitions([text]) == {}  # the line is no definition of the minutes'


def test_a_heading_above_a_definition_is_not_part_of_the_name() -> None:
    body = "## WSB\nThe Workplace Services Board (WSB) reviews decisions."
    assert defined_names(body) == {"WSB": "Workplace Services Board"}
    assert document_definitions([body]) == {"WSB": "Workplace Services Board"}
    # A heading run into its sentence on one line is not part of it either.
    run_in = "WSB The Workplace Services Board (WSB) reviews decisions."
    assert defined_names(run_in) == {"WSB": "Workplace Services Board"}


def test_undated_keeps_what_the_document_states_and_drops_only_its_date() -> None:
    assert undated("[Context: dated 2025-06-26]\nThe pilot ends first.") == "The pilot ends first."
    noted = "[Context: dated 2025-06; TRM = Thermal Regulation Module]\nThe TRM polls."
    assert undated(noted) == "[Context: TRM = Thermal Regulation Module]\nThe TRM polls."
    assert undated("[Context: TRM = Thermal Regulation Module]\nX") == (
        "[Context: TRM = Thermal Regulation Module]\nX"
    )
    plain = "Issued 2025-06-26. Dated copies stay."
    assert undated(plain) == plain
