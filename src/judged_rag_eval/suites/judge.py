"""The judge suite: does a judge label the documents that hold the answer positive?

For each question the knowledge base's top-k documents are retrieved once
(`RunContext.memo`) and every system judges the same ones: the graph's judges (three
labels, one letter, extracting, list-wise; with or without the pre-filter) through the
judge node, and CRAG's binary grader. A document counts against the evidence page and
against whether it also states the answer. Reported: precision, recall and F1 of the
positive label, the calls the pre-filter and the subject check saved, and each judge
score's ROC AUC with precision and recall by threshold.

`judge_document`, `verdict_of` and `llm_usage` are what the injection suite's judge level
uses too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from langchain_core.documents import Document

from judged_rag.configuration import Configuration
from judged_rag.core.retrieval import search
from judged_rag.nodes.judge import judge
from judged_rag.state import Cost, Doc, JudgeTask, JudgeWindow, Judgment
from judged_rag_eval.baselines import documents_to_docs, grade_document
from judged_rag_eval.context import RunContext
from judged_rag_eval.items import EvalItem
from judged_rag_eval.metrics import (
    mean,
    normalize_title,
    precision_recall,
    roc_auc,
    states_answer,
    threshold_sweep,
)
from judged_rag_eval.results import by_system, ok_records, tally
from judged_rag_eval.suite import Suite, Summary
from judged_rag_eval.systems import System
from judged_rag_eval.tables import num, table

SWEEP = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
"""Thresholds on a judge's score shown in the judge report (the full curve)."""


def _documents(ctx: RunContext, item: EvalItem, cfg: Configuration) -> list[Document]:
    """The documents of an item: retrieved once, judged by every system."""

    def retrieve() -> list[Document]:
        retriever = ctx.components.knowledge_retriever(cfg)
        return search(
            retriever, item.question, k=cfg.top_k, fusion=cfg.fusion, dense_weight=cfg.dense_weight
        )

    return ctx.memo(f"judge:documents:{item.id}", retrieve)


