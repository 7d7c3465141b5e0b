"""Old chunks against new, row by row: outcome, answer, calls.
usage: python pair.py S   (S holds old-part-NN/ and new-part-NN/ e2e folders)"""
import glob, json, statistics, sys

S = sys.argv[1]


def rows(side):
    out = {}
    for f in sorted(glob.glob(f"{S}/{side}-part-*/results.jsonl")):
        for line in open(f):
            r = json.loads(line)
            out[r["item_id"]] = r
    return out


def outcome(r):
    if r["answerable"]:
        return "right" if r["correct"] else ("abstained" if r["abstained"] else "wrong")
    return "abstained" if r["abstained"] else "answered"


old, new = rows("old"), rows("new")
both = [i for i in old if i in new]
good = {"right", "abstained"}
better = worse = 0
for i in both:
    a, b = old[i], new[i]
    oa, ob = outcome(a), outcome(b)
    ok_a = oa == "right" if a["answerable"] else oa == "abstained"
    ok_b = ob == "right" if b["answerable"] else ob == "abstained"
    better += ok_b and not ok_a
    worse += ok_a and not ok_b
    mark = "+" if ok_b and not ok_a else "-" if ok_a and not ok_b else " "
    if oa != ob or a["answer"] != b["answer"]:
        print(f"{mark} {i} [{a['category']}] {oa} -> {ob} | {a['question']}")
        print(f"      old: {a['answer'][:110]!r}")
        print(f"      new: {b['answer'][:110]!r}")
print()
n_ans = sum(1 for i in both if old[i]["answerable"])
for side, d in (("old", old), ("new", new)):
    right = sum(1 for i in both if d[i]["answerable"] and d[i]["correct"])
    abst = sum(1 for i in both if not d[i]["answerable"] and d[i]["abstained"])
    calls = [d[i]["cost"]["llm_calls"] for i in both]
    secs = [d[i]["cost"]["seconds"] for i in both]
    print(f"{side}: answerable right {right}/{n_ans}, nothing-answers abstained {abst}/{len(both) - n_ans}, "
          f"calls mean {statistics.mean(calls):.1f} median {statistics.median(calls)}, seconds mean {statistics.mean(secs):.0f}")
print(f"paired: new right where old wrong {better}, the reverse {worse} (of {len(both)} rows)")
