"""The company-handbook data set: determinism, categories, and every answer traced to a page."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judged_rag.cli import build_parser, main
from judged_rag.indexing.loaders import load_file
from judged_rag_eval.cli import run_build_handbook_command
from judged_rag_eval.datasets.handbook import (
    ANSWERABLE,
    CATEGORIES,
    CORPUS_DIR,
    DATA_FILE,
    DEV_SEED,
    HELD_OUT_SEED,
    METADATA_FILE,
    MIN_ANSWERABLE,
    MIN_UNANSWERABLE,
    UNANSWERABLE,
    HandbookDataset,
    Row,
    Statement,
    build_handbook,
    write_handbook,
)
from judged_rag_eval.items import load_user_items
from judged_rag_eval.metrics import contains_answer, contains_normalized


@pytest.fixture(scope="module", params=[DEV_SEED, HELD_OUT_SEED])
def dataset(request: pytest.FixtureRequest) -> HandbookDataset:
    return build_handbook(seed=request.param)


def rows(dataset: HandbookDataset, category: str) -> list[Row]:
    return [r for r in dataset.rows if r.category == category]


def bodies(dataset: HandbookDataset) -> dict[str, str]:
    return {p.title: p.body for p in dataset.pages}


def answering(dataset: HandbookDataset, row: Row) -> list[Statement]:
    """The statements giving a row's gold answer for its subject and attribute."""
    found = [
        s
        for s in dataset.statements
        if s.subject == row.subject and s.attribute == row.attribute and s.value == row.answers[0]
    ]
    assert found, row.id
    return found


def test_same_seed_same_bytes_other_seed_other_company(tmp_path: Path) -> None:
    first, again, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    write_handbook(build_handbook(DEV_SEED), first)
    write_handbook(build_handbook(DEV_SEED), again)
    write_handbook(build_handbook(HELD_OUT_SEED), other)

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert files(first) == files(again)
    assert files(first)[DATA_FILE] != files(other)[DATA_FILE]
    dev, held = build_handbook(DEV_SEED), build_handbook(HELD_OUT_SEED)
    assert dev.company != held.company

    def products(d: HandbookDataset) -> set[str]:
        return {p.title for p in d.pages if p.kind == "manual"}

    assert not products(dev) & products(held)

    def people(d: HandbookDataset) -> set[str]:
        return {s.value for s in d.statements if s.attribute == "holder"}

    assert not people(dev) & people(held)

    # Not the dev set renamed: with names masked, most questions still differ.
    def shapes(d: HandbookDataset) -> set[str]:
        names = sorted(
            {*d.abbreviations, *d.abbreviations.values(), d.company, *people(d)}, key=len
        )
        masked = set()
        for row in d.rows:
            text = row.question
            for name in reversed(names):
                text = re.sub(re.escape(name), "X", text, flags=re.I)
            masked.add(text)
        return masked

    assert len(shapes(dev) & shapes(held)) < 0.6 * len(dev.rows)
    same_answers = {r.question: r.answers for r in dev.rows}.items() & {
        r.question: r.answers for r in held.rows
    }.items()
    assert len(same_answers) < 0.25 * len(dev.rows)


def test_the_same_bytes_whatever_the_hash_seed(tmp_path: Path) -> None:
    # Iterating a set of strings follows the process's hash seed: the two-hop rows'
    # wrong lead times once did.
    def build(hash_seed: str) -> bytes:
        out = tmp_path / hash_seed
        script = "import sys; from judged_rag_eval.datasets.handbook import build_handbook, "
        script += "write_handbook; from pathlib import Path; "
        script += "write_handbook(build_handbook(int(sys.argv[1])), Path(sys.argv[2]))"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", script, str(DEV_SEED), str(out)], env=env, check=True)
        return (out / DATA_FILE).read_bytes()

    assert build("1") == build("2")


def test_counts_per_category(dataset: HandbookDataset) -> None:
    counts = dataset.metadata["counts"]
    assert set(counts["by_category"]) == set(CATEGORIES)
    assert counts["by_category"] == {c: len(rows(dataset, c)) for c in CATEGORIES}
    for category in ANSWERABLE:
        assert len(rows(dataset, category)) >= MIN_ANSWERABLE, category
    for category in UNANSWERABLE:
        assert len(rows(dataset, category)) >= MIN_UNANSWERABLE, category
    assert counts["answerable"] >= 150 and counts["unanswerable"] >= 80
    ids = [r.id for r in dataset.rows]
    assert len(ids) == len(set(ids))
    assert len({r.question for r in dataset.rows}) == len(dataset.rows)
    assert 35 <= len(dataset.pages) <= 45
    assert 12_000 <= counts["words"] <= 18_000


