"""Rerun questions with the default graph and keep each run's whole output (trace included).

usage: [SETTINGS='{"key": value}'] python traces.py DATA.jsonl INDEX_DIR OUT.jsonl [id ...]
Resumable: ids already in OUT are skipped. SETTINGS: JSON settings on top of the defaults.
"""
import json, sys, time
from pathlib import Path
from judged_rag import Components, build_graph
from judged_rag.configuration import Configuration

data, index, out = sys.argv[1:4]
wanted = set(sys.argv[4:])
done = set()
if Path(out).exists():
    done = {json.loads(l)["id"] for l in open(out)}
rows = [json.loads(l) for l in open(data)]
graph = build_graph(Components())
import os
extra = json.loads(os.environ.get("SETTINGS", "{}"))
cfg = Configuration.from_mapping({"index_dir": index, **extra}, strict=True)
for r in rows:
    if (wanted and r["id"] not in wanted) or r["id"] in done:
        continue
    t = time.monotonic()
    res = graph.invoke({"question": r["question"]}, context=cfg)
    rec = {"id": r["id"], "question": r["question"], "gold": r.get("answers"), "seconds": round(time.monotonic() - t, 1),
           **{k: res.get(k) for k in ("answer", "abstained", "reason", "basis", "route", "citations", "trace", "cost")}}
    with open(out, "a") as f:
        f.write(json.dumps(rec, default=str) + "\n")
    print(r["id"], res.get("abstained"), (res.get("answer") or "")[:80], flush=True)
