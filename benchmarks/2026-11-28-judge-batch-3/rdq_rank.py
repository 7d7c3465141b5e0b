"""For the 150 answerable RDQ questions of a run: the rank, in the default retrieval's top
10 (RRF, dense weight 0.5), of the first chunk from the question's evidence page, and of
the first from that page holding a gold answer.

    python rdq_rank.py RUN/results.jsonl eval-data-rdq.jsonl RDQ_INDEX
"""
import collections, json, sys
from pathlib import Path
from judged_rag.indexing.retriever import open_index

ids = [json.loads(line)["item_id"] for line in open(sys.argv[1])]
rows = {r["id"]: r for r in map(json.loads, open(sys.argv[2]))}
retriever = open_index(Path(sys.argv[3]), k=10, fusion="rrf", dense_weight=0.5)
page, answer = collections.Counter(), collections.Counter()
for item in ids:
    row = rows[item]
    docs = retriever.invoke(row["question"])
    ours = [n for n, d in enumerate(docs, 1) if d.metadata.get("title") in row["evidence"]]
    holding = [n for n in ours if any(a.lower() in docs[n - 1].page_content.lower() for a in row["answers"])]
    page[ours[0] if ours else None] += 1
    answer[holding[0] if holding else None] += 1
print("evidence page's first rank", dict(page))
print("first rank of its chunk holding the answer", dict(answer))
