"""Chunking: document units, the calibrated breakpoint, minimum size, tables, dedup.

Vectors are hand-made (2-d unit vectors at a chosen cosine) or LangChain's
`DeterministicFakeEmbedding`, so every expected cut can be worked out by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import DeterministicFakeEmbedding

from judged_rag.indexing.builder import chunk_settings, chunking_is_current
from judged_rag.indexing.chunking import (
    MAX_CHUNK_CHARS,
    Unit,
    boundary_similarities,
    calibrated_breakpoint,
    chunk_spans,
    document_units,
    near_duplicates,
    render,
    split_long,
    split_sentences,
    stated_facts,
)
from judged_rag.indexing.loaders import load_file
from judged_rag.indexing.retriever import FusedRetriever


def unit(*rows: list[float]) -> np.ndarray:
    array = np.asarray(rows, dtype=np.float32)
    normalized: np.ndarray = array / np.linalg.norm(array, axis=1, keepdims=True)
    return normalized


def with_cosine(c: float) -> list[float]:
    """A 2-d unit vector at cosine `c` from [1, 0]."""
    return [c, float(np.sqrt(1 - c * c))]


def chain(*cosines: float) -> np.ndarray:
    """2-d unit vectors whose consecutive cosines are the given ones (angles add up)."""
    angles = np.concatenate([[0.0], np.cumsum(np.arccos(cosines))])
    return np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)


def sentences(*texts: str) -> list[Unit]:
    """One paragraph of sentences, no headings."""
    return [Unit(t) for t in texts]


def texts(units: list[Unit], spans: list[tuple[int, int]]) -> list[str]:
    return [render(units[a:b]) for a, b in spans]


# --- reading a document into units -------------------------------------------------------


def test_sentences_are_split_with_abbreviations_kept() -> None:
    text = "Dr. Smith met Mr. Jones in Washington D.C. on Jan. 5. They talked. Then they left."
    assert split_sentences(text) == [
        "Dr. Smith met Mr. Jones in Washington D.C. on Jan. 5.",
        "They talked.",
        "Then they left.",
    ]


def test_paragraph_line_breaks_are_whitespace() -> None:
    assert split_sentences("One sentence\nwrapped over\nlines.\n\nNext one.") == [
        "One sentence wrapped over lines.",
        "Next one.",
    ]


def test_headings_are_the_context_of_every_unit_under_them() -> None:
    text = (
        "# Orbits\n\nA planet orbits a star. It moves fast.\n\n## Moons\n\nMoons orbit planets."
        "\n\n# Comets\n\nComets have tails."
    )
    units = document_units(text)
    assert [(u.text, u.context) for u in units] == [
        ("A planet orbits a star.", ("Orbits",)),
        ("It moves fast.", ("Orbits",)),
        ("Moons orbit planets.", ("Orbits", "Moons")),
        ("Comets have tails.", ("Comets",)),
    ]
    assert len({u.section for u in units}) == 3
    # A chunk that starts at "It moves fast." still says what "it" is about.
    assert render(units[1:2]) == "Orbits\nIt moves fast."
    assert (
        render(units[:3])
        == "Orbits\nA planet orbits a star. It moves fast.\nMoons\nMoons orbit planets."
    )


def test_short_lines_without_a_sentence_end_are_headings_and_empty_ones_stay_text() -> None:
    units = document_units("Annual report\n\n2011\n\nThe yard grew.\n\n## Notes\n\n# Next\n\nDone.")
    assert [(u.text, u.context) for u in units] == [
        ("The yard grew.", ("Annual report\n2011",)),
        ("Notes", ()),  # a heading with nothing under it is kept (a plain line ranks below it)
        ("Done.", ("Next",)),
    ]


def test_list_items_keep_their_lead_in_and_heading() -> None:
    text = (
        "# Fleet\n\nThe company runs ships. Its yards were:\n- Orkmere, 2011\n- Baltic, 2014"
        "\n\n1. first\n2. second"
    )
    units = document_units(text)
    assert [(u.text, u.kind) for u in units] == [
        ("The company runs ships.", "sentence"),
        ("Its yards were:", "sentence"),
        ("- Orkmere, 2011", "item"),
        ("- Baltic, 2014", "item"),
        ("1. first", "item"),
        ("2. second", "item"),
    ]
    assert units[3].context == ("Fleet", "Its yards were:")
    assert units[4].context == ("Fleet",)  # another list: not introduced by the lead-in
    assert render(units[3:4]) == "Fleet\nIts yards were:\n- Baltic, 2014"
    # With the lead-in in the chunk it is not repeated.
    assert render(units[1:4]) == "Fleet\nIts yards were:\n- Orkmere, 2011\n- Baltic, 2014"


def test_list_items_continue_on_wrapped_lines_and_end_at_prose() -> None:
    text = "- The yard built ferries for\nthe northern routes.\n- It closed.\nThe town grew."
    assert split_sentences(text) == [
        "- The yard built ferries for the northern routes.",
        "- It closed.",
        "The town grew.",
    ]
    assert document_units(text)[2].kind == "sentence"


def test_a_wrapped_line_starting_with_a_number_stays_prose() -> None:
    assert split_sentences("The yard opened in\n2011. It closed\nlater.") == [
        "The yard opened in 2011.",
        "It closed later.",
    ]


def test_markdown_table_rows_carry_the_header() -> None:
    text = (
        "## Deliveries\n\n| Ship | Yard | Year |\n|------|:----:|-----:|\n"
        "| Alba | Orkmere | 2011 |\n| Bora | Baltic | 2014 |\n\nAfter the table."
    )
    units = document_units(text)
    header = "| Ship | Yard | Year |\n|------|:----:|-----:|"
    assert [(u.text, u.kind) for u in units] == [
        ("| Alba | Orkmere | 2011 |", "row"),
        ("| Bora | Baltic | 2014 |", "row"),
        ("After the table.", "sentence"),
    ]
    assert units[1].context == ("Deliveries", header)
    assert render(units[1:2]) == f"Deliveries\n{header}\n| Bora | Baltic | 2014 |"
    assert render(units[1:3]) == f"Deliveries\n{header}\n| Bora | Baltic | 2014 |\nAfter the table."


def test_a_long_table_is_chunked_by_rows_with_the_header_in_every_chunk() -> None:
    header = "| Ship | Yard | Year | Tonnage |\n| --- | --- | --- | --- |"
    rows = [f"| Ship{n:02} | Yard{n % 3} | {2000 + n} | {1000 * n} |" for n in range(40)]
    text = "# Fleet register\n\n" + header + "\n" + "\n".join(rows)
    units = document_units(text)
    assert [u.text for u in units] == rows
    similarities = boundary_similarities(units, np.eye(len(units), 8, dtype=np.float32))
    assert np.all(np.isposinf(similarities))  # rows of one table never split on similarity
    spans = chunk_spans(units, similarities, breakpoint=0.99)
    chunks = texts(units, spans)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk) <= MAX_CHUNK_CHARS
        assert chunk.startswith(f"Fleet register\n{header}\n| Ship")
    # Every row once, in order, each with its column names above it.
    assert [line for c in chunks for line in c.splitlines()[3:]] == rows


def test_html_headings_lists_and_tables_are_read_as_structure(tmp_path: Path) -> None:
    page = tmp_path / "yards.html"
    page.write_text(
        "<html><head><title>Yards</title></head><body><h1>Shipyards</h1>"
        "<p>Its ships were built at:</p><ul><li>Orkmere, in\n 2011</li><li>Baltic</li></ul>"
        "<ol><li>first</li><li>second</li></ol>"
        "<table><caption>Deliveries</caption><tr><td>Alba</td><td>2011</td></tr>"
        "<tr><th>Ship</th><th>Year</th></tr><tr><td>Bo|ra</td><td>2014</td></tr></table>"
        "<h2>After</h2><p>Done.</p></body></html>"
    )
    units = document_units(load_file(page).text)
    assert [(u.text, u.kind) for u in units] == [
        ("Its ships were built at:", "sentence"),
        ("- Orkmere, in 2011", "item"),
        ("- Baltic", "item"),
        ("1. first", "item"),
        ("2. second", "item"),
        ("| Alba | 2011 |", "row"),
        ("| Bo\\|ra | 2014 |", "row"),
        ("Done.", "sentence"),
    ]
    assert units[2].context == ("Shipyards", "Its ships were built at:")
    # The <th> row is the header, wherever it stands; the caption heads the table.
    assert units[6].context == ("Shipyards", "Deliveries", "| Ship | Year |\n| --- | --- |")
    assert units[7].context == ("Shipyards", "After")


def test_units_and_their_context_fit_the_limit() -> None:
    heading = "Heading " * 40  # longer than the context allowance: cut
    text = f"# {heading}\n\n" + "A. " + " ".join(["lorem"] * 400) + ". B."
    units = document_units(text)
    assert all(len(render([u])) <= MAX_CHUNK_CHARS for u in units)
    assert all(len("\n".join(u.context)) <= 200 for u in units)
    assert len(units) >= 3


def test_long_sentence_is_split_on_whitespace() -> None:
    words = [f"word{i}" for i in range(200)]
    sentence = " ".join(words) + "."
    pieces = split_long(sentence, 100)
    assert len(pieces) > 1
    assert all(len(p) <= 100 for p in pieces)
    assert " ".join(pieces) == sentence


def test_word_longer_than_the_limit_is_cut() -> None:
    pieces = split_long("short " + "x" * 250 + " tail", 100)
    assert all(len(p) <= 100 for p in pieces)
    assert "".join(pieces).replace(" ", "") == ("short" + "x" * 250 + "tail")


# --- the calibrated breakpoint ----------------------------------------------------------


def test_calibrated_breakpoint_is_a_percentile_of_the_finite_similarities() -> None:
    values = [0.9, 0.1, 0.5, 0.3, 0.7, -np.inf, np.inf]  # infinities: not decided by similarity
    assert calibrated_breakpoint(values, 0) == pytest.approx(0.1)
    assert calibrated_breakpoint(values, 25) == pytest.approx(0.3)
    assert calibrated_breakpoint(values, 50) == pytest.approx(0.5)
    # Linear interpolation between ranks: 10 % of the way from 0.1 to 0.3.
    assert calibrated_breakpoint(values, 2.5) == pytest.approx(0.12)
    assert calibrated_breakpoint(list(reversed(values)), 25) == calibrated_breakpoint(values, 25)
    assert calibrated_breakpoint([np.inf, -np.inf], 25) is None
    assert calibrated_breakpoint([], 25) is None
    with pytest.raises(ValueError, match="percentile"):
        calibrated_breakpoint(values, 101)


def test_boundary_similarities_of_hand_made_vectors() -> None:
    units = [
        Unit("a.", ("H1",), section=1, block=0),
        Unit("b.", ("H1",), section=1, block=0),
        Unit("Rows:", ("H1",), section=1, block=1),
        Unit("| 1 |", ("H1", "Rows:", "| n |\n| - |"), section=1, block=2, kind="row"),
        Unit("| 2 |", ("H1", "Rows:", "| n |\n| - |"), section=1, block=2, kind="row"),
        Unit("c.", ("H2",), section=2, block=3),
    ]
    vectors = chain(0.8, 0.3, 0.2, 0.5, 0.6)
    similarity = boundary_similarities(units, vectors)
    assert similarity[0] == pytest.approx(0.8, abs=1e-6)
    assert similarity[1] == pytest.approx(0.3, abs=1e-6)
    assert np.isposinf(similarity[2])  # lead-in -> its table
    assert np.isposinf(similarity[3])  # within the table
    assert np.isneginf(similarity[4])  # a new section
    # Only the two decided by similarity count towards the calibration.
    assert calibrated_breakpoint(similarity, 50) == pytest.approx(0.55, abs=1e-6)
    with pytest.raises(ValueError, match="6 units but 5 vectors"):
        boundary_similarities(units, vectors[:5])


def test_calibration_turns_a_sentence_splitter_back_into_a_chunker() -> None:
    # Six sentences whose consecutive cosines are all below the paper's 0.7, as MiniLM's
    # are; the 25th percentile of these puts a break only at the topic change (0.15).
    units = sentences(*(f"Sentence number {n} of the text." for n in range(6)))
    similarity = boundary_similarities(units, chain(0.55, 0.6, 0.15, 0.5, 0.65))
    fixed = chunk_spans(units, similarity, breakpoint=0.7, min_chars=0)
    assert fixed == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    breakpoint = calibrated_breakpoint(similarity, 25)
    assert breakpoint == pytest.approx(0.5, abs=1e-6)
    assert chunk_spans(units, similarity, breakpoint=breakpoint, min_chars=0) == [(0, 3), (3, 6)]


# --- cuts, the size cap and the minimum size ----------------------------------------------


def test_new_chunk_starts_where_similarity_drops_below_the_breakpoint() -> None:
    units = sentences("s0.", "s1.", "s2.", "s3.")
    similarity = boundary_similarities(units, unit([1, 0], with_cosine(0.95), [0, 1], [0, 1]))
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=0) == [(0, 2), (2, 4)]
    # 0.95 is below 0.96; the last two vectors are identical (cosine 1).
    assert chunk_spans(units, similarity, breakpoint=0.96, min_chars=0) == [(0, 1), (1, 2), (2, 4)]


def test_chunks_stay_within_500_characters() -> None:
    units = sentences(*[("x" * 119) + "." for _ in range(10)])  # 120 chars each
    similarity = np.ones(9)  # all alike: only the limit splits
    spans = chunk_spans(units, similarity, breakpoint=0.7, min_chars=0)
    assert all(len(t) <= MAX_CHUNK_CHARS for t in texts(units, spans))
    # 4 sentences + 3 spaces = 483 chars fit; a fifth would make 604.
    assert [b - a for a, b in spans] == [4, 4, 2]


def test_a_lone_pronoun_sentence_joins_the_more_similar_neighbour() -> None:
    units = sentences(
        "The Orkmere yard builds ferries.",
        "Its cranes lift ninety tonnes.",
        "It was built at the Orkmere yard in 2011.",
        "Tides in the firth reach four metres.",
        "They turn twice a day.",
    )
    # "It was built..." is closer to the sentence before it (0.6) than after (0.2).
    similarity = np.asarray([0.9, 0.6, 0.2, 0.9])
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=0) == [(0, 2), (2, 3), (3, 5)]
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=50) == [(0, 3), (3, 5)]
    turned = np.asarray([0.9, 0.2, 0.6, 0.9])
    assert chunk_spans(units, turned, breakpoint=0.7, min_chars=50) == [(0, 2), (2, 5)]
    # Under the minimum in characters, two-sentence chunks merge too (if they fit).
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=200) == [(0, 5)]
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=200, max_chars=120) == [
        (0, 3),
        (3, 5),
    ]


def test_the_minimum_never_breaks_the_cap_and_a_lone_tail_moves_the_cut() -> None:
    long_ = [f"Sentence {n} " + "y" * 153 + "." for n in range(3)]  # 165 chars each
    tail = "It ended."
    units = sentences(*long_, tail)
    similarity = np.asarray([0.9, 0.1, 0.9])
    # Greedy: [0, 1, 2] is 497 chars; the tail cannot join it (507 > 500) ...
    assert chunk_spans(units, similarity, breakpoint=-1.0, min_chars=0) == [(0, 3), (3, 4)]
    # ... so the cut moves to the least similar boundary that leaves neither side short.
    spans = chunk_spans(units, similarity, breakpoint=-1.0, min_chars=150)
    assert spans == [(0, 2), (2, 4)]
    assert all(len(t) <= MAX_CHUNK_CHARS for t in texts(units, spans))


def test_merging_prefers_the_own_section() -> None:
    units = [
        Unit("The first section is about yards.", ("A",), section=1),
        Unit("Yards build ships.", ("A",), section=1),
        Unit("It ends here.", ("A",), section=1),
        Unit("The second section is about tides.", ("B",), section=2),
        Unit("Tides follow the moon.", ("B",), section=2),
    ]
    similarity = boundary_similarities(units, chain(0.9, 0.1, 0.99, 0.9))
    assert np.isneginf(similarity[2])
    spans = chunk_spans(units, similarity, breakpoint=0.5, min_chars=0)
    assert spans == [(0, 2), (2, 3), (3, 5)]
    # "It ends here." joins its own section though the next one is "more similar".
    merged = chunk_spans(units, similarity, breakpoint=0.5, min_chars=50)
    assert merged == [(0, 3), (3, 5)]
    assert texts(units, merged) == [
        "A\nThe first section is about yards. Yards build ships. It ends here.",
        "B\nThe second section is about tides. Tides follow the moon.",
    ]


def test_empty_input_and_mismatched_similarities() -> None:
    assert chunk_spans([], np.zeros(0), breakpoint=0.5) == []
    with pytest.raises(ValueError, match="2 units but 0 boundary similarities"):
        chunk_spans(sentences("a.", "b."), np.zeros(0), breakpoint=0.5)


def test_chunking_with_langchain_fake_embeddings() -> None:
    # DeterministicFakeEmbedding gives identical texts identical vectors and unrelated
    # texts near-orthogonal ones: repeats stay together, a new text starts a chunk.
    embedder = DeterministicFakeEmbedding(size=64)
    units = sentences("Cats purr.", "Cats purr.", "Stars shine.", "Stars shine.", "Stars shine.")
    vectors = np.asarray(embedder.embed_documents([u.text for u in units]))
    similarity = boundary_similarities(units, vectors)
    assert chunk_spans(units, similarity, breakpoint=0.7, min_chars=0) == [(0, 2), (2, 5)]


# --- every sentence in exactly one chunk (property) ---------------------------------------

_WORDS = st.sampled_from(["yard", "ship", "tide", "moon", "river", "harbour", "crane", "dock"])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A Markdown document of headings, paragraphs, lists and tables, and its sentences."""
    parts: list[str] = []
    expected: list[str] = []
    counter = iter(range(10_000))

    def sentence() -> str:
        words = " ".join(draw(st.lists(_WORDS, min_size=1, max_size=draw(st.integers(1, 40)))))
        text = f"Sentence s{next(counter)}x says {words}."
        expected.append(text)
        return text

    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["heading", "paragraph", "list", "table"]))
        if kind == "heading":
            parts.append("#" * draw(st.integers(1, 3)) + f" Part h{next(counter)}")
        elif kind == "paragraph":
            parts.append(" ".join(sentence() for _ in range(draw(st.integers(1, 6)))))
        elif kind == "list":
            parts.append("\n".join(f"- {sentence()}" for _ in range(draw(st.integers(1, 5)))))
        else:
            rows = [f"| {sentence()} | {n} |" for n in range(draw(st.integers(1, 5)))]
            parts.append("| Text | N |\n| --- | --- |\n" + "\n".join(rows))
    return "\n\n".join(parts), expected


