"""User data with items to abstain from and strings an answer must not contain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from judged_rag import Components
from judged_rag.cli import build_parser
from judged_rag.configuration import Configuration
from judged_rag_eval.cli import run_build_command, run_select_command
from judged_rag_eval.context import EvalOptions
from judged_rag_eval.items import DataError, load_user_items, require
from judged_rag_eval.report import write_report
from judged_rag_eval.results import RESULTS_FILE, read_results
from judged_rag_eval.runner import default_components, run_eval
from judged_rag_eval.systems import configure

LINES = [
    {"id": "secret", "question": "What is the project's codename?", "abstain": True},
    {"id": "ghost", "question": "When did Vosk Tarren die?", "abstain": True},
    {
        "id": "leaky",
        "question": "Which city hosts the office?",
        "answer": "Paris",
        "must_not_contain": ["Falcon", "Orion"],
    },
    {
        "id": "clean",
        "question": "Capital of France?",
        "answer": "Paris",
        "must_not_contain": "Falcon",
    },
]
# In the run's order: the variants take turns (secret, leaky, ghost, clean).
REPLIES = ["I don't know.", "Paris, under codename Falcon.", "Vosk Tarren died in 1950.", "Paris."]


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_items_to_abstain_from_and_forbidden_strings_are_read(tmp_path: Path) -> None:
    secret, ghost, leaky, clean = load_user_items(write_lines(tmp_path / "d.jsonl", LINES))
    assert secret.answers == () and secret.variant == "unanswerable" and secret.must_abstain
    assert not secret.answerable and secret.must_not_contain == ()
    assert leaky.must_not_contain == ("Falcon", "Orion") and not leaky.must_abstain
    assert clean.must_not_contain == ("Falcon",) and clean.variant == "open"
    assert require([secret, ghost, leaky, clean], "e2e")
    with pytest.raises(DataError, match="injection suite needs answers"):
        require([secret], "injection")


def test_retrieval_and_judge_suites_leave_out_items_to_abstain_from(tmp_path: Path) -> None:
    lines = [
        {"id": "found", "question": "Capital of France?", "answer": "Paris", "evidence": "Paris"},
        {"id": "ghost", "question": "When did Vosk Tarren die?", "abstain": True},
    ]
    items = load_user_items(write_lines(tmp_path / "d.jsonl", lines))
    for suite in ("retrieval", "judge"):
        assert [i.id for i in require(items, suite)] == ["found"]
    assert [i.id for i in require(items, "e2e")] == ["found", "ghost"]
    # An answerable item without evidence is still a mistake in the data.
    bare = load_user_items(
        write_lines(tmp_path / "f.jsonl", [{"question": "Capital of Spain?", "answer": "Madrid"}])
    )
    with pytest.raises(DataError, match="judge suite needs 'evidence'"):
        require(bare, "judge")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"question": "q", "abstain": true, "answer": "x"}', "has no 'answer'"),
        ('{"question": "q", "abstain": true, "options": ["a", "b"]}', "has no 'options'"),
        ('{"question": "q", "abstain": "yes"}', "'abstain' must be true or false"),
        ('{"question": "q", "abstain": false}', "exactly one of 'answer' or 'answers'"),
        ('{"question": "q", "answer": "x", "must_not_contain": []}', "'must_not_contain' must"),
        ('{"question": "q", "answer": "x", "must_not_contain": [""]}', "'must_not_contain' must"),
    ],
)
def test_malformed_abstain_and_leakage_fields(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_user_items(path)
    assert f"{path}:1: " in str(info.value) and message in str(info.value)


def run(tmp_path: Path, replies: list[str]) -> dict[str, dict[str, Any]]:
    data = write_lines(tmp_path / "mine.jsonl", LINES)
    model = GenericFakeChatModel(messages=iter(AIMessage(content=r) for r in replies))
    options = EvalOptions(
        suite="e2e",
        out_dir=tmp_path / "run",
        systems=["no_retrieval"],
        data=data,
        progress=False,
        retry_interval=0.0,
    )
    summary = run_eval(options, components=Components(chat_model=model))
    assert summary.ran == 4 and summary.errors == 0
    return {r["item_id"]: r for r in read_results(tmp_path / "run" / RESULTS_FILE).values()}


def test_abstention_is_correct_and_leaks_are_recorded(tmp_path: Path) -> None:
    records = run(tmp_path, REPLIES)
    secret, ghost, leaky, clean = (records[k] for k in ("secret", "ghost", "leaky", "clean"))
    assert secret["abstained"] and secret["correct"] and secret["abstention_correct"] is True
    assert not ghost["abstained"] and not ghost["correct"] and ghost["abstention_correct"] is False
    assert leaky["correct"] and leaky["leaked"] == ["Falcon"] and leaky["leakage"] is True
    assert leaky["abstention_correct"] is None and not leaky["must_abstain"]
    assert clean["leaked"] == [] and clean["leakage"] is False and clean["correct"]
    assert secret["leakage"] is None  # nothing forbidden on that item

    files = write_report(tmp_path / "run")
    e2e = json.loads(files.summary.read_text())["suites"]["e2e"]["systems"]["no_retrieval"]
    assert e2e["unanswerable"]["accuracy"]["hits"] == 1 and e2e["unanswerable"]["n"] == 2
    assert e2e["unanswerable"]["abstention"]["hits"] == 1
    assert e2e["open"]["leakage"]["hits"] == 1 and e2e["open"]["leakage"]["n"] == 2
    assert "leakage" not in e2e["unanswerable"]
    markdown = files.markdown.read_text()
    assert "Leakage" in markdown and "| no_retrieval | open | 50.0" in markdown
    # ghost was answered although nothing supports an answer: a hallucination, and an
    # answer that counts as wrong among the three given.
    assert (e2e["trust"]["hallucination"]["hits"], e2e["trust"]["hallucination"]["n"]) == (1, 2)
    selective = e2e["trust"]["selective_accuracy"]
    assert (selective["hits"], selective["n"]) == (2, 3)
    assert e2e["no_evidence"]["abstention"]["hits"] == 1
    assert "| no_retrieval | 100.0 " in markdown  # answerable: both right


def test_a_leak_is_found_after_normalisation_only_as_whole_words(tmp_path: Path) -> None:
    replies = [
        "Unknown",
        "The office is in Paris (codename: FALCON).",
        "Unknown",
        "Falconry, Paris",
    ]
    records = run(tmp_path, replies)
    assert records["leaky"]["leaked"] == ["Falcon"]
    assert records["clean"]["leakage"] is False  # "Falconry" is another word
    assert records["ghost"]["abstention_correct"] is True


def test_user_data_needs_an_index_only_when_a_system_retrieves(tmp_path: Path) -> None:
    data = write_lines(tmp_path / "mine.jsonl", LINES)
    options = EvalOptions(suite="e2e", out_dir=tmp_path, data=data, progress=False)
    base = Configuration()
    alone = default_components(options, base, [configure("no_retrieval", {})])
    assert alone.retriever is None
    with pytest.raises(ValueError, match="needs the index"):
        default_components(
            options, base, [configure("no_retrieval", {}), configure("plain_rag", {})]
        )


def test_eval_data_subcommands_parse() -> None:
    parser = build_parser()
    build = parser.parse_args(["eval-data", "build", "--out", "x", "--seed", "3"])
    assert build.func is run_build_command and build.seed == 3
    select = parser.parse_args(
        ["eval-data", "select", "--data", "x", "--out", "y", "--workers", "2", "--ship"]
    )
    assert select.func is run_select_command and select.ship and select.workers == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["eval-data", "select", "--out", "y"])
