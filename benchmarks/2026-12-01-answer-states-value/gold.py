"""Gold answers of the built sets against the answer-form checks of a value (`gives_value`)
and of "how long" (`other_measure`).

usage: python gold.py DATA.jsonl ...   (PYTHONPATH picks the code)
"""

import json
import sys

from judged_rag.core.asked import HOW_LONG, gives_value, other_measure, value_asked

asked = refused = how_long = how_long_refused = 0
for f in sys.argv[1:]:
    for line in open(f, encoding="utf-8"):
        row = json.loads(line)
        question, golds = row.get("question"), row.get("answers") or []
        if not question or not golds:
            continue
        if HOW_LONG.search(question):
            how_long += 1
            if all(other_measure(question, g) is not None for g in golds):
                how_long_refused += 1
                print("HOW-LONG REFUSED", f, question, golds)
        if value_asked(question) is None:
            continue
        asked += 1
        if not any(gives_value(question, g) for g in golds):
            refused += 1
            print("REFUSED", f, question, golds)
print(len(sys.argv) - 1, "files; questions asking a value", asked, "; gold refused", refused)
print("questions asking how long", how_long, "; gold refused", how_long_refused)
