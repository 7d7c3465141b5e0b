"""The rows of traces.py runs before and after, side by side, with the checks that fired.

usage: python rows.py BEFORE.jsonl AFTER.jsonl [BEFORE.jsonl AFTER.jsonl ...]
right: a gold answer is in the answer (case aside); for a row nothing answers,
abstained or answered. Fired: assess/other_fact (documents relabelled, by round),
verify/other_fact and verify/citation_repair_failed (a repair refused), after.
"""

import json
import sys
from collections import Counter

FIRED = {("assess", "other_fact"), ("verify", "other_fact"), ("verify", "citation_repair_failed")}


def load(path):
    return {json.loads(line)["id"]: json.loads(line) for line in open(path)}


def grade(row):
    gold = row.get("gold") or []
    answer = (row.get("answer") or "").lower()
    if not gold:
        return "abstained" if row.get("abstained") else "answered"
    if any(g.lower() in answer for g in gold):
        return "right"
    return "abstained" if row.get("abstained") else "wrong"


totals = {"before": Counter(), "after": Counter()}
calls = Counter()
args = sys.argv[1:]
for before_path, after_path in zip(args[::2], args[1::2]):
    before, after = load(before_path), load(after_path)
    for key, row in after.items():
        print(f"{after_path.split('-')[0]} {key} | {row['question']} | gold {row['gold']}")
        for name, run in (("before", before[key]), ("after", row)):
            g = grade(run)
            totals[name][g] += 1
            calls[name] += run["cost"]["llm_calls"]
            fired = Counter(f"{e['node']}/{e['event']}" for e in run["trace"] if (e["node"], e["event"]) in FIRED)
            print(f"   {name:6} {g:9} {run['cost']['llm_calls']:3} calls | {run['answer'][:90]!r} | {dict(fired)}")
for name in ("before", "after"):
    print(f"{name}: {dict(totals[name])}, {calls[name]} calls in all")
