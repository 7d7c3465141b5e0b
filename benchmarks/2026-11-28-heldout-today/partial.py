"""The finished rows of a run beside another run's same rows: right, abstained, calls."""
import json, sys, statistics
def load(p):
    return {json.loads(l)['item_id']: json.loads(l) for l in open(p)}
new, old = load(sys.argv[1]), load(sys.argv[2])
rows = [i for i in new if i in old]
def right(r): return r['correct'] if r['answerable'] else r['abstained']
for label, keep in (('answerable', True), ('nothing answers', False)):
    ids = [i for i in rows if new[i]['answerable'] == keep]
    n_ok = sum(right(new[i]) for i in ids); o_ok = sum(right(old[i]) for i in ids)
    gained = sum(right(new[i]) and not right(old[i]) for i in ids)
    lost = sum(right(old[i]) and not right(new[i]) for i in ids)
    abst = sum(new[i]['abstained'] for i in ids); oabst = sum(old[i]['abstained'] for i in ids)
    print(f"{label}: {len(ids)} rows; right {n_ok} (other run {o_ok}); gained {gained}, lost {lost}; abstained {abst} (other {oabst})")
calls = [new[i]['cost']['llm_calls'] for i in rows]; ocalls = [old[i]['cost']['llm_calls'] for i in rows]
print(f"calls mean/median {statistics.mean(calls):.1f}/{statistics.median(calls)} (other {statistics.mean(ocalls):.1f}/{statistics.median(ocalls)})")
