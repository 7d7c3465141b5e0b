"""A screen's traced rows against earlier rows of the same questions, graded by the eval's
own `answer_record` (right, abstained or wrong; a nothing-answers row is right when
abstained). BEFORE is a stored whole run's results (its judged-rag rows, graded when
they ran) or another screen's traces.
usage: python grade.py DATA BEFORE TRACES"""
import collections
import json
import sys
from pathlib import Path

from judged_rag_eval.answers import answer_record
from judged_rag_eval.items import load_user_items

items = {item.id: item for item in load_user_items(Path(sys.argv[1]))}


def graded(row):
    """A stored result row as it is; a trace graded as the eval grades a run's output."""
    return row if "item_id" in row else answer_record(items[row["id"]], row, 0.0)


def verdict(record):
    if record["correct"]:
        return "right"
    return "abstained" if record["abstained"] and not record["must_abstain"] else "wrong"


before = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("system", "judged") == "judged":
        before[r.get("item_id", r.get("id"))] = graded(r)
tally = collections.Counter(); calls = collections.Counter()
for line in open(sys.argv[3]):
    r = json.loads(line)
    was, now = before[r["id"]], graded(r)
    kind = "answerable" if items[r["id"]].answerable else "nothing"
    tally[(kind, verdict(was), verdict(now))] += 1
    calls[(kind, "before")] += was["cost"]["llm_calls"]; calls[(kind, "now")] += now["cost"]["llm_calls"]
    print(f'{r["id"]:28} {kind:10} {verdict(was):9} -> {verdict(now):9} {was["cost"]["llm_calls"]:3} -> {now["cost"]["llm_calls"]:3} calls | {str(r.get("answer"))[:90]}')
for k, v in sorted(tally.items()):
    print(v, *k)
print(dict(calls))