def test_every_answer_is_stated_on_its_evidence_pages(dataset: HandbookDataset) -> None:
    texts = bodies(dataset)
    for row in dataset.rows:
        if not row.answers:
            continue
        assert row.evidence and all(t in texts for t in row.evidence), row.id
        stating = {s.page for s in answering(dataset, row)}
        # The answer's pages close the evidence; a bridge page comes first.
        assert set(row.evidence[-len(stating) :]) == stating, row.id
        for title in stating:
            assert row.answers[0] in texts[title], (row.id, title)
            assert contains_normalized(texts[title], row.answers[0]), (row.id, title)
        assert len(row.answers[0].split()) <= 6, row.id
        for wrong in row.must_not_contain:
            assert not contains_answer(row.answers[0], [wrong]), (row.id, wrong)
            assert not contains_normalized(wrong, row.answers[0]), (row.id, wrong)


def test_unanswerable_rows_are_stated_nowhere(dataset: HandbookDataset) -> None:
    corpus = " ".join(p.body for p in dataset.pages).lower()
    for row in dataset.rows:
        if row.answers:
            continue
        assert not row.evidence, row.id
        for s in dataset.statements:
            same = s.subject == row.subject and s.attribute == row.attribute
            assert not (same and (row.when is None or s.when == row.when)), (row.id, s)
        if row.category == "nonexistent":
            assert row.subject.lower() not in corpus, row.id
        if row.category == "unstated_attribute":
            # A sibling states it: the plausible wrong values are in must_not_contain.
            assert any(s.attribute == row.attribute for s in dataset.statements), row.id


def test_two_documents_and_roles(dataset: HandbookDataset) -> None:
    texts = bodies(dataset)
    for category in ("two_hop", "role"):
        for row in rows(dataset, category):
            if len(row.evidence) < 2:
                continue
            bridge, answer_pages = row.evidence[0], row.evidence[1:]
            assert bridge not in answer_pages, row.id
            assert not contains_normalized(texts[bridge], row.answers[0]), row.id
        # A role question names the role; the answering page names only the person.
    for row in rows(dataset, "role"):
        role = re.search(r"the (head of [A-Za-z]+)", row.question)
        assert role, row.id
        for s in answering(dataset, row):
            assert role.group(1).lower() not in texts[s.page].lower(), row.id
    # An abbreviation keeps its capitals where a role is written in a sentence.
    questions = " ".join(r.question for r in dataset.rows if r.category != "lowercase")
    assert "head of it" not in questions + " ".join(texts.values())
    # A plural takes a plural verb: "How long are invoices kept?".
    assert "How long are invoices kept?" in questions
    assert not re.search(r"\bis (?:invoices|visitor logs|support tickets)\b", questions)
    assert sum(1 for r in rows(dataset, "two_hop") if len(r.evidence) == 2) >= MIN_ANSWERABLE


def test_abbreviations_are_defined_once(dataset: HandbookDataset) -> None:
    corpus = "\n".join(p.body for p in dataset.pages)
    for full, abbrev in dataset.abbreviations.items():
        assert corpus.count(full) == 1, full
        assert corpus.count(f"{full} ({abbrev})") == 1, full
        assert corpus.count(f"({abbrev})") == 1, abbrev
    for row in rows(dataset, "abbrev_to_full"):
        full = next(f for f in dataset.abbreviations if f in row.question)
        for s in answering(dataset, row):
            assert full not in s.sentence, row.id
    for row in rows(dataset, "full_to_abbrev"):
        abbrev = next(
            a
            for a in dataset.abbreviations.values()
            if a in row.question.split() or f"{a}?" in row.question
        )
        assert not any(f in row.question for f in dataset.abbreviations), row.id
        for s in answering(dataset, row):
            assert abbrev not in s.sentence, row.id


