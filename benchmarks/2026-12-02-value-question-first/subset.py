"""The rows of a handbook set whose question asks a value after a yes/no one.

usage: python subset.py DATA OUT   (`core.asked.value_clause` reads the question)
"""
import json
import sys

from judged_rag.core.asked import value_clause

data, out = sys.argv[1:3]
with open(data) as f, open(out, "w") as w:
    for line in f:
        if value_clause(json.loads(line)["question"]):
            w.write(line)
