"""Judging the whole first retrieval instead of stopping after a batch of three, no model.

usage: python first_batch.py TRACES DATA CHUNKS_DIR

The stored traces judged all ten retrieved chunks in one round (judge_batch 0), so each
chunk's P and cosine are known. Labels are recomputed with today's default weight and
cut-off (`nodes.judge.common.judge_score`: Highly Relevant when 0.75 P + 0.25 cos >= 0.75)
and the chunk naming what the question names; "right" is
a copy holding a gold answer. Counted per answerable question: what the first three
chunks' Highly Relevant copies are, and what the other seven would add.
"""

import json
import sys

import screens

from judged_rag.configuration import Configuration
from judged_rag.core.quotes import names_subject
from judged_rag.nodes.judge.common import judge_score
from judged_rag_eval.metrics import contains_answer

traces, data, index = sys.argv[1:4]
items = {json.loads(row)["id"]: json.loads(row) for row in open(data)}
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
today = Configuration()
out = {
    "first3 only wrong, later right": [],
    "first3 right, later wrong too": [],
    "first3 none, later right": [],
    "first3 right only": [],
    "first3 wrong, later nothing right": [],
}
for line in open(traces):
    r = json.loads(line)
    gold = items[r["id"]].get("answers") or []
    order = []
    for d in screens.first_round_judged(r["trace"]):
        p = d["p_highly"] or 0
        cos = 2 * d["judge_score"] - p  # the traces' weight was 0.5
        ev = d.get("evidence") or ""
        c = chunks[d["doc_id"]]
        hi = (
            ev
            and judge_score(p, cos, today.judge_weight) >= today.judge_cutoff
            and names_subject(r["question"], c["title"], c["text"])
        )
        order.append((hi, bool(gold) and contains_answer(ev, gold)))
    if not gold:
        continue
    f3, rest = order[:3], order[3:]
    f3r = any(h and ok for h, ok in f3)
    f3w = any(h and not ok for h, ok in f3)
    lr = any(h and ok for h, ok in rest)
    lw = any(h and not ok for h, ok in rest)
    if f3w and not f3r and lr:
        out["first3 only wrong, later right"].append(r["id"])
    if f3w and not f3r and not lr:
        out["first3 wrong, later nothing right"].append(r["id"])
    if f3r and lw:
        out["first3 right, later wrong too"].append(r["id"])
    if f3r and not lw:
        out["first3 right only"].append(r["id"])
    if not (f3r or f3w) and lr:
        out["first3 none, later right"].append(r["id"])
for k, v in out.items():
    print(k, len(v), v)
