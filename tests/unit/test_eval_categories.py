"""The ``category`` field of user data: read, recorded per result, reported per group."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from judged_rag import Components
from judged_rag_eval.context import EvalOptions
from judged_rag_eval.items import DataError, load_user_items
from judged_rag_eval.report import render_markdown, write_report
from judged_rag_eval.results import RESULTS_FILE, read_results
from judged_rag_eval.runner import run_eval
from judged_rag_eval.suites.e2e import summarize_e2e


def write_line(tmp_path: Path, record: dict[str, Any]) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def test_category_round_trips_and_is_optional(tmp_path: Path) -> None:
    line = {"id": "a", "question": "q?", "answer": "x", "category": " dated "}
    (item,) = load_user_items(write_line(tmp_path, line))
    assert item.category == "dated" and item.to_json()["category"] == "dated"
    (plain,) = load_user_items(write_line(tmp_path, {"question": "q?", "answer": "x"}))
    assert plain.category is None
    (ghost,) = load_user_items(
        write_line(tmp_path, {"question": "q?", "abstain": True, "category": "no_evidence"})
    )
    assert ghost.must_abstain and ghost.category == "no_evidence"


@pytest.mark.parametrize("value", [3, "", "  ", ["dated"], True, {"a": 1}])
def test_a_category_that_is_no_string_is_rejected(tmp_path: Path, value: Any) -> None:
    path = write_line(tmp_path, {"question": "q?", "answer": "x", "category": value})
    with pytest.raises(DataError, match=r"d\.jsonl:1: 'category' must be a non-empty string"):
        load_user_items(path)


def test_unknown_fields_are_still_rejected(tmp_path: Path) -> None:
    path = write_line(tmp_path, {"question": "q?", "answer": "x", "group": "dated"})
    with pytest.raises(DataError, match="unknown field"):
        load_user_items(path)


def record(
    system: str,
    item: str,
    category: str | None,
    *,
    correct: bool = False,
    abstained: bool = False,
    must_abstain: bool = False,
    leakage: bool | None = None,
) -> dict[str, Any]:
    return {
        "suite": "e2e",
        "system": system,
        "item_id": item,
        "variant": "unanswerable" if must_abstain else "open",
        "category": category,
        "error": None,
        "correct": correct or (must_abstain and abstained),
        "exact": correct,
        "abstained": abstained,
        "must_abstain": must_abstain,
        "leakage": leakage,
        "cost": {},
        "wall_seconds": 1.0,
    }


RECORDS = [
    record("plain_rag", "q1", "dated", correct=True, leakage=False),
    record("plain_rag", "q2", "dated", leakage=True),
    record("plain_rag", "q3", "two_doc", abstained=True),
    record("plain_rag", "q4", "no_evidence", must_abstain=True, abstained=True),
    record("plain_rag", "q5", "no_evidence", must_abstain=True),
    record("judged", "q1", "dated", abstained=True, leakage=False),
    record("judged", "q2", "dated", correct=True, leakage=False),
    record("judged", "q3", "two_doc", correct=True),
    record("judged", "q4", "no_evidence", must_abstain=True, abstained=True),
    record("judged", "q5", "no_evidence", must_abstain=True, abstained=True),
]


def test_report_counts_each_category_per_system() -> None:
    systems = summarize_e2e(RECORDS)
    plain = systems["plain_rag"]["categories"]
    assert plain["dated"]["answerable"]["n"] == 2
    assert plain["dated"]["answerable"]["correct"]["hits"] == 1
    assert plain["dated"]["answerable"]["wrong"]["hits"] == 1
    assert plain["dated"]["answerable"]["leakage"]["hits"] == 1
    assert plain["two_doc"]["answerable"]["abstained"]["hits"] == 1
    assert "leakage" not in plain["two_doc"]["answerable"]
    assert plain["no_evidence"]["no_evidence"]["hallucinated"]["hits"] == 1
    assert "answerable" not in plain["no_evidence"]
    judged = systems["judged"]["categories"]
    assert judged["no_evidence"]["no_evidence"]["abstained"]["hits"] == 2
    assert judged["dated"]["answerable"]["abstained"]["hits"] == 1

    markdown = render_markdown(
        {
            "run": {"suites": {"e2e": {"fingerprint": {"seed": 0}, "systems": {}}}},
            "suites": {"e2e": {"systems": systems}},
        },
        {},
    )
    assert "| dated | plain_rag | 2 | 50.0 " in markdown
    assert "| two_doc | judged | 1 | 100.0 " in markdown
    assert "| no_evidence | plain_rag | 2 | 50.0 " in markdown
    assert "answered wrong" in markdown and "hallucinated" in markdown


def test_report_without_categories_has_no_category_table() -> None:
    plain = [{**r, "category": None} for r in RECORDS]
    systems = summarize_e2e(plain)
    assert all("categories" not in v for v in systems.values())
    old = [{k: v for k, v in r.items() if k != "category"} for r in RECORDS]
    assert summarize_e2e(old) == systems
    markdown = render_markdown(
        {
            "run": {"suites": {"e2e": {"fingerprint": {"seed": 0}, "systems": {}}}},
            "suites": {"e2e": {"systems": systems}},
        },
        {},
    )
    assert "Per category" not in markdown


def test_items_without_a_category_form_their_own_group() -> None:
    mixed = [*RECORDS, record("judged", "q6", None, correct=True)]
    groups = summarize_e2e(mixed)["judged"]["categories"]
    assert groups["(none)"]["answerable"]["n"] == 1


def test_the_runner_records_the_category_and_the_report_shows_it(tmp_path: Path) -> None:
    lines = [
        {"id": "a", "question": "When?", "answer": "1921", "category": "dated"},
        {"id": "b", "question": "Who?", "abstain": True, "category": "no_evidence"},
        {"id": "c", "question": "Where?", "answer": "Tallen"},
    ]
    data = tmp_path / "mine.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    # The same reply to each: right for a, a hallucination for b, wrong for c.
    model = GenericFakeChatModel(messages=iter(AIMessage(content="1921") for _ in lines))
    options = EvalOptions(
        suite="e2e",
        out_dir=tmp_path / "run",
        systems=["no_retrieval"],
        data=data,
        progress=False,
        retry_interval=0.0,
    )
    assert run_eval(options, components=Components(chat_model=model)).errors == 0
    records = {r["item_id"]: r for r in read_results(tmp_path / "run" / RESULTS_FILE).values()}
    assert {k: r["category"] for k, r in records.items()} == {
        "a": "dated",
        "b": "no_evidence",
        "c": None,
    }
    files = write_report(tmp_path / "run")
    summary = json.loads(files.summary.read_text())["suites"]["e2e"]["systems"]["no_retrieval"]
    groups = summary["categories"]
    assert groups["dated"]["answerable"]["correct"]["hits"] == 1
    assert groups["no_evidence"]["no_evidence"]["hallucinated"]["hits"] == 1
    assert groups["(none)"]["answerable"]["wrong"]["hits"] == 1
    markdown = files.markdown.read_text()
    assert "| dated | no_retrieval | 1 | 100.0 " in markdown
    assert "| no_evidence | no_retrieval | 1 | 0.0 " in markdown
