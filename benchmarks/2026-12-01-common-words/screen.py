"""Screen, with no model: copies refused because their statement holds only words most
retrieved pages state a value with (`core.asked.common_words`).

usage: python screen.py DATA INDEX [DATA INDEX ...]   (PYTHONPATH picks the code)

For every question `asked_about` gives words (a question asking how often, or a yes/no
question asking a value after it), the first round's documents are retrieved as the
graph does (the question itself, default settings, top_k). Answerable: every retrieved
document holding the gold answer gives a copy, the gold answer; the question keeps its
gold when one such copy passes `answers_other`, before (no common words: `common_words`
made to return none) and now. Nothing answers: every retrieved statement stating a value
in the question's words (`_stating`) gives a copy, the statement itself; the question is
refused when none passes. The verifier's check (`nodes.verify.restates_other_fact`) is
asked of a right draft: each statement of a retrieved document holding the gold answer,
cited to that document; "draft refused" counts the questions where it refuses every such
draft (none should be). Each line: set, row, kept (or copies passing) before -> now,
the question's words, the common ones (listed for every question; used only for one
asking how often), the question; the last line sums.
"""
import json, sys
from pathlib import Path
import judged_rag.core.asked as asked_mod
from judged_rag.configuration import Configuration
from judged_rag.core.asked import _stating, answers_other, asked_about, common_words
from judged_rag.core.documents import to_doc, undated
from judged_rag.core.quotes import grounded, statements
from judged_rag.core.retrieval import search
from judged_rag.indexing import open_index
from judged_rag.nodes.verify import restates_other_fact

args = sys.argv[1:]
pairs = list(zip(args[::2], args[1::2]))
cfg = Configuration()


def other_test(q, docs, common):
    saved = asked_mod.common_words
    if not common:
        asked_mod.common_words = lambda *a: []
    try:
        return answers_other(q, docs)
    finally:
        asked_mod.common_words = saved


tot = {"draft_refused": 0, "ans": 0, "ans_kept_old": 0, "ans_kept_new": 0, "none": 0, "none_ref_old": 0, "none_ref_new": 0}
for data, index in pairs:
    retriever = open_index(Path(index))
    for line in open(data):
        r = json.loads(line)
        q = r["question"]
        asked = asked_about(q)
        if not asked:
            continue
        found = search(retriever, q, {}, k=cfg.top_k, fusion=cfg.fusion, dense_weight=cfg.dense_weight)
        docs = [to_doc(d, origin="kb", iteration=0, reliability="B") for d in found[: cfg.top_k]]
        common = common_words(q, asked, docs)
        old, new = other_test(q, docs, False), other_test(q, docs, True)
        gold = (r.get("answers") or [None])[0]
        if gold:
            holding = [d for d in docs if grounded(gold, d["content"])]
            if not holding:
                print(Path(data).parent.name, r["id"], "ANS not retrieved", asked, common, "|", q)
                continue
            k_old = any(old is None or not old(gold, d) for d in holding)
            k_new = any(new is None or not new(gold, d) for d in holding)
            drafts = [
                (d, said) for d in holding for said in statements(undated(d["content"]))
                if grounded(gold, said)
            ]
            state = {"question": q, "documents": docs, "judgments": []}
            refused = bool(drafts) and all(
                restates_other_fact({**state, "knowledge": [d]}, f"{said} [1]") for d, said in drafts
            )
            tot["draft_refused"] += refused
            tot["ans"] += 1; tot["ans_kept_old"] += k_old; tot["ans_kept_new"] += k_new
            flag = "LOST" if k_old and not k_new else ""
            print(Path(data).parent.name, r["id"], "ANS kept", k_old, "->", k_new, flag, "draft refused" if refused else "", asked, common, "|", q)
        else:
            test = _stating(q, asked)
            copies = [(d, s) for d in docs for s in statements(undated(d["content"])) if test(s)]
            p_old = [c for c in copies if old is not None and not old(c[1], c[0])]
            p_new = [c for c in copies if new is not None and not new(c[1], c[0])]
            ref_old, ref_new = not p_old, not p_new
            tot["none"] += 1; tot["none_ref_old"] += ref_old; tot["none_ref_new"] += ref_new
            print(Path(data).parent.name, r["id"], "NONE copies", len(copies), "passing", len(p_old), "->", len(p_new), asked, common, "|", q)
print(json.dumps(tot))
