"""judged-rag's answers that speak of dated documents (the word "dated": the dated-
conflict path's "The latest dated document gives ..."), right and wrong, per results
file; the wrong ones listed. usage: python dated.py RESULTS.jsonl ..."""
import json, sys
for path in sys.argv[1:]:
    ok = bad = 0
    for l in open(path):
        r = json.loads(l)
        if r["system"] != "judged" or r.get("abstained"): continue
        a = r["answer"] or ""
        if "dated" not in a: continue
        good = (not r["must_abstain"]) and r["correct"]
        ok += good; bad += not good
        if not good:
            print("  ", r["item_id"], r["question"][:70], r["answers"], "|", a[:150].replace("\n"," "))
    print(path.split("/")[-3], path.split("/")[-2], "dated answers right", ok, "wrong", bad)
