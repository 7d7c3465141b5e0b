"""Old vs new `other_measure` over every built set's gold answers and every stored answer.

python screen_time.py OLD_SRC DATA_DIR...   (run from the repository root; OLD_SRC is the
`src` folder of the commit before, DATA_DIR the folders `eval-data build-*` wrote and
any run folders holding results.jsonl)
"""

import glob
import importlib.util
import json
import sys


def load(root: str, name: str):
    spec = importlib.util.spec_from_file_location(name, f"{root}/judged_rag/core/asked.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, "src")
from judged_rag.core.citations import without_citations  # noqa: E402

new, old = load("src", "asked_new"), load(sys.argv[1], "asked_old")
dirs = sys.argv[2:]
print("== gold answers")
seen, n = set(), 0
for f in sorted({f for d in dirs for f in glob.glob(f"{d}/**/eval*.jsonl", recursive=True)}):
    for line in open(f):
        row = json.loads(line)
        q = row["question"]
        for a in row.get("answers") or []:
            if (q, a) in seen:
                continue
            seen.add((q, a))
            n += 1
            o, w = old.other_measure(q, a), new.other_measure(q, a)
            if o != w:
                print("GOLD CHANGED", q, "|", a, o, "->", w)
print("gold pairs", n)
print("== stored answers")
changed = {}
files = glob.glob("benchmarks/**/results.jsonl", recursive=True)
files += [f for d in dirs for f in glob.glob(f"{d}/**/results.jsonl", recursive=True)]
for f in sorted(set(files)):
    for line in open(f):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        q, a = row.get("question") or "", row.get("answer") or ""
        if not a or row.get("abstained"):
            continue
        t = without_citations(a)
        o, w = old.other_measure(q, t), new.other_measure(q, t)
        if o != w:
            changed[(q, a)] = (o, w, row.get("correct"), row.get("system"))
for (q, a), v in changed.items():
    print(v, "|", q, "|", a[:150])
print("stored answers changed", len(changed))
