"""Tiny evaluation runs with LangChain's fakes: every suite, the report, resume."""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore

from judged_rag import Components
from judged_rag.components.gate import VectorCandidatesGate
from judged_rag.configuration import JUDGE_SIMILARITY_WEIGHTS
from judged_rag_eval.cli import add_eval_parser, options_from_args, run_eval_command
from judged_rag_eval.context import EvalOptions
from judged_rag_eval.items import EvalItem
from judged_rag_eval.report import write_report
from judged_rag_eval.results import RESULTS_FILE, read_results
from judged_rag_eval.runner import run_eval
from judged_rag_eval.suites import REGISTRY
from judged_rag_eval.systems import DEFAULT_SYSTEMS, SUITES
from tests.fakes import (
    PerSchemaFakeChatModel,
    components,
    graded,
    keywords,
    label,
    letter,
    quote,
    rewrite,
    sufficient,
    tool,
    verdict,
)

ARTICLES = {
    "Apollo 11": "Apollo 11 was the first crewed Moon landing, on 20 July 1969.",
    "Moon": "The Moon is Earth's only natural satellite.",
    "Saturn V": "Saturn V was the rocket of the Apollo programme.",
    "Paris": "Paris is the capital of France.",
}
ITEMS = [
    EvalItem(
        id="q1",
        question="In which year did Apollo 11 land?",
        answers=("1969",),
        evidence=("Apollo 11",),
        kind="year",
    ),
    EvalItem(
        id="q2",
        question="What rocket launched Apollo 11?",
        answers=("Saturn V",),
        evidence=("Saturn V",),
    ),
    EvalItem(
        id="q1:mc",
        question="In which year did Apollo 11 land?",
        answers=("1969",),
        options=("1969", "1959", "1979", "1989"),
        correct_option="1969",
        evidence=("Apollo 11",),
        variant="mc",
        kind="year",
    ),
    EvalItem(
        id="q3",
        question="Who painted the Mona Lisa?",
        answers=("Leonardo da Vinci",),
        evidence=("Mona Lisa",),
        variant="unanswerable",
    ),
]


class Counter:
    """Counts the replies a fake model hands out."""

    def __init__(self, *replies: str) -> None:
        self.calls = 0
        self._replies = itertools.cycle(replies)

    def __iter__(self) -> Iterator[AIMessage]:
        return self

    def __next__(self) -> AIMessage:
        self.calls += 1
        return AIMessage(content=next(self._replies))


def knowledge_base() -> RunnableLambda[str, list[Document]]:
    """InMemoryVectorStore search that reports its cosine as `similarity`, as the index does."""
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(
        [
            Document(id=t, page_content=text, metadata={"title": t, "source": f"wiki/{t}"})
            for t, text in ARTICLES.items()
        ]
    )

    def search(query: str) -> list[Document]:
        found = store.similarity_search_with_score(query, k=3)
        return [
            Document(
                id=d.id,
                page_content=d.page_content,
                metadata={**d.metadata, "similarity": max(0.0, min(1.0, score))},
            )
            for d, score in found
        ]

    return RunnableLambda(search)


def judge_fake(
    letters: list[AIMessage] | None = None, **extra: list[AIMessage]
) -> PerSchemaFakeChatModel:
    scripts = {
        "QueryComponents": [components(["Apollo 11", "year"])],
        "RelevanceJudgment": [label("highly_relevant")],
        "SupportCheck": [sufficient(True)],
        "Verification": [verdict(True, 0.9)],
        "QueryRewrite": [rewrite("lunar landing", pseudo="Apollo 11 landed in 1969.")],
        "SearchQuery": [keywords("Apollo 11")],
        "GradeDocuments": [tool("GradeDocuments", binary_score="yes")],
        "RouteDecision": [tool("RouteDecision", needs_knowledge_base=True)],
        **extra,
    }
    plain = itertools.cycle(letters or [letter("A", A=0.8, B=0.1, C=0.1)])  # one-letter judge
    return PerSchemaFakeChatModel(messages=plain, scripts=scripts, disable_streaming=True)


