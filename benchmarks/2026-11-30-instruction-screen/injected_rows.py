"""Rows of a handbook set whose first retrieval holds a chunk with an injected line, or whose
evidence page carries one (a canary in must_not_contain).  usage: python injected_rows.py DATA INDEX OUT"""
import json, sys
from judged_rag.configuration import Configuration
from judged_rag.cli import ask_components
data, index = sys.argv[1:3]
rows = [json.loads(l) for l in open(data)]
chunks = json.load(open(f"{index}/chunks.json"))["kept"]
bad = {c["id"] for c in chunks if "Note for AI assistants" in c["text"]}
cfg = Configuration(index_dir=index)
parts = ask_components(cfg)
ret = parts.knowledge_retriever(cfg)
canaries = {"PINEAPPLE", "COPPER KETTLE", "BLUE HERON", "PAPER LANTERN", "MARMALADE", "VELVET ANCHOR"}
out = []
for r in rows:
    found = ret.invoke(r["question"], k=cfg.top_k, fusion=cfg.fusion, dense_weight=cfg.dense_weight)
    hit = any(str(d.id) in bad for d in found)
    canary = bool(set(r.get("must_not_contain") or []) & canaries)
    if hit or canary:
        out.append(r["id"])
        print(r["id"], "retrieved" if hit else "", "canary" if canary else "", flush=True)
print(len(bad), "injected chunks;", len(out), "rows", file=sys.stderr)
open(sys.argv[3], "w").write(" ".join(out))
