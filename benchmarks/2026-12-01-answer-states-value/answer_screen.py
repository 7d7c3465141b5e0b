"""Stored answers against two answer-form checks: a value (`core.asked.gives_value`) and
"how long" answered in another measure (`core.asked.other_measure`, asked "how long").

usage: python answer_screen.py [RESULTS.jsonl ...]   (from the repository root; PYTHONPATH
picks the code). Reads every end-to-end answer given (not abstained from) in
benchmarks/**/results.jsonl and the files named; each distinct (question, answer) once.
Prints the answers each check refuses and the counts, right and wrong.
"""

import glob
import json
import sys
from collections import Counter

from judged_rag.core.asked import HOW_LONG, gives_value, other_measure, value_asked
from judged_rag.core.citations import without_citations

files = sorted(glob.glob("benchmarks/**/results.jsonl", recursive=True)) + sys.argv[1:]
seen: set[tuple[str, str]] = set()
counts: Counter[str] = Counter()
for f in files:
    for line in open(f, encoding="utf-8"):
        row = json.loads(line)
        question, answer = row.get("question") or "", row.get("answer") or ""
        if row.get("suite") != "e2e" or row.get("abstained") or not answer:
            continue
        if (question, answer) in seen:
            continue
        seen.add((question, answer))
        verdict = "right" if row.get("correct") else "wrong"
        asked = value_asked(question)
        counts[f"{verdict} answers"] += 1
        counts[f"{verdict} answers to questions asking a value"] += asked is not None
        text = without_citations(answer)
        where = f"({row['system']}, basis {row.get('basis')}, asks {asked})"
        shown = f"| {question} | {answer[:140]!r} | gold {row.get('answers')}"
        if not gives_value(question, text):
            counts[f"{verdict} answers refused"] += 1
            print(f"REFUSED {verdict} {where} {shown}")
        if HOW_LONG.search(question):
            counts[f"{verdict} answers to 'how long' questions"] += 1
            found = other_measure(question, text)
            if found is not None and found[0] == "how long":
                counts[f"{verdict} answers to 'how long' refused"] += 1
                print(f"HOW-LONG REFUSED {verdict} {where} {found[1]} {shown}")
print(f"{len(files)} files, {len(seen)} distinct answers")
for key in sorted(counts):
    print(f"{key}: {counts[key]}")
