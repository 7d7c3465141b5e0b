"""Two runs of judged-rag on the same rows, side by side: outcome, reason and calls.

usage: python table.py NEW/results.jsonl OLD/results.jsonl
"""
import json
import statistics
import sys


def load(path):
    rows = {}
    for line in open(path):
        r = json.loads(line)
        rows[r["item_id"]] = r
    return rows


def outcome(r):
    if r["answerable"]:
        return "right" if r["correct"] else ("abstained" if r["abstained"] else "wrong")
    return "abstained" if r["abstained"] else "answered"


new, old = load(sys.argv[1]), load(sys.argv[2])
ids = [i for i in new if i in old]
print(f"{'row':<22} {'new':<10} {'old':<10} calls new/old  reason new | old  answer new")
for i in ids:
    a, b = new[i], old[i]
    print(f"{i:<22} {outcome(a):<10} {outcome(b):<10} {a['cost']['llm_calls']:>3} / "
          f"{b['cost']['llm_calls']:<3}  {a['reason']} | {b['reason']}  {a['answer'][:70]!r}")
for name, rows in (("new", new), ("old", old)):
    ans = [rows[i] for i in ids if rows[i]["answerable"]]
    none = [rows[i] for i in ids if not rows[i]["answerable"]]
    calls = [rows[i]["cost"]["llm_calls"] for i in ids]
    secs = [rows[i]["cost"]["seconds"] for i in ids]
    print(f"{name}: answerable right {sum(r['correct'] for r in ans)}/{len(ans)}, "
          f"abstained {sum(r['abstained'] for r in ans)}; nothing answers abstained "
          f"{sum(r['abstained'] for r in none)}/{len(none)}; calls mean "
          f"{statistics.mean(calls):.1f} median {statistics.median(calls)}; "
          f"seconds mean {statistics.mean(secs):.1f}")
both = [i for i in ids if new[i]["answerable"]]
gain = sum(new[i]["correct"] and not old[i]["correct"] for i in both)
loss = sum(old[i]["correct"] and not new[i]["correct"] for i in both)
print(f"answerable paired: new right where old wrong {gain}, the reverse {loss}")
