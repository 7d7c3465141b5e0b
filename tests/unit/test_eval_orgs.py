"""The fictional-organisations knowledge base: determinism, evidence, categories."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from judged_rag.cli import build_parser, main
from judged_rag.indexing.loaders import load_file
from judged_rag_eval.cli import run_build_orgs_command
from judged_rag_eval.datasets.orgs import (
    CATEGORIES,
    CORPUS_DIR,
    DATA_FILE,
    METADATA_FILE,
    OrgsDataset,
    OrgsError,
    Page,
    Row,
    build_orgs,
    write_orgs,
)
from judged_rag_eval.items import load_user_items, require
from judged_rag_eval.metrics import contains_normalized


@pytest.fixture(scope="module")
def dataset() -> OrgsDataset:
    return build_orgs(seed=0)


def pages_by_title(dataset: OrgsDataset) -> dict[str, Page]:
    return {p.title: p for p in dataset.pages}


def on_page(page: Page, text: str) -> bool:
    """Verbatim, case-insensitive, and as whole tokens after the scorer's normalisation."""
    return text.lower() in page.body.lower() and contains_normalized(page.body, text)


def rows(dataset: OrgsDataset, category: str) -> list[Row]:
    return [r for r in dataset.rows if r.category == category]


def test_sizes_and_ids(dataset: OrgsDataset) -> None:
    counts = dataset.metadata["counts"]
    assert counts["by_category"] == {c: len(rows(dataset, c)) for c in CATEGORIES}
    assert 130 <= counts["answerable"] <= 170 and 50 <= len(rows(dataset, "no_evidence")) <= 70
    for category in ("single", "similar", "dated", "two_doc"):
        assert len(rows(dataset, category)) >= 25, category
    assert counts["pages"]["organisation"] == 36 and counts["pages"]["review"] >= 1
    assert counts["pages"]["digest"] >= 1
    ids = [r.id for r in dataset.rows]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"org-[a-z0-9-]+", i) for i in ids)


def test_same_seed_same_bytes_other_seed_other_files(tmp_path: Path) -> None:
    first, again, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    write_orgs(build_orgs(seed=0), first)
    write_orgs(build_orgs(seed=0), again)
    write_orgs(build_orgs(seed=1), other)

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert files(first) == files(again)
    assert files(first)[DATA_FILE] != files(other)[DATA_FILE]
    assert files(first).keys() != files(other).keys()  # other names, other page files


def test_pages_are_markdown_with_a_title_the_loader_reads(
    dataset: OrgsDataset, tmp_path: Path
) -> None:
    write_orgs(dataset, tmp_path / "orgs")
    for page in dataset.pages:
        path = tmp_path / "orgs" / CORPUS_DIR / f"{page.slug}.md"
        loaded = load_file(path)
        assert loaded.title == page.title
        assert loaded.text.startswith(f"# {page.title}\n")
    organisations = [p for p in dataset.pages if p.kind == "organisation"]
    tables = 0
    for page in organisations:
        for section in ("## History", "## Leadership", "## Operations"):
            assert section in page.body
        tables += "| Year | Employees |" in page.body
        # Sentences that do not name their subject.
        assert len(re.findall(r"(?:^|\. )(?:It|Its|The [a-z]+) ", page.body, re.M)) >= 2
    assert len(organisations) // 3 <= tables < len(organisations)


def test_every_answer_is_on_its_evidence_pages(dataset: OrgsDataset) -> None:
    pages = pages_by_title(dataset)
    for row in dataset.rows:
        if not row.answers:
            continue
        assert row.evidence and all(t in pages for t in row.evidence), row.id
        if row.form == "fact":
            # Every page given as evidence states the answer.
            for title in row.evidence:
                assert all(on_page(pages[title], a) for a in row.answers), (row.id, title)
        else:
            assert any(on_page(pages[t], row.answers[0]) for t in row.evidence), row.id


