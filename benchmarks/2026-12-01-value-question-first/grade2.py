"""Two traced runs of the same rows, graded as the eval grades them.
usage: python grade2.py DATA BEFORE_TRACES AFTER_TRACES"""
import json, sys, collections
from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer, is_abstention
data = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
before = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[2])}
def verdict(ans, abstained, item):
    abst = is_abstention(ans, abstained)
    golds = item.get("answers")
    if not golds:
        return "right" if abst else "wrong"
    d = choice_conclusion_correct(ans, golds, item["question"])
    ok = contains_answer(ans, golds) if d is None else d
    return "right" if ok else ("abstained" if abst else "wrong")
tally = collections.Counter(); calls = collections.Counter()
for l in open(sys.argv[3]):
    r = json.loads(l)
    if r["id"] not in before: continue
    item, b = data[r["id"]], before[r["id"]]
    kind = "answerable" if item.get("answers") else "nothing"
    was = verdict(str(b.get("answer") or ""), b.get("abstained"), item)
    now = verdict(str(r.get("answer") or ""), r.get("abstained"), item)
    tally[(kind, was, now)] += 1
    calls[(kind, "before")] += b["cost"]["llm_calls"]; calls[(kind, "now")] += r["cost"]["llm_calls"]
    print(f'{r["id"]:24} {kind:10} {was:9} -> {now:9} {b["cost"]["llm_calls"]:3} -> {r["cost"]["llm_calls"]:3} calls | {str(r.get("answer"))[:100]}')
for k, v in sorted(tally.items()):
    print(v, *k)
print(dict(calls))
