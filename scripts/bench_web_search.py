"""Benchmark the offline Wikipedia web-search backend; prints a Markdown table.

Measures the corpus, the BM25 index build (cold, into a fresh cache directory), loading
the index from that cache (in this process and in a fresh one), and query latency p50/p95
over sampled queries (article descriptions, e.g. "1968 film by Stanley Kubrick"), with the
share of queries whose own article comes back first / in the top k.

    PYTHONPATH=src python scripts/bench_web_search.py [--queries 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judged_rag.components.web_search import (
    OfflineWikipediaIndex,
    OfflineWikipediaRetriever,
    load_wikipedia_articles,
    wikipedia_corpus_path,
)

logger = logging.getLogger("bench_web_search")

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from judged_rag.components.web_search import OfflineWikipediaIndex
t1 = time.perf_counter()
index = OfflineWikipediaIndex.load(Path(sys.argv[1]))
t2 = time.perf_counter()
index.search("Apollo 11 Moon landing", k=5)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "first_query": t3 - t2,
                  "from_cache": index.from_cache}))
"""


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _child_load(root: Path) -> dict[str, float]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    extra = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, extra] if extra else [src])}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100, help="queries to time")
    parser.add_argument("--repeats", type=int, default=3, help="cold builds / cache loads")
    parser.add_argument("--k", type=int, default=5, help="results per query")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    corpus = wikipedia_corpus_path()
    articles = load_wikipedia_articles()
    rows: list[tuple[str, str]] = [
        ("corpus file", f"{corpus.name}, {corpus.stat().st_size / 1e6:.2f} MB"),
        ("articles", f"{len(articles):,}"),
        ("indexed text", f"{sum(len(a.content) for a in articles) / 1e6:.2f} M characters"),
        ("CPU cores", str(os.cpu_count())),
    ]

    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        builds, loads = [], []
        root = Path(tmp) / "r0"
        for i in range(args.repeats):
            root = Path(tmp) / f"r{i}"
            start = time.perf_counter()
            index = OfflineWikipediaIndex.load(root)
            builds.append(time.perf_counter() - start)
            assert not index.from_cache
        for _ in range(args.repeats):
            start = time.perf_counter()
            index = OfflineWikipediaIndex.load(root)
            loads.append(time.perf_counter() - start)
            assert index.from_cache
        child = _child_load(root)
        disk = sum(p.stat().st_size for p in index.cache_dir.iterdir())
        rows += [
            ("vocabulary", f"{len(index._vocab):,} terms"),
            (
                "index on disk",
                f"{disk / 1e6:.2f} MB ({len(list(index.cache_dir.iterdir()))} files)",
            ),
            (
                f"index build, cold (median of {args.repeats})",
                f"{statistics.median(builds):.2f} s (min {min(builds):.2f}, max {max(builds):.2f})",
            ),
            (
                f"load from cache, in process (median of {args.repeats})",
                f"{_ms(statistics.median(loads))} (incl. reading, hashing, parsing the corpus)",
            ),
            (
                "load from cache, fresh process",
                f"{_ms(child['load'])} load + {_ms(child['first_query'])} first query "
                f"(module import {child['import']:.2f} s); from_cache={child['from_cache']}",
            ),
        ]

        rng = random.Random(args.seed)
        sample = rng.sample([a for a in articles if a.description], args.queries)
        retriever = OfflineWikipediaRetriever(k=args.k, cache_root=root)
        retriever.invoke("warm up")
        direct, wrapped, hit1, hitk = [], [], 0, 0
        for article in sample:
            start = time.perf_counter()
            docs = index.search(article.description, k=args.k)
            direct.append(time.perf_counter() - start)
            start = time.perf_counter()
            retriever.invoke(article.description)
            wrapped.append(time.perf_counter() - start)
            titles = [d.metadata["title"] for d in docs]
            hit1 += titles[:1] == [article.title]
            hitk += article.title in titles
        n = len(sample)
        rows += [
            (
                f"query latency, index.search (n={n}, k={args.k})",
                f"p50 {_ms(_percentile(direct, 0.5))}, p95 {_ms(_percentile(direct, 0.95))}",
            ),
            (
                f"query latency, retriever.invoke (n={n}, k={args.k})",
                f"p50 {_ms(_percentile(wrapped, 0.5))}, p95 {_ms(_percentile(wrapped, 0.95))}",
            ),
            (
                "description → own article",
                f"top-1 {hit1}/{n}, top-{args.k} {hitk}/{n} (queries = article descriptions)",
            ),
        ]

    print("| measure | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
