"""Rank of the first chunk holding a gold answer (title or text) in the default retrieval's
top 10 (RRF, dense weight 0.5), by the question's category.

    python evidence_rank.py DATA.jsonl INDEX
"""
import collections, json, sys
from pathlib import Path
from judged_rag.indexing.retriever import open_index

rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("answers")]
retriever = open_index(Path(sys.argv[2]), k=10, fusion="rrf", dense_weight=0.5)
total = collections.Counter()
by_category = collections.defaultdict(collections.Counter)
for row in rows:
    docs = retriever.invoke(row["question"])
    rank = next((n for n, d in enumerate(docs, 1) if any(a.lower() in (d.metadata.get("title", "") + " " + d.page_content).lower() for a in row["answers"])), None)
    key = "none" if rank is None else "1" if rank == 1 else "2" if rank == 2 else "3" if rank == 3 else "4" if rank == 4 else "5-10"
    total[key] += 1
    by_category[row.get("category", "-")][key] += 1
print(len(rows), dict(sorted(total.items())))
for category, counts in sorted(by_category.items()):
    print(" ", category, dict(sorted(counts.items())))
