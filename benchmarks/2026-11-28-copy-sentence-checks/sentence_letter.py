"""The letter judge asked about a Highly Relevant copy's sentence alone: P(A), right and wrong.

usage: python sentence_letter.py TRACES DATA CHUNKS_DIR OUT [INDEX]

For each first-round Highly Relevant copy of TRACES (one per question and sentence), the
bundled model reads the chunk's title and the copy's sentence with the letter judge's
prompt (`prompts.judge.LETTER_*`, "A = the document states the answer") and P(A) is
written to OUT with whether the copy holds a gold answer. CHUNKS_DIR holds the traced
chunks (`remap_ids.py`); INDEX, when CHUNKS_DIR is no index, is the one the components
open. One call a copy.
"""

import json
import sys

import screens
from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.cli import ask_components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import split_note, undated
from judged_rag.core.quotes import statement
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag_eval.metrics import contains_answer

traces, data, index, out = sys.argv[1:5]
items = {json.loads(row)["id"]: json.loads(row) for row in open(data)}
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
cfg = Configuration(index_dir=sys.argv[5] if len(sys.argv) > 5 else index)
deps = NodeDeps(components=ask_components(cfg))
seen_pairs = set()
with open(out, "w") as f:
    for line in open(traces):
        r = json.loads(line)
        gold = items[r["id"]].get("answers") or []
        for d in screens.first_round_judged(r["trace"]):
            ev = d.get("evidence") or ""
            if d["label"] != "highly_relevant" or not ev:
                continue
            c = chunks[d["doc_id"]]
            body = split_note(undated(c["text"]))[2]
            st = statement(body, ev)
            if st is None:
                continue
            key = (r["id"], st[0])
            if key in seen_pairs:
                continue
            seen_pairs.add(key)
            step = deps.step("judge", {"question": r["question"]}, {}, cfg)
            doc = f"{c['title']}\n{st[0]}"
            user = prompt.LETTER_USER.format(question=r["question"], document=doc)
            got = step.letter(
                [SystemMessage(prompt.LETTER_SYSTEM), HumanMessage(user)],
                list(prompt.LETTERS),
                default=None,
                count_round=False,
            )
            p = got.value.probabilities if got.value else None
            right = bool(gold) and contains_answer(ev, gold)
            rec = {"id": r["id"], "right": right, "copy": ev, "sentence": st[0], "p": p}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(right, round(p["A"], 3) if p else None, r["id"], repr(ev), st[0][:80], flush=True)
