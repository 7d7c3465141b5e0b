"""For traced rows: generate with the original question vs its wh-form on (a) the knowledge the run chose,
(b) that knowledge with every chunk holding a gold answer removed (refilled from retrieved non-gold chunks)."""
import json, re, sys
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.prompts import generate as prompt
index, traces, rewrites = sys.argv[1:4]
WH = dict(l.rstrip("\n").split(" => ", 1) for l in open(rewrites) if " => " in l)
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
model = Components().generator(Configuration(index_dir=index))
def gen(q, ids):
    docs = [{"id": i, "title": chunks[i]["title"], "content": chunks[i]["text"], "source": ""} for i in ids]
    out = model.invoke([SystemMessage(prompt.OPEN_WITH_KNOWLEDGE), HumanMessage(prompt.USER.format(documents=numbered(docs), question=q, options=""))])
    return out.content.strip()[:140].replace("\n", " ")
for l in open(traces):
    r = json.loads(l)
    q = r["question"]; wh = WH.get(q)
    if not wh: continue
    chosen = [e["detail"]["chosen"] for e in r["trace"] if e["event"] == "combined"]
    retrieved = [i for e in r["trace"] if e["event"] == "retrieved" for i in e["detail"]["ids"]]
    gold = [g.lower() for g in (r.get("gold") or [])]
    has = lambda i: any(g in chunks[i]["text"].lower() for g in gold)
    print("=====", r["id"], q, gold, "| run:", str(r["answer"])[:80])
    if chosen and chosen[-1]:
        k = chosen[-1]
        print("  chosen", len(k), "gold in", sum(map(has, k)))
        print("   orig:", gen(q, k)); print("   wh  :", gen(wh, k))
        base = [i for i in k if not has(i)]
    else:
        base = []
    n = max(len(chosen[-1]) if chosen and chosen[-1] else 2, 1)
    abl = (base + [i for i in retrieved if not has(i) and i not in base])[:n]
    if gold and abl:
        print("  ablated", len(abl))
        print("   orig:", gen(q, abl)); print("   wh  :", gen(wh, abl))
