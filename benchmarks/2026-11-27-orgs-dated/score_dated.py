"""Score dated questions by the value an answer leads with.

    python score_dated.py RUN/results.jsonl ...   (run in this folder)

"latest only": the current value and no outdated one; "latest first": both, the
current one first; "outdated first": both, the outdated one first; "wrong": no current
value; "abstained". Outdated values are each row's `must_not_contain`.
"""
import json, sys, collections
rows = {json.loads(l)['id']: json.loads(l) for l in open('orgs-dated.jsonl')}
for path in sys.argv[1:]:
    c = collections.Counter(); calls = []
    for l in open(path):
        r = json.loads(l)
        q = rows[r['item_id']]; a = (r['answer'] or '').lower()
        def first(vals):
            pos = [a.find(v.lower()) for v in vals if a.find(v.lower()) >= 0]
            return min(pos) if pos else None
        right, wrong = first(q['answers']), first(q.get('must_not_contain', []))
        if r['abstained']: k = 'abstained'
        elif right is None: k = 'wrong'
        elif wrong is None: k = 'latest only'
        elif right < wrong: k = 'latest first'
        else: k = 'outdated first'
        c[(r['system'], k)] += 1
        calls.append((r['system'], r['cost'].get('llm_calls', 0)))
    conf = collections.Counter()
    for l in open(path):
        r = json.loads(l); conf[(r['system'], (r['route'] or {}).get('conflict'))] += 1
    print(path); [print('  ', k, v) for k, v in sorted(c.items())]; print('  conflicts', dict(conf))
