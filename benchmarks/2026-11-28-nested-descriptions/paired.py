"""Pair two arms row by row: python paired.py OLD NEW (folders holding results.jsonl)."""
import json, sys
def load(p): return {r['item_id']: r for r in map(json.loads, open(p + '/results.jsonl'))}
def mark(r): return 'R' if (r['correct'] if r['answerable'] else r['abstained']) else ('A' if r['abstained'] else 'W')
old, new = load(sys.argv[1]), load(sys.argv[2])
tot = {}
for i in sorted(new):
    if i not in old: continue
    o, n = old[i], new[i]
    shape = 'nested' if 'project sponsored by the head' in n['question'] else i.rsplit('-', 1)[0].replace('hb-', '')
    t = tot.setdefault(shape, [0, 0, 0, 0, 0, 0, 0])
    t[0] += 1; t[1] += mark(o) == 'R'; t[2] += mark(n) == 'R'; t[3] += o['abstained']; t[4] += n['abstained']
    t[5] += o['cost']['llm_calls']; t[6] += n['cost']['llm_calls']
    print(f"{i:22} {mark(o)}->{mark(n)} calls {o['cost']['llm_calls']:>3}->{n['cost']['llm_calls']:>3} | {n['route'].get('hop')} | {str(n['answer'])[:70]!r}")
print()
print('shape      rows  right old->new  abstained old->new  calls old->new')
for k, t in tot.items():
    print(f"{k:10} {t[0]:>4}  {t[1]:>3} -> {t[2]:<3}        {t[3]:>3} -> {t[4]:<3}        {t[5]:>4} -> {t[6]}")
a = [sum(t[j] for t in tot.values()) for j in range(7)]
print(f"{'all':10} {a[0]:>4}  {a[1]:>3} -> {a[2]:<3}        {a[3]:>3} -> {a[4]:<3}        {a[5]:>4} -> {a[6]}")
ob = sum(1 for i in new if i in old and mark(old[i]) == 'R' and mark(new[i]) != 'R')
nb = sum(1 for i in new if i in old and mark(old[i]) != 'R' and mark(new[i]) == 'R')
print(f"paired: right only old {ob}, only new {nb}")
