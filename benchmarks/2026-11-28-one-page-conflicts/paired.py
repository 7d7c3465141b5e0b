"""Pairs the two arms on the rows whose stored run reported a conflict.

usage: python paired.py   (from this folder)
"""
import json

def load(path):
    rows = {}
    for line in open(path):
        row = json.loads(line)
        rows[row["item_id"]] = row
    return rows

def right(row):
    return row["correct"] if row["answerable"] else row["abstained"]

for name in ("hb1", "hb2", "orgs"):
    new, old = load(f"{name}-new/results.jsonl"), load(f"{name}-old/results.jsonl")
    print(f"## {name}: {len(new)} rows")
    for item, n in new.items():
        o = old[item]
        print(f"{item}: old {'right' if right(o) else 'WRONG'} {o['route'].get('conflict') or '-'}"
              f" | new {'right' if right(n) else 'WRONG'} {n['route'].get('conflict') or '-'}")
        print(f"    old: {(o['answer'] or '')[:150]!r}")
        print(f"    new: {(n['answer'] or '')[:150]!r}")
    both = [(right(old[i]), right(n)) for i, n in new.items()]
    print(f"right: old {sum(o for o, _ in both)}, new {sum(n for _, n in both)};"
          f" old only {sum(o and not n for o, n in both)}, new only {sum(n and not o for o, n in both)};"
          f" conflicts: old {sum(bool(old[i]['route'].get('conflict')) for i in new)},"
          f" new {sum(bool(n['route'].get('conflict')) for n in new.values())};"
          f" calls: old {sum(old[i]['cost']['llm_calls'] for i in new)}, new {sum(n['cost']['llm_calls'] for n in new.values())}\n")
