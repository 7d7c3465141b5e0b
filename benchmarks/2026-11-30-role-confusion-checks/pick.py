"""The right answers whose copies are screened: a seeded sample of a stored run's rows.

usage: python pick.py RESULTS N OUT [--skip-suffix S]

Rows of RESULTS (an eval's `results.jsonl`, judged-rag's rows only) that are answerable,
right and not abstained, taken in turn from each kind (seed 59) until N are drawn; a row
whose id ends with S is left out. OUT gets id, question, answers and kind, one row a line,
the form `traces.py` reads.
"""

import json
import random
import sys
from collections import defaultdict

results, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
skip = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--skip-suffix" else None
rows = [json.loads(line) for line in open(results)]
ok = [
    r
    for r in rows
    if r["system"] == "judged"
    and r["answerable"]
    and r["correct"]
    and not r["abstained"]
    and not (skip and r["item_id"].endswith(skip))
]
by_kind = defaultdict(list)
for r in ok:
    by_kind[r["kind"] or r["category"]].append(r)
rnd = random.Random(59)
drawn = []
while len(drawn) < n and any(by_kind.values()):
    for kind in sorted(by_kind):
        if by_kind[kind] and len(drawn) < n:
            drawn.append(by_kind[kind].pop(rnd.randrange(len(by_kind[kind]))))
with open(out, "w") as f:
    for r in drawn:
        row = {"id": r["item_id"], "question": r["question"], "answers": r["answers"]}
        f.write(json.dumps({**row, "kind": r["kind"] or r["category"]}) + "\n")