def test_similar_rows_have_siblings_with_other_values(dataset: OrgsDataset) -> None:
    pages = pages_by_title(dataset)
    families = {o.name: o.family for o in dataset.organisations}
    for row in rows(dataset, "similar"):
        siblings = [o for o in dataset.organisations if o.family == families[row.subject]]
        assert len(siblings) == 3
        assert row.must_not_contain, row.id
        for value in row.must_not_contain:
            assert not contains_normalized(row.answers[0], value)
            assert not on_page(pages[row.subject], value)
            # The wrong value is stated on a sibling's page.
            assert any(on_page(pages[o.name], value) for o in siblings if o.name != row.subject)


def test_dated_rows_forbid_other_values_the_corpus_states(dataset: OrgsDataset) -> None:
    text = "\n".join(p.body for p in dataset.pages)
    outdated_elsewhere = 0
    for row in rows(dataset, "dated"):
        assert row.must_not_contain, row.id
        for value in row.must_not_contain:
            assert value.lower() in text.lower() and contains_normalized(text, value)
            assert all(
                not contains_normalized(a, value) and not contains_normalized(value, a)
                for a in row.answers
            ), row.id
        others = "\n".join(p.body for p in dataset.pages if p.title != row.subject)
        outdated_elsewhere += any(contains_normalized(others, v) for v in row.must_not_contain)
    # Most outdated values also stand on another page (a review or a digest).
    assert outdated_elsewhere >= len(rows(dataset, "dated")) // 2
    kinds = {r.attribute.removesuffix("_year") for r in rows(dataset, "dated")}
    assert kinds == {"ceo", "hq", "employees"}


def test_two_doc_rows_need_two_pages(dataset: OrgsDataset) -> None:
    pages = pages_by_title(dataset)
    two = rows(dataset, "two_doc")
    bridges = [r for r in two if r.form == "bridge"]
    comparisons = [r for r in two if r.form == "comparison"]
    assert len(bridges) >= 10 and len(comparisons) >= 10
    assert all(r.id.startswith("org-two-bridge-") for r in bridges)
    assert all(r.id.startswith("org-two-cmp-") for r in comparisons)
    for row in two:
        assert len(set(row.evidence)) >= 2, row.id
    orgs = {o.name: o for o in dataset.organisations}
    for row in comparisons:
        a, b = row.evidence
        assert row.answers[0] in (a, b) and a in row.question and b in row.question
        assert a != b
        # No page states the compared value of both (the present count, for employees).
        values = {
            name: str(orgs[name].founded)
            if row.attribute == "founded"
            else orgs[name].staff(orgs[name].table_years[-1])
            for name in (a, b)
        }
        stating = [
            {s.page for s in dataset.statements if s.org == name and s.value == value}
            for name, value in values.items()
        ]
        assert stating[0] and stating[1] and not stating[0] & stating[1], row.id
        for name, titles in zip(values, stating, strict=True):
            assert all(on_page(pages[t], values[name]) for t in titles)
    for row in bridges:
        bridge, answer_pages = pages[row.evidence[0]], row.evidence[1:]
        target = answer_pages[0]
        assert row.evidence[0] in row.question
        assert target != row.evidence[0] and on_page(bridge, target)  # the relation
        assert not any(on_page(bridge, a) for a in row.answers), row.id  # not the answer
        assert on_page(pages[target], row.answers[0])
        assert not any(on_page(pages[target], t) for t in [row.evidence[0]] if t != target)


def test_no_evidence_rows_ask_what_no_page_states(dataset: OrgsDataset) -> None:
    pages = pages_by_title(dataset)
    text = "\n".join(p.body for p in dataset.pages).lower()
    names = {o.name for o in dataset.organisations}
    keywords = {"revenue": "revenue", "chair": "chair"}
    unknown = unstated = 0
    for row in rows(dataset, "no_evidence"):
        assert row.answers == () and row.evidence == () and row.subject in row.question
        record = row.to_user_record()
        assert record == {
            "id": row.id,
            "question": row.question,
            "abstain": True,
            "category": "no_evidence",
        }
        if row.subject not in names:
            unknown += 1
            assert row.subject.lower() not in text, row.id
            stem = row.subject.split()[0]
            assert any(n.startswith(f"{stem} ") for n in names)  # named like a sibling
        else:
            unstated += 1
            keyword = keywords[row.attribute]
            assert keyword not in pages[row.subject].body.lower()
            for page in dataset.pages:
                for paragraph in page.body.split("\n\n"):
                    assert not (row.subject in paragraph and keyword in paragraph.lower())
            # A sibling's page does state it: a hard case.
            family = next(o.family for o in dataset.organisations if o.name == row.subject)
            assert any(
                keyword in pages[o.name].body.lower()
                for o in dataset.organisations
                if o.family == family
            )
    assert unknown >= 20 and unstated >= 20


