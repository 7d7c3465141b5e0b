"""Pair a default run (web on) with the web-off run of its web rows: outcome, calls, seconds."""
import json, sys, statistics as st
wd = {json.loads(l)["item_id"]: json.loads(l) for l in open(sys.argv[1])}
wn = {json.loads(l)["item_id"]: json.loads(l) for l in open(sys.argv[2])}
ok = lambda r: bool(r["correct"] if r["answerable"] else r["abstention_correct"])
web = [i for i, r in wd.items() if (r.get("route") or {}).get("web_searched")]
both = [i for i in web if i in wn]
print(f"rows {len(wd)}, searched the web {len(web)}, re-run without {len(both)}")
print("right: default", sum(ok(wd[i]) for i in both), "web off", sum(ok(wn[i]) for i in both))
print("abstained: default", sum(bool(wd[i]["abstained"]) for i in both), "web off", sum(bool(wn[i]["abstained"]) for i in both))
for i in both:
    if ok(wd[i]) != ok(wn[i]) or bool(wd[i]["abstained"]) != bool(wn[i]["abstained"]):
        print(" ", i, wd[i]["question"][:60], "|", ok(wd[i]), (wd[i]["answer"] or "")[:60].replace("\n", " "), wd[i]["cited_titles"][:3], "->", ok(wn[i]), (wn[i]["answer"] or "")[:60].replace("\n", " "), wn[i]["cited_titles"][:3])
c = lambda d: [d[i]["cost"]["llm_calls"] for i in both]
s = lambda d: [d[i]["wall_seconds"] for i in both]
if both:
    print("calls mean/median: default", round(st.mean(c(wd)), 1), st.median(c(wd)), "web off", round(st.mean(c(wn)), 1), st.median(c(wn)))
    print("seconds mean: default", round(st.mean(s(wd)), 1), "web off", round(st.mean(s(wn)), 1))
right_web = [i for i in both if ok(wd[i]) and wd[i]["answerable"]]
print("right default answers citing a title absent from web-off's knowledge base? titles:", sorted({t for i in right_web for t in wd[i]["cited_titles"]})[:40])
