"""The extracting judge's first-round copies under copy-sentence rules, with no model call.

usage: python first_round_copies.py TRACES DATA CHUNKS_DIR [emb]

TRACES holds graph runs with their traces (every retrieved chunk judged in the first
round); CHUNKS_DIR a folder whose chunks.json has the traced chunks' ids (`remap_ids.py`).
For each copy the judge found in its chunk (P > 0), the copy's sentence
(`core.quotes.statement`) and the question's *attribute words*: its content words
without the chunk title's words, the capitalised words after the first, a few question
verbs and the adjective after "how" ("how long"). A copy is right when it holds a gold
answer (the scorer's `contains_answer`). Rules that would demote a copy:

  A: its sentence holds none of the attribute words;
  B: A, and another sentence of the chunk holds one;
  C: another sentence holds more of them than its own;
  D: A, and another sentence holds two.

With `emb`, each Highly Relevant copy's sentence and every sentence of its chunk are
embedded with the bundled model, and the cosines to the question are printed.
"""

import json
import sys
from collections import Counter, defaultdict

import screens

from judged_rag.core.documents import split_note, undated
from judged_rag.core.quotes import statement, statements
from judged_rag_eval.metrics import contains_answer

traces, data, index = sys.argv[1:4]
items = {json.loads(line)["id"]: json.loads(line) for line in open(data)}
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
GENERIC = {
    "current", "currently", "describe", "explain", "give", "tell", "does", "did", "can",
    "may", "should", "must", "will", "would", "could", "allowed", "get", "many", "much",
    "long", "often",
}  # fmt: skip


def attributes(question, title):
    return screens.attributes(question, title, GENERIC, skip_how=False)


overlap = screens.overlap


def first_round(row):
    """(judged event detail, chunk, body, the copy's sentence) of each first-round copy."""
    for d in screens.first_round_judged(row["trace"]):
        copy = d.get("evidence") or ""
        if not copy or not d.get("p_highly"):
            continue
        chunk = chunks[d["doc_id"]]
        body = split_note(undated(chunk["text"]))[2]
        found = statement(body, copy)
        if found is not None:
            yield d, chunk, body, found[0]


rows = [json.loads(line) for line in open(traces)]
tally = defaultdict(Counter)
fired_right = defaultdict(list)
wrong_highly = []
for r in rows:
    gold = items[r["id"]].get("answers") or []
    for d, chunk, body, sentence in first_round(r):
        asked = attributes(r["question"], chunk["title"])
        own = overlap(asked, sentence)
        other = max([overlap(asked, s) for s in statements(body) if s != sentence] or [0])
        right = bool(gold) and contains_answer(d["evidence"], gold)
        highly = d["label"] == "highly_relevant"
        tag = ("H" if highly else "S") + ("+" if right else "-")
        tally["all"][tag] += 1
        rules = {
            "A": own == 0,
            "B": own == 0 and other >= 1,
            "C": own < other,
            "D": own == 0 and other >= 2,
        }
        for name, fires in rules.items():
            tally[name][tag + (" fires" if fires else " keeps")] += 1
            if fires and right:
                fired_right[name].append((r["id"], r["question"], d["evidence"], sentence[:100]))
        if highly and not right:
            wrong_highly.append((r["id"], r["question"], gold, d["evidence"], sentence[:100], own))
print(
    f"{len(rows)} questions; H/S = Highly/Somewhat Relevant, "
    "+/- = the copy holds a gold answer or not"
)
for name, counts in tally.items():
    print(name, dict(sorted(counts.items())))
for name, found in fired_right.items():
    print(f"== rule {name} fires on right copies:")
    for x in found:
        print("  ", x)
print(
    "== Highly Relevant copies that hold no gold answer "
    "(id, question, gold, copy, sentence, overlap):"
)
for x in wrong_highly:
    print("  ", x)

if len(sys.argv) > 4 and sys.argv[4] == "emb":
    import numpy as np

    from judged_rag.indexing.embeddings import local_embeddings

    model = local_embeddings()
    scored = []
    for r in rows:
        gold = items[r["id"]].get("answers") or []
        for d, _chunk, body, sentence in first_round(r):
            sentences = [s for s in statements(body) if len(s.split()) > 2]
            if sentence not in sentences:
                sentences.append(sentence)
            cos = np.array(model.embed_documents(sentences)) @ np.array(
                model.embed_query(r["question"])
            )
            own, best = float(cos[sentences.index(sentence)]), float(cos.max())
            right = bool(gold) and contains_answer(d["evidence"], gold)
            tag = d["label"][:1].upper() + ("+" if right else "-")
            scored.append(
                (tag, round(own, 3), round(best, 3), r["id"], d["evidence"], sentence[:70])
            )
    print(
        "== cosine of the question to the copy's sentence, and its gap to the chunk's best sentence"
    )
    for tag in ("H+", "H-", "S+", "S-"):
        xs = [x for x in scored if x[0] == tag]
        own_q = np.percentile([x[1] for x in xs], [0, 25, 50, 75, 100]).round(3)
        gap_q = np.percentile([x[2] - x[1] for x in xs], [0, 25, 50, 75, 100]).round(3)
        print(f"{tag} {len(xs)} own: {own_q} gap: {gap_q}")
    for x in sorted(scored, key=lambda x: x[1]):
        if x[0][0] == "H":
            print("  ", x)
