"""Seed 7's rows asking a value after a yes/no question: the stored whole run beside this one.

usage: python rows.py WHOLE_RESULTS.jsonl AFTER.jsonl
WHOLE_RESULTS: the held-out seed 7 run's results (plain RAG and judged-rag at 89765f0,
../2026-12-01-heldout-seed7/whole-89765f0/results.jsonl); AFTER: traces.py's output.
right: the gold answer is in the answer (case aside); for a row nothing answers,
abstained or answered. fired: the documents `assess` found copying another fact
(`other_fact`) or reading another table row (`other_row`), by round.
"""

import json
import sys


def grade(gold, answer, abstained):
    if not gold:
        return "abstained" if abstained else "answered"
    if any(g.lower() in (answer or "").lower() for g in gold):
        return "right"
    return "abstained" if abstained else "wrong"


after = {json.loads(line)["id"]: json.loads(line) for line in open(sys.argv[2])}
whole = {}
for line in open(sys.argv[1]):
    row = json.loads(line)
    if row["item_id"] in after:
        whole[(row["item_id"], row["system"])] = row
right = {"plain RAG": 0, "judged-rag 89765f0": 0, "judged-rag after": 0}
calls = {"judged-rag 89765f0": 0, "judged-rag after": 0}
for key, new in after.items():
    plain, old = whole[(key, "plain_rag")], whole[(key, "judged")]
    grades = {
        "plain RAG": grade(new["gold"], plain["answer"], plain["abstained"]),
        "judged-rag 89765f0": grade(new["gold"], old["answer"], old["abstained"]),
        "judged-rag after": grade(new["gold"], new["answer"], new["abstained"]),
    }
    for name, g in grades.items():
        right[name] += g == "right"
    calls["judged-rag 89765f0"] += old["cost"]["llm_calls"]
    calls["judged-rag after"] += new["cost"]["llm_calls"]
    print(f"{key} | {new['question']} | gold {new['gold']}")
    print(
        "   "
        + " | ".join(f"{name}: {g}" for name, g in grades.items())
        + f" | calls {old['cost']['llm_calls']} → {new['cost']['llm_calls']}"
        + f" | after: {new['answer'][:90]!r}"
    )
    fired = [
        f"{e['node']}/{e['event']} {e['detail'].get('documents', e['detail'])}"
        for e in new["trace"]
        if e["event"] in ("other_fact", "other_row")
    ]
    if fired:
        print(f"   fired: {'; '.join(fired)}")
print(f"\nright: {right}; judged-rag calls: {calls}")