def parts(generator: Counter, **kw: Any) -> Components:
    return Components(
        chat_model=GenericFakeChatModel(messages=generator),
        judge_model=judge_fake(),
        retriever=knowledge_base(),  # type: ignore[arg-type]
        web_search=knowledge_base(),  # type: ignore[arg-type]
        **kw,
    )


def options(out: Path, suite: str = "e2e", **kw: Any) -> EvalOptions:
    return EvalOptions(suite=suite, out_dir=out, progress=False, retry_interval=0.0, **kw)  # type: ignore[arg-type]


def test_tiny_end_to_end_run_writes_a_well_formed_report(tmp_path: Path) -> None:
    gen = Counter("A. It was 1969 [1].")
    summary = run_eval(options(tmp_path), components=parts(gen), items=ITEMS)
    systems = DEFAULT_SYSTEMS["e2e"]
    assert summary.ran == len(systems) * len(ITEMS) and summary.errors == 0

    records = read_results(tmp_path / RESULTS_FILE)
    assert len(records) == len(systems) * len(ITEMS)
    assert not [r for r in records.values() if r["error"]]
    plain = records["e2e|plain_rag|q1"]
    assert plain["correct"] is True and plain["cost"]["llm_calls"] == 1  # generate only
    assert records["e2e|plain_rag|q1:mc"]["answer"] == "1969"  # option A
    assert records["e2e|no_retrieval|q2"]["correct"] is False
    assert records["e2e|no_retrieval|q1"]["route"]["gate"] == "direct"
    assert records["e2e|crag|q1"]["judged_by"] == {"llm": 3}  # one binary grade per document
    # no_judge: every document kept unjudged, none judged by the LLM.
    assert set(records["e2e|no_judge|q1"]["judged_by"]) == {"unjudged"}
    assert set(records["e2e|judged|q1"]["judged_by"]) == {"llm"}

    files = write_report(tmp_path)
    summary_json = json.loads(files.summary.read_text())
    e2e = summary_json["suites"]["e2e"]["systems"]
    assert set(e2e) == set(systems)
    assert e2e["plain_rag"]["open"]["accuracy"]["n"] == 2
    assert e2e["plain_rag"]["open"]["accuracy"]["hits"] == 1
    assert e2e["plain_rag"]["mc"]["accuracy"]["value"] == 1.0
    assert e2e["plain_rag"]["unanswerable"]["n"] == 1
    assert e2e["no_retrieval"]["cost"]["mean"]["llm_calls"] == 1.0
    markdown = files.markdown.read_text()
    assert "## Suite: e2e" in markdown and "| plain_rag |" in markdown
    assert "![e2e_accuracy_vs_calls](e2e_accuracy_vs_calls.png)" in markdown
    (png,) = files.plots
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_crag_searches_the_web_only_when_one_is_set(tmp_path: Path) -> None:
    # One irrelevant grade of three sends CRAG to the web; with none set, the route says no.
    found = {}
    for web in ("offline_wikipedia", "none"):
        grades = [tool("GradeDocuments", binary_score=s) for s in ("yes", "no", "yes")]
        chosen = Components(
            chat_model=GenericFakeChatModel(messages=Counter("It was 1969 [1].")),
            judge_model=judge_fake(GradeDocuments=grades),
            retriever=knowledge_base(),  # type: ignore[arg-type]
            web_search=knowledge_base(),  # type: ignore[arg-type]
        )
        out = tmp_path / web
        run_eval(
            options(out, systems=["crag"], settings={"web_search": web}),
            components=chosen,
            items=ITEMS[:1],
        )
        found[web] = read_results(out / RESULTS_FILE)["e2e|crag|q1"]["route"]
    assert found["offline_wikipedia"]["web_searched"] is True
    assert found["offline_wikipedia"]["combination"] == "CRAG: relevant + web"
    assert found["none"]["web_searched"] is False
    assert found["none"]["combination"] == "CRAG: relevant"


