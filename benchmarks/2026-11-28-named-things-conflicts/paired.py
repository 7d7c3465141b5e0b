"""Pairs the rule's run with the stored run at its parent rule, on the rows whose run at
the extracting judge's weight 0.25 reported a conflict.

usage: python paired.py   (from this folder)
"""
import json

BEFORE = "../2026-11-28-one-page-conflicts/{name}-new/results.jsonl"


def load(path):
    return {row["item_id"]: row for row in map(json.loads, open(path))}


def right(row):
    return row["correct"] if row["answerable"] else row["abstained"]


for name in ("hb1", "hb2", "orgs"):
    new, old = load(f"{name}-b6d5e61/results.jsonl"), load(BEFORE.format(name=name))
    print(f"## {name}: {len(new)} rows")
    for item, n in new.items():
        o = old[item]
        if (right(o), o["route"].get("conflict")) == (right(n), n["route"].get("conflict")):
            continue
        print(f"{item}: before {'right' if right(o) else 'WRONG'} {o['route'].get('conflict') or '-'}"
              f" | rule {'right' if right(n) else 'WRONG'} {n['route'].get('conflict') or '-'}")
        print(f"    before: {(o['answer'] or '')[:150]!r}")
        print(f"    rule:   {(n['answer'] or '')[:150]!r}")
    both = [(right(old[i]), right(n)) for i, n in new.items()]
    print(f"right: before {sum(o for o, _ in both)}, rule {sum(n for _, n in both)};"
          f" before only {sum(o and not n for o, n in both)}, rule only {sum(n and not o for o, n in both)};"
          f" conflicts: before {sum(bool(old[i]['route'].get('conflict')) for i in new)},"
          f" rule {sum(bool(n['route'].get('conflict')) for n in new.values())};"
          f" calls: before {sum(old[i]['cost']['llm_calls'] for i in new)}, rule {sum(n['cost']['llm_calls'] for n in new.values())}\n")
