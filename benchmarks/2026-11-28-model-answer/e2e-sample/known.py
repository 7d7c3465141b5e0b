"""The end-to-end run on the sample knowledge base, split by what the model knows alone.

Run from this folder: `python e2e-sample/known.py`. *Known*: the model's short answer to
the question alone was right in the study (`c_m_answers.jsonl`, field `right`). Two
answers the scorer misses are read by hand (listed in BY_HAND).
"""

import collections
import json
from pathlib import Path

HERE = Path(__file__).parent
BY_HAND = {
    "What organ do humans use to breathe?": "'the lungs': gold 'lung' as a whole word",
    "What is a prime number?": "'a natural number greater than 1 that is not a product of two "
    "smaller natural numbers': gold asks for divisible / divisors / factors",
}

study = {}
for line in (HERE.parent / "c_m_answers.jsonl").open():
    row = json.loads(line)
    study[row["question"]] = row
counts: collections.Counter[tuple[str, ...]] = collections.Counter()
for line in (HERE / "results.jsonl").open():
    r = json.loads(line)
    part = r["category"].split("-")[1]  # fit: written first; check: written after, held out
    gate = "gate→model" if r["gate"]["route"] == "direct" else "gate→retrieve"
    if not r["answerable"]:
        counts[("made-up", part, gate, "abstained" if r["abstained"] else "answered")] += 1
        continue
    known = "known" if study[r["question"]]["right"] else "model wrong alone"
    right = r["correct"] or r["question"] in BY_HAND
    outcome = "right" if right else "abstained" if r["abstained"] else "wrong"
    counts[(known, part, gate, outcome)] += 1
for key, n in sorted(counts.items()):
    print(" | ".join(key), n)
