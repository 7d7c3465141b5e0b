"""Per-system and per-kind outcomes of e2e runs on a handbook set: Wilson 95 % intervals,
exact McNemar tests on the items every system finished, calls and seconds.

usage: python hb_table.py [--rescore] [label=]RESULTS.jsonl ...

--rescore: each stored answer is scored again with today's scorer
(`judged_rag_eval.metrics`, run from the project's environment), and the rows whose
verdict changes are listed first.
"""
import json, math, statistics, sys


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def mcnemar(x, y):
    """Exact two-sided p of x vs y discordant pairs."""
    n = x + y
    if n == 0:
        return 1.0
    k = min(x, y)
    p = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * p)


rescore = "--rescore" in sys.argv
if rescore:
    from judged_rag_eval.metrics import choice_conclusion_correct, contains_answer


def scored(r):
    """The row's verdict on an answerable open question, by today's scorer."""
    decided = choice_conclusion_correct(r["answer"], r["answers"], r["question"])
    return contains_answer(r["answer"], r["answers"]) if decided is None else decided


runs = {}
for spec in (a for a in sys.argv[1:] if a != "--rescore"):
    label, _, path = spec.rpartition("=")
    for line in open(path):
        r = json.loads(line)
        if r.get("error"):
            continue
        if rescore and not r["must_abstain"] and not r.get("options") and scored(r) != r["correct"]:
            print(f"rescored {label or r['system']} {r['item_id']}: {r['correct']} -> {not r['correct']} ({r['answer'][:70]!r})")
            r["correct"] = not r["correct"]
        runs.setdefault(label or r["system"], {})[r["item_id"]] = r
common = sorted(set.intersection(*(set(v) for v in runs.values())))
right = lambda r: r["abstained"] if r["must_abstain"] else r["correct"]
pct = lambda k, n: f"{k}/{n} ({100*k/n:.0f} %; {100*wilson(k,n)[0]:.0f}–{100*wilson(k,n)[1]:.0f})" if n else "–"
print(f"items finished by every system: {len(common)}\n")
print("| system | answerable right | answerable abstained | nothing answers: abstained | all right | calls mean / median | seconds mean / median |")
print("|---|---|---|---|---|---|---|")
for name, recs in runs.items():
    part = [recs[i] for i in common]
    ans = [r for r in part if not r["must_abstain"]]
    un = [r for r in part if r["must_abstain"]]
    calls = [r["cost"]["llm_calls"] for r in part]
    secs = [r["wall_seconds"] for r in part]
    print(f"| {name} | {pct(sum(r['correct'] for r in ans), len(ans))} | {pct(sum(r['abstained'] for r in ans), len(ans))} "
          f"| {pct(sum(r['abstained'] for r in un), len(un))} | {pct(sum(right(r) for r in part), len(part))} "
          f"| {statistics.mean(calls):.1f} / {statistics.median(calls):g} | {statistics.mean(secs):.1f} / {statistics.median(secs):.1f} |")
names = list(runs)
print("\npaired, items both finished (first right only – second right only, exact McNemar p):")
for scope, keep in (("answerable", lambda r: not r["must_abstain"]), ("nothing answers", lambda r: r["must_abstain"]), ("all", lambda r: True)):
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ks = [k for k in common if keep(runs[a][k])]
            x = sum(1 for k in ks if right(runs[a][k]) and not right(runs[b][k]))
            y = sum(1 for k in ks if right(runs[b][k]) and not right(runs[a][k]))
            print(f"  {scope}: {a} vs {b}: {x} – {y}, p = {mcnemar(x, y):.3g}")
print("\nper kind (right / n; nothing-answers kinds: abstained / n):\n")
kinds = sorted({(runs[names[0]][k]["must_abstain"], runs[names[0]][k]["category"]) for k in common})
print("| kind | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for must, kind in kinds:
    ks = [k for k in common if runs[names[0]][k]["category"] == kind]
    print(f"| {kind}{' (nothing answers)' if must else ''} | " + " | ".join(f"{sum(right(runs[n][k]) for k in ks)}/{len(ks)}" for n in names) + " |")
