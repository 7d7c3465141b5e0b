import json,re,glob,sys
for s in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f'hb{s}/eval-data-handbook.jsonl')]
    for r in rows:
        m=re.match(r'What is the current default (.+) of the (\w+)\?',r['question'])
        if not m: continue
        attr,prod=m.groups()
        notes=[]
        for f in glob.glob(f'hb{s}/corpus/{prod.lower()}-firmware-*-release-notes.md'):
            v=tuple(int(x) for x in re.search(r'firmware-(\d+)-(\d+)',f).groups())
            t=open(f).read()
            sent=[x for x in re.split(r'(?<=\.)\s+',t) if f'default {attr}' in x]
            notes.append((v,sent))
        notes.sort()
        latest=[n for n in notes if n[1]][-1] if any(n[1] for n in notes) else None
        kind='unchanged' if latest and any('unchanged' in x for x in latest[1]) else 'stated'
        print(s, r['id'], kind, prod, attr, r['answers'], [ (n[0], n[1]) for n in notes][-2:] if kind=='unchanged' else '')
