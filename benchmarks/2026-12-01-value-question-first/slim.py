"""Traces kept small: the parse events (the value question written), the judge's labelled copies, the combinations, and the integrate,
generate, verify and finish events. usage: python slim.py TRACES.jsonl > OUT.jsonl"""
import json
import sys

KEEP_NODES = {"parse", "combine", "integrate", "generate", "verify", "finish"}
for line in open(sys.argv[1]):
    r = json.loads(line)
    r["trace"] = [
        e for e in r["trace"]
        if e["node"] in KEEP_NODES or (e["event"] == "judged" and e["detail"].get("evidence"))
    ]
    print(json.dumps(r))
