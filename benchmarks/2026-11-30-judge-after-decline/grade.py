"""Grade a traces file as the eval does; say for each row whether the decline was reopened.
usage: python grade.py DATA TRACES"""
import json, sys
from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer, is_abstention
data = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
tally = {}
for l in open(sys.argv[2]):
    r = json.loads(l)
    item = data[r["id"]]
    ans = str(r.get("answer") or "")
    abst = is_abstention(ans, r.get("abstained"))
    golds = item.get("answers")
    if not golds:
        ok = abst
    else:
        d = choice_conclusion_correct(ans, golds, item["question"])
        ok = contains_answer(ans, golds) if d is None else d
    ev = [e for e in r["trace"] if e["event"] == "reopened"]
    declined = [e for e in r["trace"] if e["event"] == "declined"]
    calls = r["cost"]["llm_calls"]
    key = ("answerable" if golds else "nothing", "reopened" if ev else ("declined-only" if declined else "no-decline"), "right" if ok else ("abstained" if abst else "wrong"))
    tally[key] = tally.get(key, 0) + 1
    print(f'{r["id"]:28} {key[0]:10} {key[1]:13} {key[2]:9} calls={calls:3} s={r["seconds"]:.0f} | {ans[:90]}')
for k, v in sorted(tally.items()):
    print(v, *k)
