"""Replies per group and variant: declined, right (a gold answer in it), wrong, or answered
(a question nothing answers). Groups: answerable rows the stored run declined (yes/no
apart), answerable rows it answered, rows nothing answers.

usage: python table.py replies-*.jsonl
"""
import json, re, sys
from collections import defaultdict, Counter
DECL = re.compile(r"^\W*(i\s+(do\s+not|don'?t|cannot|can'?t)\s+know|unknown)\b", re.I)
def verdict(d):
    rep = re.sub(r'\[\d+\]', ' ', d['reply'])
    if DECL.match(rep): return 'declined'
    if not d['gold']: return 'answered'
    return 'right' if any(g.lower() in rep.lower() for g in d['gold']) else 'wrong'
groups = {'declined': lambda d: d['gold'] and d['stored_declined'],
          'nothing': lambda d: not d['gold'],
          'answered': lambda d: d['gold'] and not d['stored_declined']}
tab = defaultdict(Counter)
for f in sys.argv[1:]:
    for l in open(f):
        d = json.loads(l)
        g = [k for k, t in groups.items() if t(d)][0]
        yn = 'yes_no' if 'yes-no' in d['id'] else 'other'
        tab[(g, yn if g == 'declined' else '', d['variant'])][verdict(d)] += 1
for k in sorted(tab):
    print(' | '.join(x for x in k if x), '|', dict(tab[k]))
