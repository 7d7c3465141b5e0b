"""For each dated question: the rank of the first chunk holding the current value and of
the first holding an outdated one (`must_not_contain`), top 10 of the default retrieval;
then, per batch size B, how often an outdated value is in the first batch and the current
one is not (the judge may stop on the outdated page).

    python dated_rank.py orgs-dated.jsonl ORGS_INDEX
"""
import json, sys
from pathlib import Path
from judged_rag.indexing.retriever import open_index

rows = [json.loads(line) for line in open(sys.argv[1])]
retriever = open_index(Path(sys.argv[2]), k=10, fusion="rrf", dense_weight=0.5)


def first(docs, values):
    return next((n for n, d in enumerate(docs, 1) if any(v.lower() in d.page_content.lower() for v in values)), 99)


ranks = []
for row in rows:
    docs = retriever.invoke(row["question"])
    ranks.append((first(docs, row["answers"]), first(docs, row.get("must_not_contain", []))))
for b in (1, 2, 3, 4):
    risky = sum(1 for new, old in ranks if old <= b < new)
    both = sum(1 for new, old in ranks if new <= b and old <= b)
    print(f"B={b}: outdated in the first batch, current not: {risky}; both in it: {both}")
