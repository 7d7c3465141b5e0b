"""paired.py A/results.jsonl B/results.jsonl (the system from $SYSTEM, judged if unset): correctness, abstention, calls; paired counts and exact McNemar p."""
import json, os, sys, statistics, math
def load(p, system=os.environ.get('SYSTEM', 'judged')):
    return {r['item_id']: r for r in map(json.loads, open(p)) if r['system'] == system}
def good(r): return r['abstention_correct'] if r['must_abstain'] else r['correct']
def summ(name, rs):
    ans = [r for r in rs if not r['must_abstain']]; una = [r for r in rs if r['must_abstain']]
    calls = [r['cost']['llm_calls'] for r in rs]; happy = [r['cost']['llm_calls'] for r in ans if r['correct']]
    secs = [r['cost']['seconds'] for r in rs]
    print(f"{name}: answerable {sum(r['correct'] for r in ans)}/{len(ans)} abst {sum(r['abstained'] for r in ans)}; "
          f"none abst {sum(r['abstained'] for r in una)}/{len(una)}; calls mean {statistics.mean(calls):.1f} median {statistics.median(calls)}; "
          f"happy median {statistics.median(happy) if happy else '-'} mean {statistics.mean(happy) if happy else 0:.2f}; s mean {statistics.mean(secs):.1f} median {statistics.median(secs):.1f}")
def p_mcnemar(x, y):
    n = x + y
    if n == 0: return 1.0
    k = min(x, y)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
a, b = load(sys.argv[1]), load(sys.argv[2])
common = [i for i in a if i in b]
summ('A ' + sys.argv[1], [a[i] for i in common]); summ('B ' + sys.argv[2], [b[i] for i in common])
x = [i for i in common if good(a[i]) and not good(b[i])]; y = [i for i in common if good(b[i]) and not good(a[i])]
print(f"paired on {len(common)}: A only right {len(x)}, B only right {len(y)}, p={p_mcnemar(len(x), len(y)):.3f}")
for i in x: print('  A+', a[i]['question'][:80], '|', a[i]['answer'][:60], '|', b[i]['answer'][:60])
for i in y: print('  B+', b[i]['question'][:80], '|', b[i]['answer'][:60], '|', a[i]['answer'][:60])
