"""The gate written after its index: the job's record, its refusal to write into a
rebuilt index, its failures, and what a question's trace says meanwhile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from judged_rag import Components, build_graph
from judged_rag.cli import build_parser, gate_timing, render
from judged_rag.indexing import build_index, open_index
from judged_rag.indexing.builder import pending_pseudo_queries, pseudo_query_prompt_id
from judged_rag.indexing.gate_jobs import (
    IndexChangedError,
    gate_progress,
    job_paths,
    new_job,
    read_job,
    run_job,
    save_job,
    write_gate,
)
from judged_rag.indexing.retriever import HybridRetriever
from judged_rag.indexing.store import build_id, check_own
from tests.fakes import components, doc, generator, judge_model, label, scripted_retriever, verdict

QUESTION = "When did Apollo 11 land on the Moon?"
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")


def fake() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=16)


@pytest.fixture
def index(tmp_path: Path, judged_rag_home: Path) -> Path:
    """An index of three one-topic files, built without its gate's pseudo-queries."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "moon.md").write_text("# Moon\n\nThe Moon is Earth's only natural satellite.\n")
    (docs / "tea.md").write_text("# Tea\n\nGreen tea is brewed from steamed leaves.\n")
    (docs / "mars.md").write_text("# Mars\n\nMars is the fourth planet from the Sun.\n")
    target = tmp_path / "index"
    build_index([docs], target, embeddings=fake(), pseudo_queries=3, progress=False)
    return target


def questions() -> FakeListChatModel:
    return FakeListChatModel(responses=["What is it?", "Which one?", "Where is it?"])


def opened(index: Path) -> HybridRetriever:
    return open_index(index, embeddings=fake())


def ask(index: Path) -> dict[str, Any]:
    """A question through the graph, with the index as the gate's index."""
    parts = Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict()
        ),
        retriever=scripted_retriever([APOLLO]),
        gate_index=opened(index),
    )
    graph = build_graph(parts, retry_interval=0)
    config = {"max_concurrency": 1, "configurable": {"gate": True}}
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def gate_detail(out: dict[str, Any]) -> dict[str, Any]:
    return next(e["detail"] for e in out["trace"] if e["node"] == "gate" and e["event"] == "route")


def test_an_index_built_without_its_gate_answers_queries_and_retrieves_every_question(
    index: Path,
) -> None:
    retriever = opened(index)
    assert retriever.invoke("Which planet is fourth from the Sun?", k=1)
    assert retriever.gate_similarities is None
    assert retriever.gate_progress().state == "none"
    out = ask(index)
    assert gate_detail(out)["gate"] == "none"
    assert out["route"]["gate"] == "retrieve"


def test_while_a_job_writes_the_gate_the_question_is_retrieved_and_the_trace_says_so(
    index: Path,
) -> None:
    job = new_job(index, str(build_id(index)), total=3)
    assert save_job(replace(job, pid=os.getpid(), done=1))  # this process: alive
    out = ask(index)
    detail = gate_detail(out)
    assert detail["gate"] == "building" and (detail["done"], detail["total"]) == (1, 3)
    assert out["route"]["gate"] == "retrieve"
    assert "being built in the background (1 of 3" in render(out)


def test_the_job_writes_the_gate_into_the_index_it_was_started_for(index: Path) -> None:
    before = build_id(index)
    job = new_job(index, str(before), total=3)
    assert run_job(job, questions, pseudo_queries=3, embeddings=fake()) == 0
    record = read_job(index)
    assert record is not None and record.state == "done" and record.done == 3
    retriever = opened(index)
    assert len(retriever.gate_similarities or []) == 3
    assert retriever.gate_progress().state == "ready"
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["pseudo_queries"] == 3 and manifest["pseudo_query_prompt"]
    assert build_id(index) != before
    check_own(index, "rebuild the index")  # every file provably judged-rag's
    assert gate_detail(ask(index))["gate"] == "ready"
    # A rebuild carries the job's pseudo-queries: none is asked again.
    rebuilt = build_index(
        [index.parent / "docs"], index, embeddings=fake(), pseudo_queries=3, progress=False
    )
    assert rebuilt.pseudo_queries == 3