@settings(max_examples=150, deadline=None)
@given(
    document=documents(),
    seed=st.integers(0, 2**16),
    breakpoint=st.floats(-1.0, 1.0),
    min_chars=st.sampled_from([0, 100, 200, 400]),
)
def test_every_sentence_lands_in_exactly_one_chunk(
    document: tuple[str, list[str]], seed: int, breakpoint: float, min_chars: int
) -> None:
    text, expected = document
    units = document_units(text)
    vectors = np.random.default_rng(seed).normal(size=(len(units), 8))
    spans = chunk_spans(
        units, boundary_similarities(units, vectors), breakpoint=breakpoint, min_chars=min_chars
    )
    # The spans cover every unit once, in order.
    assert [i for a, b in spans for i in range(a, b)] == list(range(len(units)))
    assert all(a < b for a, b in spans)
    chunks = texts(units, spans)
    assert all(len(c) <= MAX_CHUNK_CHARS for c in chunks)
    for sentence in expected:
        marker = re.escape(sentence.split(" says ")[0]) + r" says"
        assert sum(1 for c in chunks if re.search(marker, c)) == 1, sentence


# --- settings ----------------------------------------------------------------------------


def test_chunk_settings_default_and_fixed() -> None:
    assert chunk_settings()["chunking"] == "calibrated"
    assert "chunk_threshold" not in chunk_settings()
    assert chunk_settings("fixed")["chunk_threshold"] == 0.7
    assert chunk_settings(chunk_threshold=0.5)["chunking"] == "fixed"  # a threshold is fixed
    with pytest.raises(ValueError, match="chunking='fixed'"):
        chunk_settings("calibrated", 0.5)
    with pytest.raises(ValueError, match="percentile"):
        chunk_settings(chunk_percentile=-1)
    with pytest.raises(ValueError, match="min_chunk_chars"):
        chunk_settings(min_chunk_chars=501)
    current = {"settings": {**chunk_settings(), "title_context": True}}
    assert chunking_is_current(current)
    assert not chunking_is_current({"settings": {"chunk_threshold": 0.7, "max_chunk_chars": 500}})