def test_rerun_resumes_without_new_model_calls(tmp_path: Path) -> None:
    gen = Counter("It was 1969 [1].")
    chosen = ["plain_rag", "judged"]
    first = run_eval(options(tmp_path, systems=chosen), components=parts(gen), items=ITEMS)
    calls, lines = gen.calls, (tmp_path / RESULTS_FILE).read_text().count("\n")
    assert first.ran == 8 and calls > 0

    second = run_eval(options(tmp_path, systems=chosen), components=parts(gen), items=ITEMS)
    assert (second.ran, second.skipped) == (0, 8)
    assert gen.calls == calls
    assert (tmp_path / RESULTS_FILE).read_text().count("\n") == lines

    # A larger set of systems runs only what is new.
    third = run_eval(
        options(tmp_path, systems=[*chosen, "no_retrieval"]), components=parts(gen), items=ITEMS
    )
    assert (third.ran, third.skipped) == (4, 8)
    assert gen.calls == calls + 4


def test_torn_last_line_is_redone(tmp_path: Path) -> None:
    gen = Counter("1969")
    run_eval(options(tmp_path, systems=["no_retrieval"]), components=parts(gen), items=ITEMS[:2])
    path = tmp_path / RESULTS_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[1][:20])  # killed while writing the second result
    again = run_eval(
        options(tmp_path, systems=["no_retrieval"]), components=parts(gen), items=ITEMS[:2]
    )
    assert again.ran == 1
    assert len(read_results(path)) == 2


def test_rerun_with_other_settings_is_refused(tmp_path: Path) -> None:
    gen = Counter("1969")
    run_eval(options(tmp_path, systems=["no_retrieval"]), components=parts(gen), items=ITEMS[:1])
    with pytest.raises(ValueError, match="other settings"):
        run_eval(
            options(tmp_path, systems=["no_retrieval"], seed=1),
            components=parts(gen),
            items=ITEMS[:1],
        )


def test_resuming_with_another_resolved_web_is_refused(tmp_path: Path) -> None:
    # The same settings ("auto") resolve to another web when the knowledge base changes.
    gen = Counter("1969")
    run_eval(options(tmp_path, systems=["judged"]), components=parts(gen), items=ITEMS[:1])
    run = json.loads((tmp_path / "run.json").read_text())
    recorded = run["suites"]["e2e"]["systems"]["judged"]["configuration"]
    assert recorded["web_search"] == "offline_wikipedia"  # the injected web

    def own_kb() -> Components:  # no web injected: "auto" is none beside one's own KB
        return Components(
            chat_model=GenericFakeChatModel(messages=gen),
            judge_model=judge_fake(),
            retriever=knowledge_base(),  # type: ignore[arg-type]
        )

    for _ in range(2):  # refused, and the refusal leaves the record as it was
        with pytest.raises(ValueError, match=r"web_search='offline_wikipedia'.*'none'"):
            run_eval(options(tmp_path, systems=["judged"]), components=own_kb(), items=ITEMS[:2])
    assert len(read_results(tmp_path / RESULTS_FILE)) == 1
    # The components that resolve the same web resume it, and a new system may join.
    resumed = run_eval(
        options(tmp_path, systems=["judged", "plain_rag"]),
        components=parts(gen),
        items=ITEMS[:2],
    )
    assert (resumed.ran, resumed.skipped) == (3, 1)


def test_failing_question_is_recorded_and_retried_on_request(tmp_path: Path) -> None:
    bad = EvalItem(id="bad", question="", answers=("x",))  # the gate node rejects it
    gen = Counter("1969")
    out = run_eval(options(tmp_path, systems=["plain_rag"]), components=parts(gen), items=[bad])
    assert out.errors == 1
    assert (
        "question is empty" in read_results(tmp_path / RESULTS_FILE)["e2e|plain_rag|bad"]["error"]
    )
    skipped = run_eval(options(tmp_path, systems=["plain_rag"]), components=parts(gen), items=[bad])
    assert skipped.ran == 0
    retried = run_eval(
        options(tmp_path, systems=["plain_rag"], retry_errors=True),
        components=parts(gen),
        items=[bad],
    )
    assert retried.ran == 1


