"""Run judged-rag on chosen rows of a data set, keeping each result's whole trace.
usage: python traces.py DATA INDEX OUT id1 id2 ... [--set k=v ...]   (PYTHONPATH picks the code)"""
import json, sys, time
from pathlib import Path
from judged_rag.configuration import Configuration
from judged_rag.cli import ask_components
from judged_rag.graph.builder import build_graph

args = sys.argv[1:]
sets = [a.split("=", 1) for a in args if "=" in a and not a.startswith("hb")]
args = [a for a in args if not ("=" in a and not a.startswith("hb"))]
data, index, out, *ids = args
rows = {json.loads(l)["id"]: json.loads(l) for l in open(data)}
if ids == ["all"]:
    ids = list(rows)
elif all(i.endswith("-") for i in ids):
    ids = [r for r in rows if any(r.startswith(i) for i in ids)]
conv=lambda v: {'true': True, 'false': False}.get(v.lower(), float(v) if v.replace('.', '').isdigit() else v)
cfg = Configuration(index_dir=index, **{k: conv(v) for k, v in sets})
graph = build_graph(ask_components(cfg))
done = set()
if Path(out).exists():
    done = {json.loads(l)["id"] for l in open(out)}
with open(out, "a") as f:
    for i in ids:
        if i in done:
            continue
        r = rows[i]
        t = time.monotonic()
        res = graph.invoke({"question": r["question"]}, context=cfg)
        keep = {k: res.get(k) for k in ("answer", "abstained", "reason", "basis", "route", "cost", "trace")}
        f.write(json.dumps({"id": i, "question": r["question"], "gold": r.get("answers"), "seconds": time.monotonic() - t, **keep}, default=str) + "\n")
        f.flush()
        print(i, "|", r.get("answers"), "|", str(res.get("answer"))[:120], "|", res.get("reason"), flush=True)
