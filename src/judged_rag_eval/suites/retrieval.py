"""The retrieval suite: is the evidence page among a retriever's first k results?

Each system (`systems.SYSTEMS`: BM25, dense, hybrid with weighted or RRF fusion, and
hybrid after a rewrite) retrieves for a question; the record keeps the titles in rank
order and the rank of the first evidence chunk. Reported: recall@k (k in `RECALL_AT`,
up to ``--k``) and MRR per system, with a bar plot of recall.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.core.retrieval import search
from judged_rag.core.scores import RRF_K
from judged_rag.prompts import rewrite as rewrite_prompt
from judged_rag.schemas import QueryRewrite
from judged_rag_eval.context import EvalOptions, RunContext
from judged_rag_eval.items import EvalItem
from judged_rag_eval.metrics import first_relevant_rank, mean, rate
from judged_rag_eval.plots import pyplot, save
from judged_rag_eval.results import by_system, ok_records
from judged_rag_eval.suite import Suite, Summary
from judged_rag_eval.systems import System
from judged_rag_eval.tables import num, pct, table

RECALL_AT = (1, 3, 5, 10)


def _retrieval_task(ctx: RunContext, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    retriever = ctx.components.knowledge_retriever(cfg)
    depth = max(ctx.options.k, 1)
    started = time.perf_counter()
    lists = [
        search(retriever, item.question, k=depth, fusion=cfg.fusion, dense_weight=cfg.dense_weight)
    ]
    calls = tokens = 0
    query = ""
    if system.spec.options.get("rewrite"):
        messages = [
            SystemMessage(rewrite_prompt.SYSTEM),
            HumanMessage(rewrite_prompt.USER.format(question=item.question, missing=item.question)),
        ]
        step = ctx.deps(cfg).step("rewrite", {}, {}, cfg)
        outcome = step.structured(QueryRewrite, messages, default=QueryRewrite())
        calls = outcome.cost["llm_calls"]
        tokens = outcome.cost["input_tokens"] + outcome.cost["output_tokens"]
        synonyms = " ".join(s for s in outcome.value.synonyms if s.strip())
        query = f"{item.question} {synonyms}\n{outcome.value.pseudo_document}".strip()
        lists.append(
            search(retriever, query, k=depth, fusion=cfg.fusion, dense_weight=cfg.dense_weight)
        )
    ranked = lists[0] if len(lists) == 1 else _rrf(lists, depth)
    ms = (time.perf_counter() - started) * 1000
    titles = [str((d.metadata or {}).get("title", "")) for d in ranked]
    return {
        "evidence": list(item.evidence),
        "titles": titles,
        "rank": first_relevant_rank(titles, item.evidence),
        "depth": depth,
        "rewritten_query": query[:500] or None,
        "ms": round(ms, 2),
        "llm_calls": calls,
        "tokens": tokens,
    }


def _doc_key(doc: Document) -> str:
    meta = doc.metadata or {}
    return str(
        doc.id or meta.get("chunk_id") or hashlib.sha1(doc.page_content.encode()).hexdigest()
    )


def _rrf(lists: Sequence[Sequence[Document]], k: int) -> list[Document]:
    scores: dict[str, float] = {}
    docs: dict[str, Document] = {}
    for ranked in lists:
        for rank, doc in enumerate(ranked, start=1):
            key = _doc_key(doc)
            docs.setdefault(key, doc)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    order = sorted(scores, key=lambda key: -scores[key])
    return [docs[key] for key in order[:k]]


def summarize_retrieval(records: Sequence[Mapping[str, Any]]) -> Summary:
    """recall@k and MRR of the evidence page per system."""
    out: Summary = {}
    for system, rows in by_system(records).items():
        ok = ok_records(rows)
        depth = min((int(r.get("depth", 10)) for r in ok), default=0)
        ranks = [r.get("rank") for r in ok]
        recall = {
            f"recall@{k}": rate(
                sum(1 for x in ranks if x is not None and x <= k), len(ok)
            ).as_dict()
            for k in RECALL_AT
            if k <= depth
        }
        out[system] = {
            "n": len(ok),
            "errors": len(rows) - len(ok),
            **recall,
            "mrr": round(mean(1.0 / x if x else 0.0 for x in ranks), 4),
            "ms_per_query": round(mean(float(r.get("ms", 0.0)) for r in ok), 2),
            "llm_calls_per_query": round(mean(float(r.get("llm_calls", 0)) for r in ok), 3),
        }
    return out


def _retrieval_md(data: Summary) -> list[str]:
    ks = [f"recall@{k}" for k in RECALL_AT if any(f"recall@{k}" in v for v in data.values())]
    header = ["system", "n", *ks, "MRR", "ms/query", "LLM calls/query", "errors"]
    rows = [
        [
            s,
            str(v["n"]),
            *(pct(v.get(k)) for k in ks),
            num(v["mrr"]),
            num(v["ms_per_query"], 1),
            num(v["llm_calls_per_query"], 2),
            str(v["errors"]),
        ]
        for s, v in data.items()
    ]
    note = (
        "Recall@k: the evidence page is among the first k results (chunks); MRR over "
        "the returned depth. Percentages with Wilson 95% intervals."
    )
    return [*table(header, rows), note, ""]


def plot_retrieval(data: Summary, path: Path) -> Path:
    """recall@k per system as grouped bars."""
    plt = pyplot()
    systems = list(data)
    ks = [k for k in RECALL_AT if any(f"recall@{k}" in v for v in data.values())]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    width = 0.8 / max(len(systems), 1)
    for i, system in enumerate(systems):
        values = [(data[system].get(f"recall@{k}") or {}).get("value", 0.0) for k in ks]
        ax.bar([j + i * width for j in range(len(ks))], values, width=width, label=system)
    ax.set_xticks([j + width * (len(systems) - 1) / 2 for j in range(len(ks))])
    ax.set_xticklabels([f"recall@{k}" for k in ks])
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Evidence page recall")
    return save(plt, fig, path)


def _fingerprint(options: EvalOptions, fingerprint: dict[str, Any]) -> dict[str, Any]:
    return {**fingerprint, "k": options.k}


SUITE = Suite(
    name="retrieval",
    task=_retrieval_task,
    summarize=lambda records, entry: summarize_retrieval(records),
    markdown=lambda data, entry: _retrieval_md(data),
    fanoutqa=lambda suites: {"open": suites.retrieval},
    plots=lambda data, records, out_dir: {
        "retrieval_recall": plot_retrieval(data, out_dir / "retrieval_recall.png")
    },
    fingerprint=_fingerprint,
)