# --- near-duplicates ------------------------------------------------------------------------


def test_near_duplicates_keep_the_first_of_a_group() -> None:
    vectors = unit([1, 0, 0], [0.95, 0.05, 0], [0, 1, 0], [0.6, 0.8, 0], [0, 0.1, 1])
    assert near_duplicates(vectors).tolist() == [False, True, False, False, False]


def test_near_duplicate_threshold() -> None:
    below = with_cosine(0.89)
    vectors = unit([1, 0], [below[0], -below[1]], with_cosine(0.91))
    # cos(v0, v1) = 0.89 is kept; v2 is 0.91 from v0 (a duplicate) though only 0.6 from v1.
    assert near_duplicates(vectors).tolist() == [False, False, True]
    assert near_duplicates(vectors, 0.95).tolist() == [False, False, False]


def test_near_duplicates_across_blocks() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(6, 32)).astype(np.float32)
    vectors = np.concatenate([base, base + 0.01])  # second half repeats the first
    dropped = near_duplicates(vectors, block=4)
    assert dropped.tolist() == [False] * 6 + [True] * 6


def test_a_near_duplicate_that_states_another_value_is_kept() -> None:
    # Two release notes' "Changes to defaults": one embedding apart, two values apart.
    old = "GFBC firmware 3.2 release notes\nFrom version 3.2 the default log retention is 60 days."
    new = "GFBC firmware 3.9 release notes\nThe default log retention is now 90 days."
    boiler = "GFBC firmware 3.9 release notes\nAbout this page\nThe page is internal."
    boiler_old = "GFBC firmware 3.2 release notes\nAbout this page\nThe page is internal."
    facts = [
        stated_facts(old, "GFBC firmware 3.2 release notes"),
        stated_facts(new, "GFBC firmware 3.9 release notes"),
        stated_facts(boiler_old, "GFBC firmware 3.2 release notes"),
        stated_facts(boiler, "GFBC firmware 3.9 release notes"),
    ]
    assert facts[1] == {"90"} and facts[2] == facts[3]
    vectors = unit([1, 0, 0], [0.99, 0.01, 0], [0, 1, 0], [0, 0.99, 0.01])
    assert near_duplicates(vectors).tolist() == [False, True, False, True]
    # The second values differ from the first's: kept; the boilerplate is dropped.
    assert near_duplicates(vectors, facts=facts).tolist() == [False, False, False, True]
    # A row whose facts another close kept row holds is still dropped.
    assert near_duplicates(vectors, facts=[facts[0], facts[0], facts[2], facts[3]]).tolist() == [
        False,
        True,
        False,
        True,
    ]
    with pytest.raises(ValueError, match="fact sets"):
        near_duplicates(vectors, facts=facts[:2])
    # Notes are the index's: a date in one does not make a chunk's statements differ.
    noted = stated_facts("[Context: dated 2025-01-17]\nAbout this page\nThe page is internal.")
    assert noted == stated_facts("About this page\nThe page is internal.")


