"""A screen's traced rows against earlier rows of the same questions, graded as the eval
grades them (right, abstained or wrong; a nothing-answers row is right when abstained).
BEFORE is a stored whole run's results (its judged-rag rows) or another screen's traces.
usage: python grade.py DATA BEFORE TRACES"""
import json, sys, collections
from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer, is_abstention
data = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
stored = {}
for l in open(sys.argv[2]):
    r = json.loads(l)
    if "item_id" not in r:  # a screen's trace
        stored[r["id"]] = {**r, "answer": r.get("answer") or ""}
    elif r["system"] == "judged":
        stored[r["item_id"]] = r
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
    item, before = data[r["id"]], stored[r["id"]]
    kind = "answerable" if item.get("answers") else "nothing"
    was = verdict(str(before["answer"]), before["abstained"], item)
    now = verdict(str(r.get("answer") or ""), r.get("abstained"), item)
    tally[(kind, was, now)] += 1
    calls[(kind, "before")] += before["cost"]["llm_calls"]; calls[(kind, "now")] += r["cost"]["llm_calls"]
    print(f'{r["id"]:28} {kind:10} {was:9} -> {now:9} {before["cost"]["llm_calls"]:3} -> {r["cost"]["llm_calls"]:3} calls | {str(r.get("answer"))[:90]}')
for k, v in sorted(tally.items()):
    print(v, *k)
print(dict(calls))
