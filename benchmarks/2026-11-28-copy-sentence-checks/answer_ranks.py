"""Where the first retrieval ranks the chunk that answers, by kind of question (no model).

usage: python answer_ranks.py DATA INDEX RETRIEVED.jsonl

RETRIEVED holds each question's first 10 chunk ids as the retriever returns them
(`../2026-11-28-unchanged-and-query-duplicates/retr.py`). The answering chunk is one of
the question's evidence pages that holds a gold answer (the scorer's `contains_answer`);
its best rank is counted as in the first three (the judge's first batch), 4th to 10th, or
not in the ten.
"""

import json
import sys
from collections import Counter, defaultdict

from judged_rag_eval.metrics import contains_answer, normalize_title

data, index, retrieved = sys.argv[1:4]
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
first = {json.loads(row)["id"]: json.loads(row)["ids"] for row in open(retrieved)}
by_kind = defaultdict(Counter)
for row in open(data):
    r = json.loads(row)
    gold = r.get("answers") or []
    if not gold:
        continue
    titles = {normalize_title(t) for t in r.get("evidence") or []}
    ranks = [
        i
        for i, c in enumerate(first.get(r["id"], []))
        if c in chunks
        and normalize_title(chunks[c]["title"]) in titles
        and contains_answer(chunks[c]["text"], gold)
    ]
    best = ranks[0] if ranks else None
    where = "not in 10" if best is None else ("first 3" if best < 3 else "4-10")
    by_kind[r["category"]][where] += 1
for kind, counts in sorted(by_kind.items()):
    print(f"{kind:16s}", dict(counts))
