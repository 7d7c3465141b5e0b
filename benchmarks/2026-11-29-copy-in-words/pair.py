"""Score trace files (traces.py) as the e2e suite does and pair old against new.
usage: python pair.py DATA NEW.jsonl OLD.jsonl  (rows missing from OLD ran the same code path)"""
import json, sys
from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer, is_abstention
data, new, old = sys.argv[1:4]
items = {json.loads(l)["id"]: json.loads(l) for l in open(data)}
def score(r):
    it = items[r["id"]]; ans = str(r.get("answer") or ""); ab = is_abstention(ans, r.get("abstained"))
    if it.get("abstain"): return ab, ab
    d = choice_conclusion_correct(ans, it["answers"], it["question"])
    return (contains_answer(ans, it["answers"]) if d is None else d), ab
N = {json.loads(l)["id"]: json.loads(l) for l in open(new)}
O = {json.loads(l)["id"]: json.loads(l) for l in open(old)} if old != "-" else {}
tot = {"new": [0, 0], "old": [0, 0]}; calls = {"new": [], "old": []}
for i, r in N.items():
    o = O.get(i, r)
    sn, so = score(r), score(o)
    for k, s, rr in (("new", sn, r), ("old", so, o)):
        tot[k][0 if not items[i].get("abstain") else 1] += s[0]
        calls[k].append(rr["cost"]["llm_calls"])
    if i in O:
        print(i, "| old:", so, repr(o["answer"])[:80], o["cost"]["llm_calls"], "| new:", sn, repr(r["answer"])[:80], r["cost"]["llm_calls"])
n_ans = sum(1 for i in N if not items[i].get("abstain"))
print(f"rows {len(N)} (answerable {n_ans}, nothing-answers {len(N)-n_ans})")
for k in tot: print(k, "answerable right", tot[k][0], "nothing-answers abstained", tot[k][1], "calls mean %.1f" % (sum(calls[k])/len(calls[k])))