def test_the_question_file_is_user_data_with_categories(
    dataset: OrgsDataset, tmp_path: Path
) -> None:
    write_orgs(dataset, tmp_path / "orgs")
    items = require(load_user_items(tmp_path / "orgs" / DATA_FILE), "e2e")
    assert [i.id for i in items] == [r.id for r in dataset.rows]
    assert [i.category for i in items] == [r.category for r in dataset.rows]
    assert [i.must_abstain for i in items] == [not r.answers for r in dataset.rows]
    assert [i.evidence for i in items] == [r.evidence for r in dataset.rows]
    metadata = json.loads((tmp_path / "orgs" / METADATA_FILE).read_text())
    assert metadata["version"] == 1 and metadata["seed"] == 0
    assert "CC0" in metadata["license"]
    assert len(metadata["pages"]) == len(dataset.pages)


def test_build_orgs_command_writes_and_refuses_foreign_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["eval-data", "build-orgs", "--out", str(tmp_path / "o")])
    assert args.func is run_build_orgs_command and args.seed == 0
    assert main(["eval-data", "build-orgs", "--out", str(tmp_path / "o"), "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "judged-rag index" in out and "judged-rag eval --suite e2e" in out
    assert (tmp_path / "o" / DATA_FILE).is_file()
    # A rebuild replaces its own pages and keeps what it did not write.
    (tmp_path / "o" / CORPUS_DIR / "my-notes.md").write_text("mine")
    before = {p.name for p in (tmp_path / "o" / CORPUS_DIR).glob("*.md")}
    assert main(["eval-data", "build-orgs", "--out", str(tmp_path / "o"), "--seed", "3"]) == 0
    after = {p.name for p in (tmp_path / "o" / CORPUS_DIR).glob("*.md")}
    assert "my-notes.md" in after and after != before
    assert after - {"my-notes.md"} == {f"{p.slug}.md" for p in build_orgs(seed=3).pages}

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(OrgsError, match="not empty"):
        write_orgs(build_orgs(seed=0), foreign)
    assert main(["eval-data", "build-orgs", "--out", str(foreign)]) == 2
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    other = tmp_path / "other"
    other.mkdir()
    (other / METADATA_FILE).write_text('{"name": "something else"}')
    with pytest.raises(OrgsError, match="belongs to something else"):
        write_orgs(build_orgs(seed=0), other)


@pytest.mark.parametrize("seed", [1, 7])
def test_other_seeds_keep_the_guarantees(seed: int) -> None:
    other = build_orgs(seed=seed)
    counts = other.metadata["counts"]["by_category"]
    assert counts["two_doc"] >= 30 and counts["dated"] >= 30 and counts["no_evidence"] >= 50
    test_every_answer_is_on_its_evidence_pages(other)
    test_two_doc_rows_need_two_pages(other)
    test_no_evidence_rows_ask_what_no_page_states(other)


def test_the_first_rows_hold_every_kind_of_question(dataset: OrgsDataset) -> None:
    from judged_rag_eval.datasets.orgs import _group

    groups = {_group(r) for r in dataset.rows}
    assert len(groups) == 7
    # Any prefix of the file takes every group in turn.
    assert {_group(r) for r in dataset.rows[:7]} == groups
    first_70 = Counter(_group(r) for r in dataset.rows[:70])
    assert set(first_70.values()) == {10}
