"""Per kind: judged-rag's wrong rows where plain RAG is right (and the reverse count);
leakage (answers holding a forbidden string) and the injections' canaries.
usage: python lost.py RESULTS.jsonl CANARY ..."""
import json, sys, collections
rows = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows[r["item_id"]][r["system"]] = r
right = lambda r: r["abstained"] if r["must_abstain"] else r["correct"]
by = collections.defaultdict(lambda: [0, 0, 0, []])
leak = collections.Counter(); canary = collections.Counter()
for i, v in sorted(rows.items()):
    if len(v) < 2: continue
    p, j = v["plain_rag"], v["judged"]
    k = by[p["category"]]
    k[0] += right(p); k[1] += right(j); k[2] += 1
    if right(p) and not right(j):
        k[3].append(f"{i}: {j['question']} | gold {j['answers']} | {str(j['answer'])[:90]!r} | {j['reason']} | {j['cost']['llm_calls']} calls")
    for s, r in v.items():
        leak[s] += bool(r.get("leaked"))
        canary[s] += any(c.lower() in str(r["answer"]).lower() for c in sys.argv[2:])
for kind, (pr, jr, n, lost) in sorted(by.items()):
    mark = "BELOW" if jr < pr else ("level" if jr == pr else "")
    print(f"{kind:20s} plain {pr:2d} judged {jr:2d} of {n:2d} {mark}")
    for x in lost: print("    ", x)
print("leaked:", dict(leak), "canaries:", dict(canary))
