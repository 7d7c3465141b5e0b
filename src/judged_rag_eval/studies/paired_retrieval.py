"""Compare two retrieval-suite runs question by question: hits at k gained and lost.

    python -m judged_rag_eval.studies.paired_retrieval BEFORE_DIR AFTER_DIR [--k 1 5 10]

Each DIR is the `--out` folder of `judged-rag eval --suite retrieval`. A question counts
for a system when both runs have an error-free record of it; a hit at k is the evidence
page ranked k or better.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from judged_rag_eval.results import read_results


def ranks(out_dir: Path) -> dict[tuple[str, str], int | None]:
    """(system, question id) -> rank of the first evidence chunk (None: not retrieved)."""
    records = read_results(out_dir / "results.jsonl")
    return {
        (str(r["system"]), str(r["item_id"])): r.get("rank")
        for r in records.values()
        if r.get("suite") == "retrieval" and not r.get("error")
    }


def paired(
    before: dict[tuple[str, str], int | None], after: dict[tuple[str, str], int | None], k: int
) -> dict[str, tuple[int, int, int]]:
    """Per system: (questions compared, hits gained at k, hits lost at k)."""
    out: dict[str, tuple[int, int, int]] = {}
    for key in sorted(set(before) & set(after)):
        system = key[0]
        n, gained, lost = out.get(system, (0, 0, 0))
        was = before[key] is not None and before[key] <= k  # type: ignore[operator]
        now = after[key] is not None and after[key] <= k  # type: ignore[operator]
        out[system] = (n + 1, gained + (now and not was), lost + (was and not now))
    return out


def main() -> None:
    """Print the paired table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--k", type=int, nargs="+", default=[1, 5, 10])
    args = parser.parse_args()
    before, after = ranks(args.before), ranks(args.after)
    print("| system | k | questions | gained | lost |")
    print("|---|---|---|---|---|")
    for k in args.k:
        for system, (n, gained, lost) in paired(before, after, k).items():
            print(f"| {system} | {k} | {n} | +{gained} | −{lost} |")


if __name__ == "__main__":
    main()
