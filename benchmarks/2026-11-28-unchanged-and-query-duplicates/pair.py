"""Pair two runs of the same rows: right, abstained and LLM calls, and the rows that differ.

usage: python pair.py BEFORE/results.jsonl AFTER/results.jsonl
"""

import json
import statistics
import sys


def load(path: str) -> dict[str, dict]:
    return {r["item_id"]: r for r in map(json.loads, open(path, encoding="utf-8"))}


before, after = load(sys.argv[1]), load(sys.argv[2])
both = sorted(set(before) & set(after))
for side, name in ((before, "before"), (after, "after")):
    rows = [side[i] for i in both]
    ans = [r for r in rows if r["answerable"]]
    none = [r for r in rows if not r["answerable"]]
    print(
        f"{name}: answerable right {sum(r['correct'] for r in ans)}/{len(ans)}"
        f" (abstained {sum(r['abstained'] for r in ans)}),"
        f" nothing answers abstained {sum(r['abstained'] for r in none)}/{len(none)},"
        f" calls mean {statistics.mean(r['cost']['llm_calls'] for r in rows):.1f}"
        f" median {statistics.median(r['cost']['llm_calls'] for r in rows)}"
    )
gained = [i for i in both if after[i]["correct"] and not before[i]["correct"]]
lost = [i for i in both if before[i]["correct"] and not after[i]["correct"]]
print(f"paired: gained {len(gained)}, lost {len(lost)}")
for i in both:
    a, b = before[i], after[i]
    if a["correct"] != b["correct"] or a["answer"] != b["answer"]:
        mark = "+" if i in gained else "-" if i in lost else " "
        print(f"{mark} {i}: {a['question']}  gold {a['answers'][:1]}")
        print(f"    before: {a['answer'][:110]!r} ({a['cost']['llm_calls']} calls)")
        print(f"    after:  {b['answer'][:110]!r} ({b['cost']['llm_calls']} calls)")
