"""Stored judge replies read by the copy rule before (OLD_SRC, a src folder) and after (PYTHONPATH).
usage: OLD_SRC=... python read_replies.py REPLIES.jsonl ..."""
import json, os, sys, collections, importlib.util
from judged_rag.components.llm import Extraction
from judged_rag.nodes.judge.extract import _copied as new_copied
spec = importlib.util.spec_from_file_location("old_extract", os.environ["OLD_SRC"] + "/judged_rag/nodes/judge/extract.py")
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
from judged_rag.core.quotes import grounded
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
c = collections.Counter()
for r in rows:
    q = r["question"]
    for d in r["docs"]:
        if d["none"]: continue
        f = Extraction(text=d["reply"], none=False, p_none=0.1)
        a, b = old._copied(f, d["content"], q), new_copied(f, d["content"], q)
        ga, gb = grounded(a.text, d["content"]), grounded(b.text, d["content"])
        c[("copy before", ga, "after", gb)] += 1
        if ga != gb or a.text != b.text:
            print(("nothing-answers" if r["abstain"] else "answerable"), "gold chunk" if d["gold_in_doc"] else "other chunk", r["id"], "|", q[:60], "|", d["reply"][:70], "->", b.text[:60])
print(c)