def test_a_job_discards_its_work_when_the_index_is_rebuilt_meanwhile(index: Path) -> None:
    job = new_job(index, str(build_id(index)), total=3)
    docs = index.parent / "docs"

    def rebuild_then_model() -> FakeListChatModel:
        (docs / "tea.md").write_text("# Tea\n\nOolong is partly oxidised.\n")
        build_index([docs], index, embeddings=fake(), pseudo_queries=0, progress=False)
        return questions()

    assert run_job(job, rebuild_then_model, pseudo_queries=3, embeddings=fake()) == 0
    record = read_job(index)
    assert record is not None and record.state == "discarded"
    assert not (index / "gate.json").exists()
    retriever = opened(index)
    assert any("Oolong" in c.text for c in retriever.store.chunks)
    assert retriever.store.manifest["pseudo_queries"] == 0


def test_write_gate_refuses_an_index_of_another_build(index: Path) -> None:
    with pytest.raises(IndexChangedError):
        write_gate(index, questions(), build="0" * 32, pseudo_queries=3, embeddings=fake())
    assert not (index / "gate.json").exists()


def test_a_failed_job_records_why_and_the_gate_keeps_retrieving(index: Path) -> None:
    def no_model() -> FakeListChatModel:
        raise RuntimeError("the model file is missing")

    job = new_job(index, str(build_id(index)), total=3)
    assert run_job(job, no_model, pseudo_queries=3, embeddings=fake()) == 1
    record = read_job(index)
    assert record is not None and record.state == "failed"
    assert "the model file is missing" in (record.error or "")
    progress = opened(index).gate_progress()
    assert progress.state == "failed" and progress.log == record.log
    out = ask(index)
    assert gate_detail(out)["gate"] == "failed" and out["route"]["gate"] == "retrieve"


def test_a_job_whose_process_died_counts_as_failed(index: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    job = new_job(index, str(build_id(index)), total=3)
    save_job(replace(job, pid=dead.pid))
    progress = gate_progress(index, build_id(index), 0)
    assert progress.state == "failed" and progress.error


def test_a_newer_job_takes_the_record_over(index: Path) -> None:
    first = new_job(index, str(build_id(index)), total=3)
    second = new_job(index, str(build_id(index)), total=3)
    assert not save_job(replace(first, done=2))
    record = read_job(index)
    assert record is not None and record.job == second.job
    # The first job, at its next batch, stops without writing.
    assert run_job(first, questions, pseudo_queries=3, embeddings=fake()) == 0
    assert not (index / "gate.json").exists()


def test_a_job_record_of_another_shape_is_no_record(index: Path) -> None:
    new_job(index, str(build_id(index)), total=3)
    job_paths(index)[0].write_text('{"job": 1}')
    assert read_job(index) is None
    assert gate_progress(index, build_id(index), 0).state == "none"


def test_pending_counts_only_chunks_without_a_current_pseudo_query(index: Path) -> None:
    store = opened(index).store
    assert pending_pseudo_queries(store.chunks, None, 2) == 2
    assert pending_pseudo_queries(store.chunks, None, 10) == len(store.chunks)
    entry = {"chunk_id": store.chunks[0].id, "question": "q", "similarity": 0.5}
    current = {"prompt": pseudo_query_prompt_id(), "entries": [entry]}
    assert pending_pseudo_queries(store.chunks, current, 2) == 1
    other_prompt = {"prompt": "another", "entries": [entry]}
    assert pending_pseudo_queries(store.chunks, other_prompt, 2) == 2


@pytest.mark.parametrize(
    ("argv", "timing"),
    [
        (["index", "d", "--index", "i"], "background"),
        (["index", "d", "--index", "i", "--gate", "now"], "now"),
        (["index", "d", "--index", "i", "--pseudo-queries", "0"], "off"),
        (["index", "d", "--index", "i", "--gate", "background", "--pseudo-queries", "0"], "off"),
        (["index", "d", "--postgres", "postgresql://x"], "now"),
    ],
)
def test_when_the_index_command_writes_the_gate(argv: list[str], timing: str) -> None:
    assert gate_timing(build_parser().parse_args(argv)) == timing


def test_a_background_gate_is_refused_for_postgres() -> None:
    args = build_parser().parse_args(["index", "d", "--postgres", "u", "--gate", "background"])
    with pytest.raises(ValueError, match="--gate background"):
        gate_timing(args)