def test_parallel_workers_give_every_result_once(tmp_path: Path) -> None:
    gen = Counter("1969")
    out = run_eval(
        options(tmp_path, systems=["no_retrieval", "plain_rag"], workers=3),
        components=parts(gen),
        items=ITEMS,
    )
    assert out.ran == 8 and out.errors == 0
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert len(lines) == 8 and len({json.loads(line)["key"] for line in lines}) == 8


# --------------------------------------------------------------------------- other suites


def ranked_retriever() -> RunnableLambda[str, list[Document]]:
    """Evidence second for every question."""

    def search(query: str) -> list[Document]:
        return [
            Document(id="moon", page_content=ARTICLES["Moon"], metadata={"title": "Moon"}),
            Document(
                id="apollo", page_content=ARTICLES["Apollo 11"], metadata={"title": "Apollo 11"}
            ),
        ]

    return RunnableLambda(search)


def test_retrieval_suite_ranks_the_evidence_page(tmp_path: Path) -> None:
    item = ITEMS[0]
    judge = judge_fake()
    kit = Components(judge_model=judge, retriever=ranked_retriever())  # type: ignore[arg-type]
    run_eval(options(tmp_path, suite="retrieval", k=5), components=kit, items=[item])
    records = read_results(tmp_path / RESULTS_FILE)
    assert set(records) == {f"retrieval|{s}|q1" for s in DEFAULT_SYSTEMS["retrieval"]}
    assert records["retrieval|bm25|q1"]["rank"] == 2
    assert records["retrieval|hybrid_rewrite|q1"]["llm_calls"] == 1
    assert "lunar landing" in records["retrieval|hybrid_rewrite|q1"]["rewritten_query"]
    summary = json.loads(write_report(tmp_path).summary.read_text())["suites"]["retrieval"]
    assert summary["hybrid"]["recall@1"]["value"] == 0.0
    assert summary["hybrid"]["recall@3"]["value"] == 1.0
    assert summary["hybrid"]["mrr"] == 0.5
    assert (tmp_path / "retrieval_recall.png").is_file()


def apollo_and_paris(apollo: float, paris: float) -> RunnableLambda[str, list[Document]]:
    """The evidence page and an unrelated one, with these cosines."""

    def search(query: str) -> list[Document]:
        return [
            Document(
                id="apollo",
                page_content=ARTICLES["Apollo 11"],
                metadata={"title": "Apollo 11", "similarity": apollo},
            ),
            Document(
                id="paris",
                page_content=ARTICLES["Paris"],
                metadata={"title": "Paris", "similarity": paris},
            ),
        ]

    return RunnableLambda(search)


def test_judge_suite_scores_labels_and_prefilter_savings(tmp_path: Path) -> None:

    judge = judge_fake(
        [letter("A", A=0.7, B=0.2, C=0.1), letter("C", A=0.1, B=0.2, C=0.7)],
        RelevanceJudgment=[label("highly_relevant"), label("not_relevant")],
        GradeDocuments=[tool("GradeDocuments", binary_score="yes")],
    )
    kit = Components(judge_model=judge, retriever=apollo_and_paris(0.99, 0.0))  # type: ignore[arg-type]
    systems = ["judge3", "judge3_prefilter", "judge_letter", "binary"]
    run_eval(options(tmp_path, suite="judge", systems=systems), components=kit, items=[ITEMS[0]])
    data = json.loads(write_report(tmp_path).summary.read_text())["suites"]["judge"]
    assert data["judge3"]["evidence_page"]["precision"] == 1.0
    assert data["judge3"]["answer_bearing"]["recall"] == 1.0
    assert data["judge3"]["llm_calls"] == 2
    assert data["judge3_prefilter"]["llm_calls"] == 0
    assert data["judge3_prefilter"]["llm_calls_saved_by_prefilter"] == 2
    assert data["binary"]["evidence_page"]["precision"] == 0.5  # "yes" to both
    letters = data["judge_letter"]
    assert letters["labels"] == {"highly_relevant": 1, "not_relevant": 1}
    assert letters["evidence_page"]["precision"] == 1.0
    assert letters["p_highly"]["auc_page"] == 1.0
    sweep = {row["threshold"]: row for row in letters["p_highly"]["sweep_answer"]}
    assert sweep[0.35]["tp"] + sweep[0.35]["fp"] == 1  # only P(A) = 0.7 passes
    # The judge's score: 0.5 * 0.7 + 0.5 * 0.99 and 0.5 * 0.1 + 0.5 * 0.0.
    scores = {row["threshold"]: row for row in letters["judge_score"]["sweep_answer"]}
    assert scores[0.8]["tp"] == 1 and scores[0.85]["tp"] == 0
    assert letters["similarity"]["auc_page"] == 1.0
    report = (tmp_path / "report.md").read_text()
    assert "judge_letter, the LLM's probability that the document states the answer: " in report
    assert "2 documents, ROC AUC 1" in report


