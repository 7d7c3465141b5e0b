"""Benchmark the hybrid index on the sample knowledge base; prints a Markdown table.

Measures: building the sample index from scratch (into a fresh JUDGED_RAG_HOME; the
embedding model load is timed apart), an unchanged rebuild, opening the index, query
latency p50/p95 of hybrid (weighted and RRF), BM25-only and dense-only retrieval over
sampled questions, and embedding throughput (chunks and short queries per second).
Questions are "What is <title>?" for sampled article titles; the share whose own article
comes back first is reported as a sanity check, not as a quality benchmark.

    PYTHONPATH=src python scripts/bench_index.py [--queries 100] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 / p95 / mean in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": 1000 * statistics.median(ordered),
        "p95_ms": 1000 * p95,
        "mean_ms": 1000 * statistics.fmean(ordered),
    }


def timed(fn: Callable[[str], Any], queries: list[str]) -> tuple[dict[str, float], list[Any]]:
    """Run `fn` over the queries (after one warm-up call), timing each call."""
    fn(queries[0])
    results, samples = [], []
    for query in queries:
        started = time.perf_counter()
        results.append(fn(query))
        samples.append(time.perf_counter() - started)
    return percentiles(samples), results


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    home = Path(tempfile.mkdtemp(prefix="judged-rag-bench-"))
    os.environ["JUDGED_RAG_HOME"] = str(home)

    from judged_rag.components.embeddings import local_embeddings
    from judged_rag.indexing import build_sample_index, open_index, sample_documents
    from judged_rag.indexing.store import IndexStore

    out: dict[str, Any] = {"cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]}
    embedder = local_embeddings()
    started = time.perf_counter()
    embedder.embed_query("warm up")
    out["model_load_s"] = time.perf_counter() - started

    stats = build_sample_index(progress=False)
    out["build"] = {
        "articles": stats.files,
        "chunks": stats.chunks,
        "duplicates": stats.duplicates,
        "texts_embedded": stats.embedded,
        "seconds": stats.seconds,
    }
    again = build_sample_index(progress=False)
    out["rebuild_unchanged_s"] = again.seconds
    index_dir = home / "indexes" / "sample"

    started = time.perf_counter()
    retriever = open_index(index_dir)
    out["open_s"] = time.perf_counter() - started
    store: IndexStore = retriever.store

    rng = random.Random(0)
    documents = sample_documents()
    picked = rng.sample(documents, min(args.queries, len(documents)))
    queries = [f"What is {d.title}?" for d in picked]
    titles = [d.title for d in picked]

    def hit_rate(tops: list[str]) -> float:
        return sum(a == b for a, b in zip(tops, titles, strict=True)) / len(titles)

    latency: dict[str, Any] = {}
    stats_h, docs_h = timed(lambda q: retriever.invoke(q, k=args.k), queries)
    latency["hybrid_weighted"] = {
        **stats_h,
        "top1_own_article": hit_rate([d[0].metadata["title"] for d in docs_h]),
    }
    stats_r, docs_r = timed(lambda q: retriever.invoke(q, k=args.k, fusion="rrf"), queries)
    latency["hybrid_rrf"] = {
        **stats_r,
        "top1_own_article": hit_rate([d[0].metadata["title"] for d in docs_r]),
    }

    def bm25_only(query: str) -> list[int]:
        scores = store.bm25_scores(query)
        top = np.argpartition(-scores, args.k)[: args.k]
        return top[np.argsort(-scores[top])].tolist()  # type: ignore[no-any-return]

    stats_b, rows_b = timed(bm25_only, queries)
    latency["bm25_only"] = {
        **stats_b,
        "top1_own_article": hit_rate([store.chunks[r[0]].title for r in rows_b]),
    }

    def dense_only(query: str) -> list[int]:
        vector = np.asarray(embedder.embed_query(query), dtype=np.float32)
        return store.dense_search(vector, args.k)[1].tolist()  # type: ignore[no-any-return]

    stats_d, rows_d = timed(dense_only, queries)
    latency["dense_only"] = {
        **stats_d,
        "top1_own_article": hit_rate([store.chunks[r[0]].title for r in rows_d]),
    }
    stats_e, _ = timed(embedder.embed_query, queries)
    latency["query_embedding_only"] = stats_e
    stats_g, _ = timed(retriever.max_similarity, queries)
    latency["gate_max_similarity"] = stats_g
    out["latency"] = latency

    chunk_texts = [c.text for c in store.chunks[:256]]
    started = time.perf_counter()
    embedder.encode(chunk_texts)
    chunk_seconds = time.perf_counter() - started
    started = time.perf_counter()
    embedder.encode(queries)
    query_seconds = time.perf_counter() - started
    out["embedding_throughput"] = {
        "chunks_per_s": len(chunk_texts) / chunk_seconds,
        "mean_chunk_chars": statistics.fmean(len(t) for t in chunk_texts),
        "queries_per_s": len(queries) / query_seconds,
    }

    build = out["build"]
    print("| measure | value |\n|---|---|")
    print(f"| embedding model load (import + weights) | {out['model_load_s']:.1f} s |")
    print(
        f"| build sample index ({build['articles']} articles -> {build['chunks']} chunks, "
        f"{build['texts_embedded']} texts embedded) | {build['seconds']:.1f} s |"
    )
    print(f"| rebuild, nothing changed | {out['rebuild_unchanged_s']:.2f} s |")
    print(f"| open index | {out['open_s'] * 1000:.0f} ms |")
    for name, row in latency.items():
        hit = row.get("top1_own_article")
        extra = f", top-1 own article {hit:.0%}" if hit is not None else ""
        times = f"p50 {row['p50_ms']:.1f} ms, p95 {row['p95_ms']:.1f} ms"
        print(f"| {name} (n={len(queries)}, k={args.k}) | {times}{extra} |")
    tp = out["embedding_throughput"]
    chunk_label = f"embedding throughput, chunks (mean {tp['mean_chunk_chars']:.0f} chars)"
    print(f"| {chunk_label} | {tp['chunks_per_s']:.0f} /s |")
    print(f"| embedding throughput, short queries | {tp['queries_per_s']:.0f} /s |")
    print(f"| machine | {out['cpus']} CPUs, load average {out['load_avg_1m']:.2f} at start |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    print(f"(index kept in {home})", file=sys.stderr)


if __name__ == "__main__":
    main()
