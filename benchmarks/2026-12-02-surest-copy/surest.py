"""Offline, from traces (`../2026-11-28-unchanged-and-query-duplicates/traces.py`): for
each traced row with a conflict, whether it would stand if the copy the judge was surest
of (the highest `p_highly` of the knowledge's Highly Relevant copies) must be one of its
values (KEEP) or not (DROP); and whether the traced answer holds a gold answer.

usage: python surest.py TRACES.jsonl   (from the project's environment: the scorer)

Approximation of `core.conflicts._surest_among`: it ranks every Highly Relevant copy of
the knowledge (stating a number, when the disagreeing values all do), where the code
ranks only the copies left after the measure filter and leaves out judgments made for a
hop's first question.
"""
import json
import sys

from judged_rag_eval.metrics import contains_answer

for line in open(sys.argv[1]):
    t = json.loads(line)
    judged, chosen, conflict = {}, None, None
    for e in t["trace"]:
        if e["node"] == "judge" and e["event"] == "judged":
            judged[e["detail"]["doc_id"]] = e["detail"]
        if e["node"] == "combine" and e["event"] == "combined":
            chosen, conflict = e["detail"]["chosen"], None
        if e["node"] == "combine" and e["event"] == "conflict":
            conflict = e["detail"]
    ok = bool(t["gold"]) and contains_answer(t["answer"] or "", t["gold"])
    if not conflict:
        print(f"{t['id']:24s} no conflict   right={ok}")
        continue
    highly = [
        (n, judged[d])
        for n, d in enumerate(chosen, 1)
        if d in judged and judged[d]["label"] == "highly_relevant" and judged[d]["evidence"].strip()
    ]
    inside_values = [v["value"] for v in conflict["values"]]
    if all(any(c.isdigit() for c in v) for v in inside_values):
        # Disagreeing numbers: only copies stating a number rank.
        highly = [(n, j) for n, j in highly if any(c.isdigit() for c in j["evidence"])]
    top = max(j.get("p_highly") or 0 for _, j in highly)
    best = {n for n, j in highly if (j.get("p_highly") or 0) == top}
    inside = {n for v in conflict["values"] for n in v["documents"]}
    vals = [(v["value"], v["documents"]) for v in conflict["values"]]
    outside = [(n, j["evidence"], j.get("p_highly")) for n, j in highly if n in best and n not in inside]
    print(
        f"{t['id']:24s} {conflict['kind']:8s} {'KEEP' if best & inside else 'DROP'} right={ok} "
        f"gold={t['gold']} values={vals} surest_outside={outside}"
    )