def test_judge_suite_scores_the_extracting_judge(tmp_path: Path) -> None:
    judge = judge_fake([quote("1969", **{"196": 0.8, "NONE": 0.2}), quote("NONE", NONE=0.9)])
    kit = Components(judge_model=judge, retriever=apollo_and_paris(0.8, 0.2))  # type: ignore[arg-type]
    run_eval(
        options(tmp_path, suite="judge", systems=["judge_extract"]),
        components=kit,
        items=[ITEMS[0]],
    )
    records = read_results(tmp_path / RESULTS_FILE)
    docs = {d["id"]: d for d in records["judge|judge_extract|q1"]["docs"]}
    assert docs["apollo"]["p_highly"] == pytest.approx(0.8)
    w = JUDGE_SIMILARITY_WEIGHTS["extract"]  # the cosine's weight, the judge's default
    assert docs["apollo"]["judge_score"] == pytest.approx((1 - w) * 0.8 + w * 0.8)
    assert docs["apollo"]["label"] == "highly_relevant"  # 0.8 reaches extract's 0.75
    assert docs["paris"]["label"] == "not_relevant"
    assert docs["paris"]["judge_score"] == pytest.approx(w * 0.2)  # NONE: p 0, the cosine
    data = json.loads(write_report(tmp_path).summary.read_text())["suites"]["judge"]
    assert data["judge_extract"]["judge_score"]["auc_page"] == 1.0


def test_judge_suite_runs_the_list_judge_in_windows(tmp_path: Path) -> None:
    reply = graded("1: A\n2: C", {"A": 0.7, "B": 0.2, "C": 0.1}, {"A": 0.1, "B": 0.2, "C": 0.7})
    judge = judge_fake([reply])
    kit = Components(judge_model=judge, retriever=apollo_and_paris(0.99, 0.0))  # type: ignore[arg-type]
    run_eval(
        options(tmp_path, suite="judge", systems=["judge_list"]), components=kit, items=[ITEMS[0]]
    )
    record = read_results(tmp_path / RESULTS_FILE)["judge|judge_list|q1"]
    docs = {d["id"]: d for d in record["docs"]}
    assert record["llm_calls"] == 1  # both documents in one call
    assert docs["apollo"]["p_highly"] == pytest.approx(0.7)
    assert docs["apollo"]["judge_score"] == pytest.approx(0.5 * 0.7 + 0.5 * 0.99)
    assert docs["apollo"]["label"] == "highly_relevant"
    assert docs["paris"]["label"] == "not_relevant"
    assert docs["paris"]["judge_score"] == pytest.approx(0.05)


