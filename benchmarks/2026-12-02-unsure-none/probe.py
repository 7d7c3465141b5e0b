"""The extracting judge alone on a data set's retrieved chunks: its reply and P(NONE).

For every row: the retriever's documents for the question as written (the first round's);
for a row nothing answers, the first BATCH of them judged (what the default always judges
first); for an answerable row, every retrieved chunk holding a gold answer. One call each, the
prompt and the document text the judge node uses (`extract_messages`, `titled`).
usage: python probe.py DATA INDEX OUT [BATCH]   (PYTHONPATH picks the code; resumable)
"""
import json
import sys
import time
from pathlib import Path

from judged_rag.cli import ask_components
from judged_rag.components.llm import LOGPROB_ALTERNATIVES, read_extraction
from judged_rag.configuration import Configuration
from judged_rag.core.documents import titled, to_doc
from judged_rag.core.retrieval import search
from judged_rag.nodes.judge.extract import extract_messages
from judged_rag.prompts import judge as prompt

data, index, out = sys.argv[1:4]
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 3
cfg = Configuration(index_dir=index)
parts = ask_components(cfg)
judge = parts.judge(cfg).bind(
    logprobs=True, top_logprobs=LOGPROB_ALTERNATIVES, max_tokens=prompt.EXTRACT_MAX_TOKENS
)
rows = [json.loads(line) for line in open(data)]
done = {json.loads(line)["id"] for line in open(out)} if Path(out).exists() else set()
with open(out, "a") as f:
    for row in rows:
        if row["id"] in done:
            continue
        question, gold = row["question"], [g.casefold() for g in row.get("answers") or []]
        found = search(parts.retriever, question, k=cfg.top_k, fusion=cfg.fusion,
                       dense_weight=cfg.dense_weight)
        docs = [to_doc(d, origin="kb", iteration=0, reliability=cfg.kb_reliability) for d in found]
        judged = []
        for rank, doc in enumerate(docs):
            holds = any(g in doc["content"].casefold() for g in gold)
            if not (holds if gold else rank < batch):
                continue
            t = time.monotonic()
            reply = judge.invoke(extract_messages(question, titled(doc)))
            read = read_extraction(reply)
            judged.append({
                "rank": rank,
                "doc_id": doc["id"],
                "title": doc["title"],
                "holds_gold": holds,
                "none": None if read is None else read.none,
                "copy": None if read is None else read.text,
                "p_none": None if read is None else read.p_none,
                "seconds": round(time.monotonic() - t, 2),
            })
        f.write(json.dumps({
            "id": row["id"],
            "category": row.get("category"),
            "answerable": bool(gold),
            "question": question,
            "gold": row.get("answers"),
            "retrieved": len(docs),
            "judged": judged,
        }) + "\n")
        f.flush()
        seen = [(j["rank"], j["holds_gold"], j["none"], j["p_none"]) for j in judged]
        print(row["id"], len(docs), seen, flush=True)
