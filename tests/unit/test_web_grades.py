"""The domain-based reliability grades of web results and the authoritative-first sort."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from judged_rag.components.web_search import (
    RELIABILITY_ORDER,
    authoritative_first,
    grade_source,
    wikipedia_url,
)


@pytest.mark.parametrize(
    ("url", "grade"),
    [
        # A: public sector, intergovernmental, top journals
        ("https://www.nasa.gov/mission/apollo-11/", "A"),
        ("https://pubmed.ncbi.nlm.nih.gov/123/", "A"),
        ("https://www.who.int/news-room/fact-sheets", "A"),
        ("https://web.mit.edu/physics/", "A"),
        ("https://www.army.mil/", "A"),
        ("https://www.gov.uk/guidance", "A"),
        ("https://www.ox.ac.uk/research", "A"),
        ("https://www.education.gouv.fr/", "A"),
        ("https://www.nature.com/articles/s41586-020-2649-2", "A"),
        ("https://journals.science.org/doi/10.1126/science.1", "A"),
        ("https://ec.europa.eu/eurostat", "A"),
        # B: Wikipedia, encyclopedias, wire services, arXiv
        ("https://en.wikipedia.org/wiki/Apollo_11", "B"),
        ("https://de.m.wikipedia.org/wiki/Apollo_11", "B"),
        ("https://www.britannica.com/event/Apollo-11", "B"),
        ("https://arxiv.org/abs/2401.00001", "B"),
        ("https://www.bbc.co.uk/news", "B"),
        # D: user-generated content
        ("https://www.reddit.com/r/space/", "D"),
        ("https://old.reddit.com/r/space/", "D"),
        ("https://x.com/nasa", "D"),
        ("https://someone.medium.com/post", "D"),
        # C: any other site
        ("https://example.com/apollo", "C"),
        ("http://space-facts.net/apollo-11", "C"),
        # look-alikes do not inherit a listed domain's grade
        ("https://notwikipedia.org/wiki/Apollo_11", "C"),
        ("https://wikipedia.org.evil.example/wiki", "C"),
        ("https://nasa.gov.example.com/", "C"),
        ("https://gov.example.com/", "C"),
        ("https://edu.example.com/", "C"),
        ("https://myreddit.com/", "C"),
        # F: cannot judge
        ("", "F"),
        ("not a url", "F"),
        ("ftp://ftp.example.com/file", "F"),
        ("file:///etc/hosts", "F"),
        ("https://localhost/page", "F"),
        ("http://192.168.1.10/page", "F"),
        ("http://[::1]/page", "F"),
        ("https://[broken/page", "F"),
    ],
)
def test_grade_source(url: str, grade: str) -> None:
    assert grade_source(url) == grade


def test_grading_ignores_case_port_and_trailing_dot() -> None:
    assert grade_source("HTTPS://EN.WIKIPEDIA.ORG/wiki/X") == "B"
    assert grade_source("https://www.nasa.gov:443/x") == "A"
    assert grade_source("https://www.nasa.gov./x") == "A"


def test_cannot_judge_sorts_between_fairly_and_not_usually_reliable() -> None:
    assert sorted(RELIABILITY_ORDER, key=RELIABILITY_ORDER.__getitem__) == list("ABCFDE")


def _doc(name: str, grade: str, rank: int) -> Document:
    return Document(page_content=name, metadata={"reliability": grade, "rank": rank})


def test_authoritative_first_sorts_by_grade_then_rank_and_is_stable() -> None:
    docs = [
        _doc("forum", "D", 1),
        _doc("blog", "C", 2),
        _doc("wiki", "B", 3),
        _doc("unknown", "F", 4),
        _doc("gov", "A", 5),
        _doc("wiki2", "B", 6),
        _doc("tie-a", "C", 7),
        _doc("tie-b", "C", 7),
    ]
    ordered = [d.page_content for d in authoritative_first(docs)]
    assert ordered == ["gov", "wiki", "wiki2", "blog", "tie-a", "tie-b", "unknown", "forum"]
    assert docs[0].page_content == "forum"  # input left untouched


def test_documents_without_a_grade_sort_last() -> None:
    docs = [Document(page_content="bare"), _doc("bad", "E", 2)]
    assert [d.page_content for d in authoritative_first(docs)] == ["bad", "bare"]


@pytest.mark.parametrize(
    ("title", "url"),
    [
        ("Apollo 11", "https://en.wikipedia.org/wiki/Apollo_11"),
        ("Mercury (planet)", "https://en.wikipedia.org/wiki/Mercury_(planet)"),
        ("AT&T", "https://en.wikipedia.org/wiki/AT%26T"),
        ("Erwin Schrödinger", "https://en.wikipedia.org/wiki/Erwin_Schr%C3%B6dinger"),
        ("2001: A Space Odyssey", "https://en.wikipedia.org/wiki/2001:_A_Space_Odyssey"),
    ],
)
def test_wikipedia_url(title: str, url: str) -> None:
    assert wikipedia_url(title) == url
    assert grade_source(url) == "B"
