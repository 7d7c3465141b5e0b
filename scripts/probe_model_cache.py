"""Memory under hostile settings: many distinct per-run values must not grow the caches.

A remote client may send any `temperature` (a client setting) on every run; each value
builds another chat model. This resolves N runs with N distinct temperatures through the
served graph's settings lock and `Components`, the way the servers do, and prints how
many models stayed cached and what the process's memory did. No model is called (the
model is an OpenAI-compatible endpoint on a closed loopback port), so it runs anywhere.

    python scripts/probe_model_cache.py --runs 2000
"""

from __future__ import annotations

import argparse
import os
import time

import psutil

from judged_rag import Components
from judged_rag.configuration import RunSettings


def main() -> None:
    """Resolve the runs and print the caches' sizes and the RSS before and after."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    operator = {"model": "openai:gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1"}
    settings = RunSettings(base=operator, remote=True)
    parts = Components()
    process = psutil.Process()
    before = process.memory_info().rss
    started = time.perf_counter()
    for i in range(args.runs):
        cfg = settings.resolve({"configurable": {"temperature": round(2.0 * i / args.runs, 4)}})
        parts.generator(cfg)
        parts.judge(cfg)
    after = process.memory_info().rss
    print(
        f"{args.runs} runs with distinct temperatures: {len(parts._cache)} models cached, "
        f"{len(settings._cache)} resolved settings cached, RSS {before / 2**20:.0f} -> "
        f"{after / 2**20:.0f} MiB, {time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
