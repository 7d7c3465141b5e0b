"""Where the cited-subject check fired, and each question's outcome (gold by substring).

usage: python fired.py traces-cited.jsonl   (beside hb1-cited.jsonl)
"""
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
data={json.loads(l)['id']:json.loads(l) for l in open('hb1-cited.jsonl')}
fired=0
for r in rows:
    d=data[r['id']]
    ev=[e for e in r['trace'] if e['event']=='cited_elsewhere']
    ans=(r['answer'] or '')
    right = (not d.get('abstain')) and any(g.lower() in ans.lower() for g in d['answers'])
    status = ('U-abst' if r['abstained'] else 'U-ANSWERED') if d.get('abstain') else ('right' if right else ('abst' if r['abstained'] else 'WRONG'))
    if ev: fired+=1
    print(('FIRED ' if ev else '      ')+d['category'][:14].ljust(14), status.ljust(10), r['question'][:60].ljust(60), '->', ans[:60], r['reason'], '|', ev[0]['detail']['claim'][:70] if ev else '')
print('fired', fired, 'of', len(rows))
