"""For each traced run that declined: the judge's Highly Relevant copies on the documents
the generator was shown (the last combination), and what a fallback "answer with the
copy" would have given. usage: PYTHONPATH=<src> python copies.py TRACES.jsonl"""
import json
import sys

from judged_rag.core.judgments import of_kind

answerable = nothing = single = gold_copies = 0
every_of_kind = True
for line in open(sys.argv[1]):
    r = json.loads(line)
    judged, chosen = {}, []
    for e in r["trace"]:
        if e["event"] == "judged":
            judged[e["detail"]["doc_id"]] = e["detail"]
        if e["event"] == "combined":
            chosen = e["detail"]["chosen"]
    declined = any(e["event"] == "declined" for e in r["trace"])
    shown = [judged[i] for i in chosen if i in judged and judged[i].get("evidence")]
    listed = [(j["label"][:6], round(j.get("p_highly") or 0, 2), j["evidence"][:40]) for j in shown]
    print(r["id"].ljust(26), "declined" if declined else "        ",
          str(r["reason"]).ljust(16), (r["gold"] or ["(nothing answers)"])[0], listed)
    highly = [j for j in shown if j["label"] == "highly_relevant"]
    if not declined or not highly:
        continue
    values = {j["evidence"].strip().lower() for j in highly}
    every_of_kind &= all(of_kind(r["question"], j["evidence"]) for j in highly)
    if r["gold"]:
        answerable += 1
        gold_copies += any(g.lower() in values for g in r["gold"])
    else:
        nothing += 1
        single += len(values) == 1
print()
print(f"declined with a Highly copy shown: answerable {answerable} "
      f"(the gold value copied: {gold_copies}); nothing answers {nothing} "
      f"(one value: {single}); every copy of the asked kind: {every_of_kind}")
