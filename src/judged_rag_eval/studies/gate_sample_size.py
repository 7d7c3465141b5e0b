"""How many pseudo-queries does the Context Awareness Gate need?

    judged-rag eval --suite gate --systems cag_gate,always_retrieve
        --model local:qwen2.5-coder-1.5b --pseudo-queries 200 --out RUN
    python -m judged_rag_eval.studies.gate_sample_size --run RUN
        --index $JUDGED_RAG_HOME/indexes/wiki-eval-kb-geography [--bootstrap]

(each command on one line).

The gate's cut-off is a percentile (`gate_percentile`, CAG's 5th) of the stored
chunk/pseudo-query similarities, so it is an estimate whose noise falls with the number
of pseudo-queries an index build pays for. This draws N of the stored similarities many
times (without replacement, or with `--bootstrap` as fresh samples of N would vary, N =
the stored count included), computes the cut-off as the graph does
(`nodes.gate.decide_route`) and scores the run's questions (their s_max and whether they
are in the knowledge base's domain). No model is called.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import NamedTuple

import numpy as np

from judged_rag_eval.results import read_results


class SizeResult(NamedTuple):
    """Routing accuracy and cut-off over the draws of one sample size."""

    size: int
    accuracy_mean: float
    accuracy_p5: float
    accuracy_p95: float
    cutoff_mean: float
    cutoff_sd: float


def questions(run: Path) -> tuple[np.ndarray, np.ndarray]:
    """Each gated question's s_max and whether it is in the domain, from a gate-suite run."""
    rows = [
        r
        for r in read_results(run / "results.jsonl").values()
        if r.get("system") == "cag_gate" and not r.get("error") and r.get("s_max") is not None
    ]
    return (
        np.asarray([float(r["s_max"]) for r in rows]),
        np.asarray([bool(r["in_domain"]) for r in rows]),
    )


def sample_sizes(
    similarities: list[float],
    s_max: np.ndarray,
    in_domain: np.ndarray,
    sizes: list[int],
    *,
    draws: int = 1000,
    percentile: float = 5.0,
    bootstrap: bool = False,
    seed: int = 0,
) -> list[SizeResult]:
    """The gate's accuracy when its cut-off comes from N similarities, for each N."""
    rng = random.Random(seed)
    out = []
    for n in sizes:
        whole = n >= len(similarities) and not bootstrap
        if n > len(similarities) and not bootstrap:
            continue
        accuracy, cutoffs = [], []
        for _ in range(1 if whole else draws):
            sample = rng.choices(similarities, k=n) if bootstrap else rng.sample(similarities, n)
            cutoff = float(np.percentile(sample, percentile))
            accuracy.append(float(((s_max >= cutoff) == in_domain).mean()))
            cutoffs.append(cutoff)
        a, c = np.asarray(accuracy), np.asarray(cutoffs)
        out.append(
            SizeResult(
                n,
                float(a.mean()),
                float(np.percentile(a, 5)),
                float(np.percentile(a, 95)),
                float(c.mean()),
                float(c.std()),
            )
        )
    return out


def main() -> None:
    """Print one line per sample size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--run", type=Path, required=True, help="a gate-suite run directory")
    parser.add_argument("--index", type=Path, required=True, help="its knowledge base's index")
    parser.add_argument("--sizes", default="20,40,60,100,150,200")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--percentile", type=float, default=5.0)
    parser.add_argument("--bootstrap", action="store_true", help="draw with replacement")
    args = parser.parse_args()
    s_max, in_domain = questions(args.run)
    gate = json.loads((args.index / "gate.json").read_text(encoding="utf-8"))
    similarities = [float(e["similarity"]) for e in gate["entries"]]
    print(
        f"{len(s_max)} questions ({int(in_domain.sum())} in domain), "
        f"{len(similarities)} stored similarities"
    )
    sizes = [int(x) for x in args.sizes.split(",")]
    for r in sample_sizes(
        similarities,
        s_max,
        in_domain,
        sizes,
        draws=args.draws,
        percentile=args.percentile,
        bootstrap=args.bootstrap,
    ):
        print(
            f"N={r.size:4d}  accuracy mean {r.accuracy_mean:.3f}  5-95% "
            f"[{r.accuracy_p5:.3f}, {r.accuracy_p95:.3f}]  cut-off mean {r.cutoff_mean:.3f} "
            f"sd {r.cutoff_sd:.3f}"
        )


if __name__ == "__main__":
    main()