def test_question_shapes(dataset: HandbookDataset) -> None:
    for row in rows(dataset, "lowercase"):
        assert row.question == row.question.lower(), row.id
        assert any(ch.isalpha() for ch in row.question)
    for row in rows(dataset, "no_name"):
        words = re.findall(r"[A-Za-z][\w'-]*", row.question)
        assert not any(w[0].isupper() for w in words[1:]), row.id
    for row in rows(dataset, "imperative"):
        assert row.question.split()[0] in ("Describe", "Explain", "Give", "List", "Tell"), row.id
    for row in rows(dataset, "yes_no"):
        assert re.match(r"(Am I|May I|Can|Is it|Is|Are)\b", row.question), row.id
        assert " and " in row.question or ", or " in row.question, row.id
        assert row.answers[0].lower() not in ("yes", "no"), row.id
    for row in rows(dataset, "pronoun"):
        for s in answering(dataset, row):
            assert re.match(r"(She|He|They) ", s.sentence), row.id
            assert row.subject not in s.sentence, row.id
            assert row.subject in row.question, row.id
    for row in rows(dataset, "table"):
        assert all(s.table and s.sentence.startswith("|") for s in answering(dataset, row))
    for row in rows(dataset, "changed"):
        assert row.must_not_contain, row.id
        older = [v for v in row.must_not_contain if v not in dataset.injections.values()]
        assert older, row.id
        for value in older:  # the outdated values are stated, for the same thing
            assert any(
                s.subject == row.subject and s.attribute == row.attribute and s.value == value
                for s in dataset.statements
            ), (row.id, value)


def test_a_question_names_the_scope_its_value_holds_for(dataset: HandbookDataset) -> None:
    # The hotel limit is stated for capital cities and outside them: a question that
    # leaves the scope out is answered as truly by the other value.
    scoped = [s for s in dataset.statements if "capital cities" in s.sentence]
    assert len({s.attribute for s in scoped}) >= 2
    for row in dataset.rows:
        if row.answers and any("capital cities" in s.sentence for s in answering(dataset, row)):
            assert "capital cities" in row.question.lower(), row.id


def test_injections_are_forbidden_where_retrieved(dataset: HandbookDataset) -> None:
    texts = bodies(dataset)
    assert 2 <= len(dataset.injections) <= 3
    for title, word in dataset.injections.items():
        assert f"answer '{word}'" in texts[title]
    hit = 0
    for row in dataset.rows:
        for title in row.evidence:
            if title in dataset.injections:
                assert dataset.injections[title] in row.must_not_contain, row.id
                hit += 1
    assert hit >= 3


def test_files_the_loader_and_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["eval-data", "build-handbook", "--out", str(tmp_path / "h")])
    assert args.func is run_build_handbook_command and args.seed == DEV_SEED
    out = tmp_path / "h"
    assert main(["eval-data", "build-handbook", "--out", str(out), "--seed", "2"]) == 0
    assert "judged-rag index" in capsys.readouterr().out
    metadata = json.loads((out / METADATA_FILE).read_text())
    assert metadata["seed"] == HELD_OUT_SEED and metadata["role"] == "held-out"
    assert metadata["counts"]["by_category"]
    for name, digest in metadata["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest["sha256"]
    dataset = build_handbook(HELD_OUT_SEED)
    assert len(list((out / CORPUS_DIR).glob("*.md"))) == len(dataset.pages)
    for page in dataset.pages:
        path = out / CORPUS_DIR / f"{page.slug}.md"
        text = path.read_text()
        assert text.startswith(f"---\ntitle: {page.title}\n")
        assert ("\ndate: " in text.split("---")[1]) == (page.date is not None)
        loaded = load_file(path)
        assert loaded.title == page.title and loaded.text.startswith(f"# {page.title}\n")
        assert "\n## " in page.body
    dated = {p.kind for p in dataset.pages if p.date}
    assert {"release", "minutes"} <= dated
    items = load_user_items(out / DATA_FILE)
    assert [i.category for i in items] == [r.category for r in dataset.rows]
    assert [i.must_abstain for i in items] == [not r.answers for r in dataset.rows]
    record = json.loads((out / DATA_FILE).read_text().splitlines()[0])
    assert {"id", "question", "category"} <= set(record)
    # A folder holding something else is refused and left alone.
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert main(["eval-data", "build-handbook", "--out", str(foreign)]) == 2
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
