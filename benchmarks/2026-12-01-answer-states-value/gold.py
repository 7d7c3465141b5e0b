"""Gold answers of the built sets against the answer-form check of a value (`gives_value`).

usage: python gold.py DATA.jsonl ...   (PYTHONPATH picks the code)
"""

import json
import sys

from judged_rag.core.asked import gives_value, value_asked

asked = refused = 0
for f in sys.argv[1:]:
    for line in open(f, encoding="utf-8"):
        row = json.loads(line)
        question, golds = row.get("question"), row.get("answers") or []
        if not question or not golds or value_asked(question) is None:
            continue
        asked += 1
        if not any(gives_value(question, g) for g in golds):
            refused += 1
            print("REFUSED", f, question, golds)
print(len(sys.argv) - 1, "files; questions asking a value", asked, "; gold refused", refused)
