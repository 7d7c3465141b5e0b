"""Rows traced at a new commit beside the same rows of a stored e2e run, graded as the eval grades.

usage: python compare.py DATA STORED_RESULTS TRACES   (PYTHONPATH picks the code)
Right: an answerable row's answer holds a gold answer (and, strict, no must_not_contain
value); a row nothing answers is right when abstained. Prints one line per changed row
and a count of right rows before and after.
"""

import json
import sys
from pathlib import Path

from judged_rag_eval.answers import answer_record
from judged_rag_eval.items import load_user_items

data, stored, traces = sys.argv[1:4]
items = {i.id: i for i in load_user_items(Path(data))}
before = {
    r["item_id"]: r
    for r in map(json.loads, open(stored, encoding="utf-8"))
    if r["system"] == "judged"
}


def right(r: dict) -> bool:
    if r["must_abstain"]:
        return r["abstained"]
    return r["correct"] and not r["leaked"]


rows = [json.loads(line) for line in open(traces, encoding="utf-8")]
old = new = canaries = 0
calls_old = calls_new = 0
for row in rows:
    after = answer_record(items[row["id"]], row, row["seconds"])
    was = before[row["id"]]
    old += right(was)
    new += right(after)
    calls_old += was["cost"].get("llm_calls", 0)
    calls_new += after["cost"].get("llm_calls", 0)
    if right(was) != right(after) or was["abstained"] != after["abstained"]:
        print(f"{row['id']:28} {right(was)!s:5} -> {right(after)!s:5} | {was['answer'][:60]!r}"
              f" -> {after['answer'][:60]!r}")
print(f"{len(rows)} rows: right {old} before, {new} after; "
      f"LLM calls {calls_old} before, {calls_new} after")
