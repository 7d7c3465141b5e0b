"""Does an LLM yes/no 'is the document about what the question asks' separate answering chunks
from the neighbouring chunks retrieved for questions nothing answers? Probe, dev seed only."""
import json, sys, random
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.components.llm import read_letter
data, index, out = sys.argv[1:4]
cfg = Configuration(index_dir=index)
parts = Components()
judge = parts.judge(cfg).bind(logprobs=True, top_logprobs=10, max_tokens=1)
retriever = parts.knowledge_retriever(cfg)
chunks = json.load(open(f"{index}/chunks.json"))["kept"]
PROMPTS = {
 "same": ("You check a search result. Read the question and the document. Is the document about the same thing the question asks about (not only a related thing)? "
          "Reply with one letter: A if yes, B if no."),
 "states": ("You check a search result. Does the document state the answer to the question, about exactly what the question asks (not about something similar)? "
          "Reply with one letter: A if yes, B if no."),
}
rows = [json.loads(l) for l in open(data)]
pairs = []
per = {}
for r in rows:
    cat = r["category"]
    if r.get("answers") and cat not in ("two_hop", "role"):
        gold = [g.lower() for g in r["answers"]]
        hit = [c for c in chunks if c["title"] in r.get("evidence", []) and any(g in c["text"].lower() for g in gold)]
        if hit and per.get(cat, 0) < 5:
            per[cat] = per.get(cat, 0) + 1
            pairs.append(("pos", cat, r["id"], r["question"], hit[0]))
    elif cat == "uncovered":
        docs = retriever.invoke(r["question"])[:3]
        for d in docs:
            c = next((c for c in chunks if c["id"] == d.metadata.get("chunk_id")), None)
            if c: pairs.append(("neg", cat, r["id"], r["question"], c))
with open(out, "w") as f:
    for kind, cat, rid, q, c in pairs:
        doc = numbered([{"id": c["id"], "title": c["title"], "content": c["text"], "source": ""}])
        res = {"kind": kind, "cat": cat, "id": rid, "q": q, "title": c["title"]}
        for name, system in PROMPTS.items():
            msg = judge.invoke([SystemMessage(system), HumanMessage(f"{doc}Question: {q}")])
            ch = read_letter(msg, ["A", "B"])
            res[name] = ch.probabilities["A"] if ch and ch.probabilities else None
        f.write(json.dumps(res) + "\n"); f.flush()
        print(kind, cat, rid, res["same"], res["states"], "|", q[:60], "|", c["title"], flush=True)
