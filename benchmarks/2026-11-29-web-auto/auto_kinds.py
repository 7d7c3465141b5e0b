"""Per kind on the held-out rows run: the default as it was (web on), the same with the
rows that searched the web run again with the web off ("auto" beside one's own index),
judged-rag's stored d4d7f65 run and plain RAG's d4d7f65 run on the same rows.

usage: python auto_kinds.py ON.jsonl OFF.jsonl [OFF2.jsonl ...] -- JUDGED_D4D7F65.jsonl PLAIN.jsonl
"""
import collections, json, sys

args = sys.argv[1:]
cut = args.index("--")
on_file, off_files, (stored_file, plain_file) = args[0], args[1:cut], args[cut + 1 :]
load = lambda f: {json.loads(l)["item_id"]: json.loads(l) for l in open(f)}
ok = lambda r: bool(r["correct"] if r["answerable"] else r["abstention_correct"])
on, stored, plain = load(on_file), load(stored_file), load(plain_file)
off = {}
for f in off_files:
    off.update(load(f))
web = {i for i, r in on.items() if (r.get("route") or {}).get("web_searched")}
auto = {i: (off[i] if i in web and i in off else on[i]) for i in on if i not in web or i in off}
kinds = collections.defaultdict(collections.Counter)
for i in auto:
    k = on[i]["category"]
    kinds[k]["n"] += 1
    kinds[k]["web rows"] += i in web
    kinds[k]["web on"] += ok(on[i])
    kinds[k]["auto"] += ok(auto[i])
    kinds[k]["d4d7f65"] += ok(stored[i])
    kinds[k]["plain"] += ok(plain[i])
print("| kind | rows | searched the web | default as it was | auto (web off on those rows) | judged-rag d4d7f65 | plain RAG d4d7f65 |")
print("|---|---|---|---|---|---|---|")
for k, c in sorted(kinds.items()):
    print(f"| {k} | {c['n']} | {c['web rows']} | {c['web on']} | {c['auto']} | {c['d4d7f65']} | {c['plain']} |")
print()
print("rows missing a web-off run:", sorted(web - set(off)))
for i in sorted(web & set(off)):
    if ok(on[i]) != ok(off[i]) or bool(on[i]["abstained"]) != bool(off[i]["abstained"]):
        print(f"  {i}: {on[i]['question'][:60]!r} web on {ok(on[i])} {on[i]['answer'][:60]!r} {on[i]['cited_titles'][:3]}"
              f" -> off {ok(off[i])} {off[i]['answer'][:60]!r} {off[i]['cited_titles'][:3]}")
calls = lambda d, ids: sum(d[i]["cost"]["llm_calls"] for i in ids) / max(1, len(ids))
both = sorted(web & set(off))
print(f"web rows re-run: {len(both)}; calls mean web on {calls(on, both):.1f}, off {calls(off, both):.1f}")
