"""The noise suite: fixed contexts instead of retrieval, on LangChain fakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from judged_rag import Components
from judged_rag_eval.items import DataError
from judged_rag_eval.report import write_report
from judged_rag_eval.results import RESULTS_FILE, read_results
from judged_rag_eval.runner import run_eval
from judged_rag_eval.suites.noise import ContextRetriever, load_noise_items
from tests.unit.test_eval_run import Counter, judge_fake, knowledge_base, options

APOLLO = {"id": "p1", "title": "Apollo 11", "role": "evidence",
          "text": "Apollo 11 was the first crewed Moon landing, on 20 July 1969."}  # fmt: skip
MOON = {"id": "p2", "title": "Moon", "role": "distractor",
        "text": "The Moon is Earth's only natural satellite."}  # fmt: skip
ROWS = [
    {"id": "q1", "question": "In which year did Apollo 11 land?", "answers": ["1969"]},
    {
        "id": "q1:mc",
        "question": "In which year did Apollo 11 land?",
        "answers": ["1969"],
        "options": ["1969", "1959"],
    },
    {"id": "gone", "question": "When did Vosk Tarren die?", "abstain": True},
]
CONTEXTS = [
    {"item_id": "q1", "setting": "noise-0.5", "noise": 0.5, "docs": [MOON, APOLLO],
     "has_evidence": True, "constructed_conflict": False, "conflict_answer": None},
    {"item_id": "q1", "setting": "noise-1.0", "noise": 1.0, "docs": [MOON],
     "has_evidence": False, "constructed_conflict": False, "conflict_answer": None},
    {"item_id": "q1", "setting": "conflict", "noise": None, "docs": [APOLLO],
     "has_evidence": True, "constructed_conflict": True, "conflict_answer": "1970"},
]  # fmt: skip


def write_data(tmp_path: Path) -> Path:
    data = tmp_path / "eval-data-rdq.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    (tmp_path / "contexts.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in CONTEXTS), encoding="utf-8"
    )
    return data


def test_items_per_question_and_setting(tmp_path: Path) -> None:
    items = load_noise_items(write_data(tmp_path))
    assert [i.id for i in items] == ["q1@noise-0.5", "q1@noise-1.0", "q1@conflict",
                                     "q1:mc@noise-0.5", "q1:mc@noise-1.0",
                                     "q1:mc@conflict"]  # fmt: skip
    half, none, conflict, mc_half, mc_none, _ = items
    assert conflict.answers == ("1969",) and conflict.extra["conflict_answer"] == "1970"
    assert half.extra["conflict_answer"] is None
    assert half.answers == ("1969",) and not half.must_abstain and half.evidence == ("Apollo 11",)
    assert none.must_abstain and none.extra["gold"] == ["1969"] and none.evidence == ()
    assert mc_half.correct_option == "1969" and mc_none.must_abstain
    assert [d["title"] for d in half.extra["documents"]] == ["Moon", "Apollo 11"]
    (tmp_path / "contexts.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"contexts\.jsonl:1"):
        load_noise_items(tmp_path / "eval-data-rdq.jsonl")
    with pytest.raises(FileNotFoundError, match="eval-data build"):
        load_noise_items(tmp_path / "eval-data-rdq.jsonl", tmp_path / "missing.jsonl")


def test_context_retriever_ranks_by_cosine_whatever_the_query() -> None:
    docs = [Document(page_content=t, id=t) for t in ("alpha beta", "gamma", "alpha")]
    retriever = ContextRetriever(documents=docs, embeddings=DeterministicFakeEmbedding(size=16))
    found = retriever.invoke("alpha")
    assert sorted(d.id for d in found) == ["alpha", "alpha beta", "gamma"]
    sims = [d.metadata["similarity"] for d in found]
    assert sims == sorted(sims, reverse=True) and all(0.0 <= s <= 1.0 for s in sims)
    assert ContextRetriever(documents=docs).invoke("x")[0].id == "alpha beta"  # context order


def test_noise_run_answers_from_the_context_only(tmp_path: Path) -> None:
    data = write_data(tmp_path)
    generator = Counter("Apollo 11 landed in 1969 [1].")
    parts = Components(
        chat_model=GenericFakeChatModel(messages=generator),
        judge_model=judge_fake(),
        retriever=knowledge_base(),  # type: ignore[arg-type]  # must not be read
        web_search=knowledge_base(),  # type: ignore[arg-type]  # must not be read
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    out = tmp_path / "run"
    summary = run_eval(
        options(out, suite="noise", systems=["plain_rag", "judged"], data=data, variants=("open",)),
        components=parts,
    )
    assert summary.ran == 6 and summary.errors == 0
    records = read_results(out / RESULTS_FILE)
    for system in ("plain_rag", "judged"):
        half = records[f"noise|{system}|q1@noise-0.5"]
        none = records[f"noise|{system}|q1@noise-1.0"]
        assert (half["setting"], none["setting"]) == ("noise-0.5", "noise-1.0")
        assert half["correct"] and none["must_abstain"]
        assert set(half["cited_titles"]) <= {"Apollo 11", "Moon"}  # never the knowledge base
        assert set(none["cited_titles"]) <= {"Moon"}
        conflict = records[f"noise|{system}|q1@conflict"]
        assert conflict["conflict_answer"] == "1970" and conflict["conflict_outcome"] == "evidence"
        assert "conflict_outcome" not in half
    judged = records["noise|judged|q1@noise-0.5"]
    assert judged["route"]["iterations"] == 1 and not judged["route"]["web_searched"]
    assert judged["gate"]["route"] in (None, "retrieve")

    files = write_report(out)
    noise = json.loads(files.summary.read_text())["suites"]["noise"]
    settings = noise["systems"]["plain_rag"]["settings"]
    assert settings["noise-0.5"]["accuracy"]["hits"] == 1
    assert settings["conflict"]["outcomes"] == {
        "both": 0,
        "abstained": 0,
        "evidence": 1,
        "conflict": 0,
        "neither": 0,
    }
    assert "outcomes" not in settings["noise-0.5"]
    # Trust reads the two noise contexts only: one answerable, one to abstain from.
    assert noise["systems"]["plain_rag"]["answerable"]["n"] == 1
    assert settings["noise-1.0"]["must_abstain"] is True
    markdown = files.markdown.read_text()
    assert "| system | noise-0.5: correct | noise-0.5: abstained | noise-1.0: correct |" in markdown
    assert "| system | n | both | abstained | evidence | conflict | neither |" in markdown
    assert "| plain_rag | 1 | 0 | 0 | 1 | 0 | 0 |" in markdown
    assert any(p.name == "noise_curve.png" and p.stat().st_size > 0 for p in files.plots)
