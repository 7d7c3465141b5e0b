"""Stored answers whose units measure only something other than what the question asks."""
import glob, json, sys
from judged_rag.core.asked import measure_asked, measures_stated
from judged_rag.core.citations import without_citations
files = sorted(set(glob.glob("benchmarks/**/results.jsonl", recursive=True)))
seen = {}
for f in files:
    for l in open(f):
        try: r = json.loads(l)
        except Exception: continue
        q, a = r.get("question") or "", r.get("answer") or ""
        if not a or r.get("abstained"): continue
        asked = measure_asked(q)
        if not asked: continue
        stated = measures_stated(without_citations(a))
        key = (r.get("system"), q, a)
        tag = "asked" if not stated or asked in stated else "OTHER"
        seen[key] = (tag, r.get("correct"), r.get("answerable"), f)
import collections
c = collections.Counter((v[0], v[1], s) for (s, q, a), v in seen.items())
for k, v in sorted(c.items(), key=str): print(k, v)
for (s, q, a), v in seen.items():
    if v[0] == "OTHER": print(v[1], s, "|", q, "|", a[:120], "|", v[3])