def test_gate_suite_reports_scores_and_distributions(tmp_path: Path) -> None:
    embeddings = DeterministicFakeEmbedding(size=32)
    items = [
        EvalItem(id="in", question=ARTICLES["Moon"], answers=("x",), in_domain=True),
        EvalItem(id="out", question="Who painted the Mona Lisa?", answers=("x",), in_domain=False),
    ]
    gate = VectorCandidatesGate(
        embeddings, [ARTICLES["Moon"], ARTICLES["Paris"]], similarities=[0.7, 0.8, 0.9, 0.95]
    )
    kit = Components(judge_model=judge_fake(), retriever=ranked_retriever(), gate_index=gate)  # type: ignore[arg-type]
    run_eval(options(tmp_path, suite="gate"), components=kit, items=items)
    records = read_results(tmp_path / RESULTS_FILE)
    assert records["gate|cag_gate|in"]["route"] == "retrieve"  # its own chunk: cosine 1
    assert records["gate|cag_gate|out"]["route"] == "direct"
    assert records["gate|llm_router|out"]["llm_calls"] == 1
    files = write_report(tmp_path)
    data = json.loads(files.summary.read_text())["suites"]["gate"]
    assert data["systems"]["cag_gate"]["accuracy"]["value"] == 1.0
    assert data["systems"]["always_retrieve"]["out_of_domain_recall"]["value"] == 0.0
    assert data["distributions"]["pseudo_query_similarity"]["n"] == 4
    assert data["distributions"]["in_domain_s_max"]["p50"] == pytest.approx(1.0, abs=1e-4)
    assert "CAG's Table I" in files.markdown.read_text()
    assert (tmp_path / "gate_scores.png").read_bytes()[:4] == b"\x89PNG"
    sweep = data["cutoff_sweep"]
    n = data["systems"]["cag_gate"]["n"]
    assert [row["cutoff"] for row in sweep] == [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65]
    assert all(row["accuracy"]["n"] == n for row in sweep)
    # In-domain questions (s_max near 1) are retrieved at every cut-off.
    assert all(row["in_domain_recall"]["value"] == 1.0 for row in sweep)
    assert "Other cut-offs on the same questions" in files.markdown.read_text()


# --------------------------------------------------------------------------- command line


def test_eval_subcommand_parses_and_rebuilds_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="judged-rag")
    add_eval_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        [
            "eval",
            "--suite",
            "e2e",
            "--systems",
            "plain_rag,judged_paper@openai:gpt-4o-mini",
            "--limit",
            "3",
            "--seed",
            "7",
            "--out",
            str(tmp_path),
            "--set",
            "open_strategy=6",
            "--preset",
            "fast",
        ]
    )
    opts = options_from_args(args)
    assert opts.systems == ["plain_rag", "judged_paper@openai:gpt-4o-mini"]
    assert opts.settings == {"preset": "fast", "open_strategy": "D_H ∪ D_S ∪ D_N"}
    assert (opts.limit, opts.seed) == (3, 7)

    run_eval(
        options(tmp_path, systems=["no_retrieval"]),
        components=parts(Counter("1969")),
        items=ITEMS[:1],
    )
    report = parser.parse_args(["eval", "--suite", "e2e", "--out", str(tmp_path), "--report-only"])
    assert run_eval_command(report) == 0
    assert "report: " in capsys.readouterr().out


def test_retrieval_suite_passes_run_options_to_the_hybrid_index(tmp_path: Path) -> None:
    from judged_rag.indexing import build_index, open_index

    docs = tmp_path / "docs"
    docs.mkdir()
    for title, text in ARTICLES.items():
        (docs / f"{title.replace(' ', '_')}.md").write_text(
            f"---\ntitle: {title}\n---\n# {title}\n\n{text}\n", encoding="utf-8"
        )
    embeddings = DeterministicFakeEmbedding(size=16)
    build_index([docs], tmp_path / "index", embeddings=embeddings, pseudo_queries=0, progress=False)
    retriever = open_index(tmp_path / "index", embeddings=embeddings)
    kit = Components(judge_model=judge_fake(), retriever=retriever)
    out = tmp_path / "run"
    summary = run_eval(options(out, suite="retrieval", k=3), components=kit, items=[ITEMS[0]])
    assert summary.errors == 0
    records = read_results(out / RESULTS_FILE)
    # BM25 alone puts a chunk of the evidence page first (the words match); the
    # fake dense side ranks at random, so the lists differ.
    assert records["retrieval|bm25|q1"]["rank"] == 1
    assert records["retrieval|bm25|q1"]["titles"] != records["retrieval|dense|q1"]["titles"]


