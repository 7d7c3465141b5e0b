"""Read the extracting judge's first round again under other ways of scoring a copy.

usage: python rules.py TRACES.jsonl DATA.jsonl INDEX_DIR

TRACES.jsonl is written by `../2026-11-27-cited-subject/traces.py` (one graph run a
question, trace kept). Each judged chunk of the first round carries the judge's
probability p that the chunk states the answer (0 when its copy is not in the chunk)
and its score s = (1 - w) p + w cos (w = 0.5), so the retriever's cosine is 2 s - p.
A rule labels a chunk Highly Relevant from (p, cos, the round's best cos); the rule of
today is s >= 0.75. As at the round's join, a Highly Relevant chunk that does not name
what the question names (`subject_grounding`, `core.quotes.names_subject`) counts as
Somewhat Relevant. A copy "answers" when it holds a gold answer (normalised
containment, the e2e scorer's own test); for a question nothing answers, any Highly
Relevant chunk is a lead the generator may follow.
"""

import json
import sys
from collections import defaultdict

from judged_rag.core.quotes import names_subject
from judged_rag_eval.metrics import contains_answer

traces, data, index = sys.argv[1:4]
items = {json.loads(line)["id"]: json.loads(line) for line in open(data)}
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}


def first_round(trace):
    """Judged chunks of the first round: (doc_id, p, cos, evidence)."""
    out, seen = [], set()
    for e in trace:
        d = e["detail"]
        if e["event"] == "retrieved" and d.get("iteration", 0) > 0:
            break
        if e["event"] != "judged" or d.get("p_highly") is None or d["doc_id"] in seen:
            continue
        seen.add(d["doc_id"])
        p, s = d["p_highly"], d["judge_score"]
        out.append((d["doc_id"], p, round(2 * s - p, 4), d.get("evidence") or ""))
    return out


def named(question, doc_id):
    """`subject_grounding` (on by default): support names what the question names."""
    chunk = chunks.get(doc_id)
    return chunk is None or names_subject(question, chunk["title"], chunk["text"])


RULES = {
    "today: 0.5 p + 0.5 cos >= 0.75": lambda p, c, m: 0.5 * p + 0.5 * c >= 0.75,
    "0.75 p + 0.25 cos >= 0.75": lambda p, c, m: 0.75 * p + 0.25 * c >= 0.75,
    "p >= 0.9": lambda p, c, m: p >= 0.9,
    "rel: 0.5 p + 0.5 cos/max >= 0.75": lambda p, c, m: 0.5 * p + 0.5 * c / m >= 0.75,
    "rel: 0.5 p + 0.5 cos/max >= 0.8": lambda p, c, m: 0.5 * p + 0.5 * c / m >= 0.8,
    "rel: 0.5 p + 0.5 cos/max >= 0.85": lambda p, c, m: 0.5 * p + 0.5 * c / m >= 0.85,
    "today or (p >= 0.6 and cos = max)": lambda p, c, m: 0.5 * p + 0.5 * c >= 0.75
    or (p >= 0.6 and c >= m),
    "today or (p >= 0.8 and cos = max)": lambda p, c, m: 0.5 * p + 0.5 * c >= 0.75
    or (p >= 0.8 and c >= m),
}

rows = [json.loads(line) for line in open(traces)]
# Each question's first round, read once: its copies that name what the question names
# (the only ones a rule may make Highly Relevant) and the round's best cosine.
rounds = {}
for r in rows:
    judged = first_round(r["trace"])
    if judged:
        top = max(c for _, _, c, _ in judged) or 1.0
        copies = [(i, p, c, ev) for i, p, c, ev in judged if ev and p > 0 and named(r["question"], i)]
        rounds[r["id"]] = (top, copies)
print(f"{len(rows)} questions traced\n")
print("| rule | answerable: a Highly copy holds the answer | … only copies that do not | no Highly | nothing answers: some Highly |")
print("|---|---|---|---|---|")
detail = defaultdict(list)
for name, rule in RULES.items():
    hit = wrong = empty = lead = n_ans = n_none = 0
    for r in rows:
        if r["id"] not in rounds:
            continue
        item = items[r["id"]]
        top, copies = rounds[r["id"]]
        high = [(i, ev) for i, p, c, ev in copies if rule(p, c, top)]
        answers = item.get("answers") or []
        if item.get("abstain") or not answers:
            n_none += 1
            lead += bool(high)
            if high:
                detail[name].append(f"  nothing answers {r['id']}: {[ev[:30] for _, ev in high]}")
            continue
        n_ans += 1
        good = [ev for _, ev in high if contains_answer(ev, answers)]
        if good:
            hit += 1
        elif high:
            wrong += 1
            detail[name].append(f"  answerable {r['id']}: {[ev[:30] for _, ev in high]} (gold {answers})")
        else:
            empty += 1
    print(f"| {name} | {hit} / {n_ans} | {wrong} | {empty} | {lead} / {n_none} |")
if "-v" in sys.argv:
    for name, lines in detail.items():
        print(f"\n{name}:")
        print("\n".join(lines))