def _judge_task(ctx: RunContext, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    documents = _documents(ctx, item, cfg)
    docs = documents_to_docs(documents, cfg)
    evidence = {normalize_title(t) for t in item.evidence}
    started = time.perf_counter()
    rows = []
    calls = tokens = 0
    if system.spec.kind == "judge3" and cfg.judge == "list":
        judged = _judge_windows(ctx, system, item.question, docs)
    else:
        judged = [judge_document(ctx, system, item.question, doc) for doc in docs]
    for doc, (verdict, doc_calls, doc_tokens, _) in zip(docs, judged, strict=True):
        calls += doc_calls
        tokens += doc_tokens
        on_page = normalize_title(doc["title"]) in evidence
        rows.append(
            {
                "id": doc["id"],
                "title": doc["title"],
                "evidence": on_page,
                "answer_bearing": on_page
                and any(states_answer(doc["content"], a) for a in item.answers),
                **verdict,
            }
        )
    return {
        "docs": rows,
        "ms": round((time.perf_counter() - started) * 1000, 2),
        "llm_calls": calls,
        "tokens": tokens,
    }


def judge_document(
    ctx: RunContext, system: System, question: str, doc: Doc
) -> tuple[dict[str, Any], int, int, int]:
    """One document judged as the judge suite judges it.

    Returns:
        The verdict (label, positive, by, p_highly, judge_score, similarity), LLM calls,
        tokens, and the failed attempts before the reply that was used.
    """
    cfg = system.config
    deps = ctx.deps(cfg)
    if system.spec.kind != "binary":
        task = JudgeTask(question=question, query_parts=[], document=doc, iteration=0)
        out = judge(task, {}, None, deps=deps)
        return verdict_of(out["judgments"][0], doc), *llm_usage(out["cost"])
    outcome = grade_document(deps.step("grade", {}, {}, cfg), question, doc["content"])
    positive = outcome.value.binary_score == "yes"
    verdict = {
        "label": "relevant" if positive else "irrelevant",
        "positive": positive,
        "by": "fallback" if outcome.fallback else "llm",
        "p_highly": None,
        "judge_score": None,
        "similarity": doc["similarity"],
    }
    return verdict, *llm_usage(outcome.cost)


def _judge_windows(
    ctx: RunContext, system: System, question: str, docs: Sequence[Doc]
) -> list[tuple[dict[str, Any], int, int, int]]:
    """The list judge's verdicts: one call per window of `judge_window` documents.

    The documents keep the retriever's order, so each is graded at the position the
    graph would give it. A window's calls and tokens are counted on its first document.
    """
    cfg = system.config
    deps = ctx.deps(cfg)
    size = cfg.judge_window
    judged: list[tuple[dict[str, Any], int, int, int]] = []
    for n, start in enumerate(range(0, len(docs), size)):
        window = list(docs[start : start + size])
        task = JudgeWindow(question=question, documents=window, iteration=0, window=n)
        out = judge(task, {}, None, deps=deps)
        calls, tokens, failed = llm_usage(out["cost"])
        for i, (doc, judgment) in enumerate(zip(window, out["judgments"], strict=True)):
            spent = (calls, tokens, failed) if i == 0 else (0, 0, 0)
            judged.append((verdict_of(judgment, doc), *spent))
    return judged


def verdict_of(judgment: Judgment, doc: Doc) -> dict[str, Any]:
    """What the suite records of a judgment of `doc`."""
    label = judgment["label"]
    return {
        "label": label,
        "positive": label == "highly_relevant",
        "by": judgment["by"],
        "p_highly": judgment.get("p_highly"),
        "judge_score": judgment.get("judge_score"),
        "similarity": doc["similarity"],
    }


def llm_usage(cost: Cost) -> tuple[int, int, int]:
    """LLM calls, tokens, and failed attempts before the reply that was used."""
    tokens = cost["input_tokens"] + cost["output_tokens"]
    return cost["llm_calls"], tokens, max(0, cost["llm_calls"] - 1)


def summarize_judge(records: Sequence[Mapping[str, Any]]) -> Summary:
    """Precision / recall of the positive label against the evidence page, and calls saved."""
    out: Summary = {}
    for system, rows in by_system(records).items():
        ok = ok_records(rows)
        docs = [d for r in ok for d in r.get("docs", [])]
        page = precision_recall((bool(d["positive"]), bool(d["evidence"])) for d in docs)
        bearing = precision_recall((bool(d["positive"]), bool(d["answer_bearing"])) for d in docs)
        by: dict[str, int] = {}
        for d in docs:
            by[str(d.get("by"))] = by.get(str(d.get("by")), 0) + 1
        out[system] = {
            "questions": len(ok),
            "errors": len(rows) - len(ok),
            "documents": len(docs),
            "evidence_page": asdict(page),
            "answer_bearing": asdict(bearing),
            "labels": tally(str(d["label"]) for d in docs),
            "by": by,
            "llm_calls": int(sum(int(r.get("llm_calls", 0)) for r in ok)),
            "llm_calls_saved_by_prefilter": by.get("prefilter", 0),
            "llm_calls_saved_by_subject_check": by.get("subject_check", 0),
            "ms_per_question": round(mean(float(r.get("ms", 0.0)) for r in ok), 1),
        }
        for key in ("p_highly", "judge_score", "similarity"):
            scored = [d for d in docs if d.get(key) is not None]
            if key == "similarity" and "judge_score" not in out[system]:
                continue  # the cosine is reported beside a judge that uses it
            if scored:
                by_answer = [(float(d[key]), bool(d["answer_bearing"])) for d in scored]
                out[system][key] = {
                    "documents": len(scored),
                    "auc_page": roc_auc((float(d[key]), bool(d["evidence"])) for d in scored),
                    "auc_answer": roc_auc(by_answer),
                    "sweep_answer": threshold_sweep(by_answer, SWEEP),
                }
    return out


def _pr(value: Mapping[str, Any]) -> list[str]:
    return [num(value["precision"]), num(value["recall"]), num(value["f1"])]


def _judge_md(data: Summary) -> list[str]:
    header = [
        "system",
        "questions",
        "documents",
        "P (page)",
        "R (page)",
        "F1 (page)",
        "P (answer)",
        "R (answer)",
        "F1 (answer)",
        "LLM calls",
        "saved by pre-filter",
        "saved by subject check",
        "fallbacks",
        "errors",
    ]
    rows = [
        [
            s,
            str(v["questions"]),
            str(v["documents"]),
            *_pr(v["evidence_page"]),
            *_pr(v["answer_bearing"]),
            str(v["llm_calls"]),
            str(v["llm_calls_saved_by_prefilter"]),
            str(v["llm_calls_saved_by_subject_check"]),
            str(v["by"].get("fallback", 0)),
            str(v["errors"]),
        ]
        for s, v in data.items()
    ]
    note = (
        'Positive label: Highly Relevant (three labels) or yes (binary). "page": the '
        'document comes from the evidence page; "answer": it also contains the answer.'
    )
    return [*table(header, rows), note, "", *_sweep_md(data)]


_SCORES = {
    "p_highly": "the LLM's probability that the document states the answer",
    "similarity": "the retriever's cosine alone",
    "judge_score": "the judge's score (the LLM's probability combined with the cosine)",
}


def _sweep_md(data: Summary) -> list[str]:
    """The judges' scores: ROC AUC, and precision / recall by threshold of the one labels use."""
    lines: list[str] = []
    for system, v in data.items():
        for key, meaning in _SCORES.items():
            scored = v.get(key)
            if scored:
                lines.append(
                    f"{system}, {meaning}: {scored['documents']} documents, ROC AUC "
                    f"{num(scored['auc_page'])} (evidence page), "
                    f"{num(scored['auc_answer'])} (answer-bearing)."
                )
        key = "judge_score" if v.get("judge_score") else "p_highly"
        scored = v.get(key)
        if not scored:
            continue
        lines += [
            "",
            f"{system}: Highly Relevant at {key} >= threshold, against answer-bearing:",
            "",
        ]
        rows = [
            [num(r["threshold"], 2), str(r["tp"]), str(r["fp"]), *_pr(r)]
            for r in scored["sweep_answer"]
        ]
        lines += [*table(["threshold", "TP", "FP", "P", "R", "F1"], rows), ""]
    return lines


SUITE = Suite(
    name="judge",
    task=_judge_task,
    summarize=lambda records, entry: summarize_judge(records),
    markdown=lambda data, entry: _judge_md(data),
    fanoutqa=lambda suites: {"open": suites.answer},
)
