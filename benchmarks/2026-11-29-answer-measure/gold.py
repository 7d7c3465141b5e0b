"""Gold answers of the built sets against the answer-form check of a measure (of_kind)."""

import glob
import json
import sys

from judged_rag.core.asked import measure_asked, of_kind

files = sys.argv[1:] or glob.glob("src/judged_rag_eval/datasets/**/*.jsonl", recursive=True)
asked = rejected = 0
for f in files:
    for line in open(f, encoding="utf-8"):
        row = json.loads(line)
        question, golds = row.get("question"), row.get("answers") or []
        if not question or not golds or not measure_asked(question):
            continue
        asked += 1
        if not any(of_kind(question, g) for g in golds):
            rejected += 1
            print("REJECTED", f, question, golds)
print(len(files), "files; questions asking a measure", asked, "; gold rejected", rejected)
