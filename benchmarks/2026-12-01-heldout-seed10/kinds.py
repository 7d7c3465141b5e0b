"""Per kind, over several held-out seeds: plain RAG's and judged-rag's right rows on each
seed and summed, and the seeds where judged-rag is behind.

usage: python kinds.py [--rescore] LABEL=RESULTS.jsonl ...

A row counts when both systems finished it; right is "correct" on an answerable row and
"abstained" on one nothing answers: the rows' own verdicts, or with --rescore today's
scorer's on answerable open rows (run from the project's environment), as
`../2026-11-27-handbook-heldout/hb_table.py --rescore` reads them.
"""
import collections
import json
import sys

rescore = "--rescore" in sys.argv
if rescore:
    from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer


def correct(r):
    if not rescore or r["must_abstain"] or r.get("options"):
        return r["correct"]
    decided = choice_conclusion_correct(r["answer"], r["answers"], r["question"])
    return contains_answer(r["answer"], r["answers"]) if decided is None else decided


right = lambda r: r["abstained"] if r["must_abstain"] else correct(r)
seeds = []
# kind -> seed -> [plain right, judged right, n]
table = collections.defaultdict(dict)
for spec in (a for a in sys.argv[1:] if a != "--rescore"):
    label, _, path = spec.rpartition("=")
    label = label or path
    seeds.append(label)
    rows = collections.defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        if not r.get("error"):
            rows[r["item_id"]][r["system"]] = r
    for pair in rows.values():
        if {"plain_rag", "judged"} <= set(pair):
            p, j = pair["plain_rag"], pair["judged"]
            kind = (p["must_abstain"], p["category"])
            cell = table[kind].setdefault(label, [0, 0, 0])
            cell[0] += right(p)
            cell[1] += right(j)
            cell[2] += 1

print("| kind | " + " | ".join(seeds) + " | all | seeds behind |")
print("|---|" + "---|" * (len(seeds) + 2))
for (must, kind), cells in sorted(table.items()):
    parts, total, behind = [], [0, 0, 0], 0
    for s in seeds:
        c = cells.get(s)
        if not c:
            parts.append("–")
            continue
        parts.append(f"{c[0]} / {c[1]}")
        total = [a + b for a, b in zip(total, c)]
        behind += c[1] < c[0]
    name = f"{kind}{' (nothing answers)' if must else ''}"
    print(f"| {name} | " + " | ".join(parts) + f" | {total[0]} / {total[1]} of {total[2]} | {behind} |")
print("\ncells: plain RAG right / judged-rag right")
