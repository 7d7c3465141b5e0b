"""Traces kept small: the judge's labelled copies, the combinations, and the integrate,
generate, verify and finish events, plus the events of any NODE named.
usage: python slim.py TRACES.jsonl [NODE ...] > OUT.jsonl"""
import json
import sys

KEEP_NODES = {"combine", "integrate", "generate", "verify", "finish", *sys.argv[2:]}
for line in open(sys.argv[1]):
    r = json.loads(line)
    r["trace"] = [
        e for e in r["trace"]
        if e["node"] in KEEP_NODES or (e["event"] == "judged" and e["detail"].get("evidence"))
    ]
    print(json.dumps(r))