def test_a_set_value_that_contradicts_a_system_is_refused() -> None:
    from judged_rag_eval.systems import configure

    with pytest.raises(ValueError, match=r"'hybrid' is defined by .*fusion='weighted'"):
        configure("hybrid", {"fusion": "rrf"})
    with pytest.raises(ValueError, match="judge='structured'"):
        configure("no_judge", {"judge": "structured"})
    # a --set that agrees with the system, or touches another setting, is fine
    assert configure("hybrid", {"fusion": "weighted", "top_k": 5}).config.top_k == 5
    assert configure("hybrid_rrf", {"top_k": 5}).config.fusion == "rrf"


def test_each_system_goes_first_on_its_share_of_the_questions(tmp_path: Path) -> None:
    # A later system may reuse prompt prefixes an earlier one left in a local server's
    # cache, so the order rotates from one question to the next.
    gen = Counter("It was 1969 [1].")
    chosen = ["no_retrieval", "plain_rag"]
    run_eval(options(tmp_path, systems=chosen), components=parts(gen), items=ITEMS)
    lines = [json.loads(line) for line in (tmp_path / RESULTS_FILE).read_text().splitlines()]
    assert len(lines) == 2 * len(ITEMS)
    firsts = [lines[i]["system"] for i in range(0, len(lines), 2)]
    pairs = [{lines[i]["item_id"], lines[i + 1]["item_id"]} for i in range(0, len(lines), 2)]
    assert all(len(p) == 1 for p in pairs)  # both systems on a question, then the next
    assert firsts == ["no_retrieval", "plain_rag", "no_retrieval", "plain_rag"]


def test_variants_take_turns_and_can_be_chosen(tmp_path: Path) -> None:
    from judged_rag_eval.items import take_turns
    from judged_rag_eval.runner import _limit

    def item(variant: str, n: int) -> EvalItem:
        return EvalItem(id=f"{variant}{n}", question="q", variant=variant)  # type: ignore[arg-type]

    groups = {v: [item(v, n) for n in range(3)] for v in ("open", "mc", "unanswerable")}
    groups["mc"] = groups["mc"][:1]
    mixed = take_turns(groups)
    assert [i.id for i in mixed] == [
        "open0", "mc0", "unanswerable0", "open1", "unanswerable1", "open2", "unanswerable2",
    ]  # fmt: skip
    chosen = _limit(mixed, options(tmp_path, limit=2, variants=("open", "unanswerable")))
    assert [i.id for i in chosen] == ["open0", "unanswerable0", "open1", "unanswerable1"]

    parser = argparse.ArgumentParser(prog="judged-rag")
    add_eval_parser(parser.add_subparsers(dest="command"))
    base = ["eval", "--suite", "e2e", "--out", str(tmp_path), "--variants"]
    assert options_from_args(parser.parse_args([*base, "open, unanswerable"])).variants == (
        "open",
        "unanswerable",
    )
    with pytest.raises(ValueError, match="unknown variant"):
        options_from_args(parser.parse_args([*base, "open,closed"]))


def test_a_limited_run_takes_every_category_in_turn() -> None:
    from judged_rag_eval.items import seeded_order

    def item(category: str | None, n: int) -> EvalItem:
        return EvalItem(id=f"{category}{n}", question="q", category=category)  # type: ignore[arg-type]

    items = [item(c, n) for c in ("dated", "bridge", "single") for n in range(4)]
    items += [item("bridge", 9)]
    first = [i.category for i in seeded_order(items, seed=0)[:6]]
    assert sorted(first) == ["bridge", "bridge", "dated", "dated", "single", "single"]
    assert seeded_order(items, seed=0) == seeded_order(list(reversed(items)), seed=0)
    # Without categories the order is the seeded shuffle of the ids, as before.
    plain = [item(None, n) for n in range(6)]
    expected = sorted(i.id for i in plain)
    random.Random("0:order").shuffle(expected)
    assert [i.id for i in seeded_order(plain, seed=0)] == expected


def test_every_suite_the_command_offers_has_its_module() -> None:
    assert sorted(REGISTRY) == sorted(SUITES)
    assert all(suite.name == name for name, suite in REGISTRY.items())
