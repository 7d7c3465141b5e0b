"""Read the screening's replies as the shipped judge does, before and after the copy rule.

usage: python ana3.py v0.jsonl ../../hb1/eval-data-handbook.jsonl
For each question: is a chunk holding the gold answer copied with the answer (before:
the reply whole is in the chunk; after: or its run from `quoted_within`, with a number
not only the question's, of the form the question asks)? Runs taken from other chunks
are listed.
"""
import collections, json, re, sys

from judged_rag.core.asked import of_kind
from judged_rag.core.quotes import quoted_within

NUMBER = re.compile(r"\d[\d,.]*")
rows = [json.loads(l) for l in open(sys.argv[1])]
ans = {json.loads(l)["id"]: json.loads(l).get("answers", []) for l in open(sys.argv[2])}
agg = collections.defaultdict(collections.Counter)
for r in rows:
    kind = "yes_no" if r["category"] == "yes_no" else ("nothing answers" if r["abstain"] else "other")
    gold = ans[r["id"]]
    a = agg[kind]
    a["questions"] += 1
    before = after = False
    for d in r["docs"]:
        gold_doc = any(g.lower() in d["content"].lower() for g in gold)
        if d["grounded"] and gold_doc and any(g.lower() in d["reply"].lower() for g in gold):
            before = True
        if d["none"] or d["grounded"]:
            continue
        run = quoted_within(d["reply"], d["content"])
        numbers = set(NUMBER.findall(run))
        if not numbers or numbers <= set(NUMBER.findall(r["question"])) or not of_kind(r["question"], run):
            continue
        if gold_doc and any(g.lower() in run.lower() for g in gold):
            after = True
        else:
            a["runs from other chunks"] += 1
            print("  other chunk:", kind, r["id"], repr(run))
    a["gold copied before"] += before
    a["gold copied after"] += before or after
for kind, a in agg.items():
    print(kind, dict(a))
