"""The suites derived from FanOutQA and the offline Wikipedia summaries; user data sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from judged_rag_eval.datasets.fanoutqa import Suites, answer_text, derive_suites, load_corpus
from judged_rag_eval.items import DataError, answer_kind, load_user_items, seeded_order
from judged_rag_eval.metrics import contains_normalized, normalize_answer


@pytest.fixture(scope="module")
def suites() -> Suites:
    return derive_suites(seed=0)


def test_counts_as_derived(suites: Suites) -> None:
    assert suites.counts == {
        "corpus_articles": 10033,
        "subquestion_records": 2142,
        "subquestions_unique": 2126,
        "evidence_in_corpus_records": 558,
        "retrieval": 546,
        "answer_records": 83,
        "answer": 75,
        "multiple_choice": 75,
        "unanswerable": 75,
        "gate": 357,
        "gate_in_domain": 130,
        "gate_out_of_domain": 227,
    }


def test_derivation_is_deterministic(suites: Suites) -> None:
    again = derive_suites(seed=0)
    for name in ("retrieval", "answer", "multiple_choice", "unanswerable", "gate"):
        assert getattr(again, name) == getattr(suites, name), name
    ids = [i.id for i in suites.retrieval]
    assert len(ids) == len(set(ids))


def test_answer_suite_has_the_answer_in_the_evidence_summary(suites: Suites) -> None:
    corpus = load_corpus()
    for item in suites.answer:
        article = corpus.get(item.evidence[0])
        assert article is not None
        assert contains_normalized(article.extract, item.answers[0])


def test_multiple_choice_is_deterministic_and_holds_the_answer(suites: Suites) -> None:
    for item in suites.multiple_choice:
        assert item.options is not None and len(item.options) == 4
        assert item.correct_option == item.answers[0] and item.correct_option in item.options
        assert len({normalize_answer(o) for o in item.options}) == 4
        assert item.id.endswith(":mc") and item.inputs()["options"] == list(item.options)
    other = derive_suites(seed=1).multiple_choice
    assert [i.options for i in other] != [i.options for i in suites.multiple_choice]
    assert all(i.correct_option in (i.options or ()) for i in other)


def test_unanswerable_questions_are_not_in_the_corpus(suites: Suites) -> None:
    corpus = load_corpus()
    text = corpus.normalized_text()
    for item in suites.unanswerable:
        assert corpus.get(item.evidence[0]) is None
        assert f" {normalize_answer(item.answers[0])} " not in text
        assert not item.answerable


def test_gate_labels_come_from_the_topic_field(suites: Suites) -> None:
    corpus = load_corpus()
    for item in suites.gate:
        article = corpus.get(item.evidence[0])
        assert article is not None and article.topic != "Uncategorized"
        assert item.in_domain == (article.topic == "Geography")
    people = derive_suites(kb_topics=("People",)).gate
    assert sum(1 for i in people if i.in_domain) == 80
    with pytest.raises(DataError, match="unknown topic"):
        derive_suites(kb_topics=("Astrology",))


def test_seeded_order_is_a_stable_permutation(suites: Suites) -> None:
    first = seeded_order(suites.answer, 3)
    assert first == seeded_order(suites.answer, 3)
    assert sorted(i.id for i in first) == sorted(i.id for i in suites.answer)
    assert first != seeded_order(suites.answer, 4)


@pytest.mark.parametrize(
    ("question", "answer", "kind"),
    [
        ("When was Harvard founded?", "1636", "year"),
        ("What is his birthday?", "7 June 1957", "date"),
        ("What is the GDP?", "$515 billion", "number"),
        ("Who directed Incredibles 2?", "Brad Bird", "person"),
        ("In which state was Nixon born?", "California", "place"),
        ("What genre is Kingdom?", "Historical", "other"),
    ],
)
def test_answer_kinds(question: str, answer: str, kind: str) -> None:
    assert answer_kind(question, answer) == kind


def test_answer_text() -> None:
    assert answer_text(680000) == "680000"
    assert answer_text(301340.0) == "301340"
    assert answer_text(8848.86) == "8848.86"
    assert answer_text(True) is None and answer_text(["a"]) is None and answer_text(" ") is None


def test_user_data_set(tmp_path: Path) -> None:
    path = tmp_path / "my.jsonl"
    path.write_text(
        '{"question": "Capital of France?", "answer": "Paris", "evidence": "Paris"}\n'
        "\n"
        '{"id": "q2", "question": "Pick one", "answers": ["b"], "options": ["a", "b"],'
        ' "in_domain": false}\n',
        encoding="utf-8",
    )
    first, second = load_user_items(path)
    assert first.id == "line-1" and first.answers == ("Paris",) and first.evidence == ("Paris",)
    assert second.id == "q2" and second.correct_option == "b" and second.variant == "mc"
    assert second.in_domain is False


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"answer": "x"}', "'question' must be a non-empty string"),
        ('{"question": "q"}', "exactly one of 'answer' or 'answers'"),
        ('{"question": "q", "answer": "x", "answers": ["x"]}', "exactly one of"),
        ('{"question": "q", "answers": []}', "must be a non-empty string or a list"),
        ('{"question": "q", "answer": "x", "options": ["a", "b"]}', "exactly one option"),
        ('{"question": "q", "answer": "x", "options": ["x"]}', "at least two"),
        ('{"question": "q", "answer": "x", "in_domain": "yes"}', "'in_domain' must be"),
        ('{"question": "q", "answer": "x", "colour": 1}', "unknown field(s) ['colour']"),
    ],
)
def test_malformed_user_line_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok?", "answer": "ok"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_user_items(path)
    assert f"{path}:2: " in str(info.value) and message in str(info.value)


def test_duplicate_ids_and_empty_files_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_text('{"id": "a", "question": "q", "answer": "x"}\n' * 2, encoding="utf-8")
    with pytest.raises(DataError, match="duplicate id 'a'"):
        load_user_items(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no questions"):
        load_user_items(empty)