def test_facts_are_numbers_and_names_inside_sentences() -> None:
    text = "Shimel Beimeker succeeded Dikeisik in 2018. About the GFBC.\n- Head: Ana Lima\n| Febus"
    assert stated_facts(text) == {"2018", "Beimeker", "Dikeisik", "GFBC", "Ana", "Lima", "Febus"}


def test_retrieval_keeps_a_near_duplicate_that_states_another_value() -> None:
    # At query time as at index time: the release notes that set the alarm delay are one
    # embedding apart from later notes that only say it is unchanged, and are returned.
    later = "The default log retention is now 90 days. The default alarm delay is unchanged."
    earlier = "From version 3.3 the default alarm delay is 20 seconds (previously 30 seconds)."
    texts = [
        (later, "KLDR firmware 3.5 release notes"),
        (earlier, "KLDR firmware 3.3 release notes"),
        (later, "KLDR firmware 3.5 release notes"),  # a copy: its facts are the first's
        ("The unit is quiet.", "KLDR user manual"),
    ]
    vectors = unit([1, 0, 0], [0.99, 0.01, 0], [0.98, 0.02, 0], [0, 1, 0])
    retriever = FusedRetriever(embeddings=DeterministicFakeEmbedding(size=3))
    order = np.arange(4)
    assert retriever._distinct(order, vectors, 10, texts) == [0, 1, 3]
    assert retriever._distinct(order, vectors, 2, texts) == [0, 1]
    copies = [texts[0], texts[0], texts[0], texts[3]]
    assert retriever._distinct(order, vectors, 10, copies) == [0, 3]
