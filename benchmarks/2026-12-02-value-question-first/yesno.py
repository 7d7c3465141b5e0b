"""The extracting judge on yes/no questions that ask a value after them, three wordings.

For every row whose question `core.asked.value_clause` reads: the question as written
("asked"), the model's rewrite as the value's question (`prompt.VALUE_QUESTION`, the
call `generate` makes after a decline: "rewritten"), and the two clauses as two
questions ("split"). For each wording: the retriever's documents (first round), and the
judge on every retrieved chunk holding a gold answer (in any wording's retrieval).
usage: python yesno.py DATA INDEX OUT   (PYTHONPATH picks the code; resumable)
"""
import json
import re
import sys
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.cli import ask_components
from judged_rag.components.llm import LOGPROB_ALTERNATIVES, read_extraction, read_question
from judged_rag.configuration import Configuration
from judged_rag.core.asked import value_clause
from judged_rag.core.documents import titled, to_doc
from judged_rag.core.retrieval import search
from judged_rag.nodes.judge.extract import extract_messages
from judged_rag.prompts import generate as gprompt
from judged_rag.prompts import judge as prompt

data, index, out = sys.argv[1:4]
cfg = Configuration(index_dir=index)
parts = ask_components(cfg)
model = parts.judge(cfg)
judge = model.bind(logprobs=True, top_logprobs=LOGPROB_ALTERNATIVES,
                   max_tokens=prompt.EXTRACT_MAX_TOKENS)
rewriter = model.bind(max_tokens=gprompt.VALUE_QUESTION_MAX_TOKENS)
rows = [json.loads(line) for line in open(data)]
done = {json.loads(line)["id"] for line in open(out)} if Path(out).exists() else set()


def split(question: str, clause: str) -> str:
    first = question[: question.rfind(clause)].rstrip(" ,")
    first = re.sub(r",?\s+(?:and|or)$", "", first)
    return f"{first}? {clause[0].upper()}{clause[1:]}"


with open(out, "a") as f:
    for row in rows:
        q = row["question"]
        clause = value_clause(q)
        if row["id"] in done or clause is None or not row.get("answers"):
            continue
        gold = [g.casefold() for g in row["answers"]]
        rewritten = read_question(rewriter.invoke(
            [SystemMessage(gprompt.VALUE_QUESTION), HumanMessage(q)]))
        wordings = {"asked": q, "split": split(q, clause)}
        if rewritten:
            wordings["rewritten"] = rewritten
        found = {}
        for name, text in wordings.items():
            docs = search(parts.retriever, text, k=cfg.top_k, fusion=cfg.fusion,
                          dense_weight=cfg.dense_weight)
            found[name] = [to_doc(d, origin="kb", iteration=0, reliability=cfg.kb_reliability)
                           for d in docs]
        holding = {}
        for docs in found.values():
            for d in docs:
                if any(g in d["content"].casefold() for g in gold):
                    holding[d["id"]] = d
        judged = []
        for doc in holding.values():
            entry = {"doc_id": doc["id"], "title": doc["title"],
                     "ranks": {n: next((i for i, d in enumerate(ds) if d["id"] == doc["id"]), None)
                               for n, ds in found.items()}}
            for name, text in wordings.items():
                read = read_extraction(judge.invoke(extract_messages(text, titled(doc))))
                entry[name] = None if read is None else {
                    "none": read.none, "copy": read.text, "p_none": read.p_none,
                    "gold_in_copy": (not read.none) and any(g in read.text.casefold() for g in gold)}
            judged.append(entry)
        f.write(json.dumps({"id": row["id"], "question": q, "gold": row["answers"],
                            "wordings": wordings, "judged": judged}) + "\n")
        f.flush()
        print(row["id"], wordings.get("rewritten"), [
            (e["ranks"], {n: (e[n] or {}).get("gold_in_copy") for n in wordings}) for e in judged],
            flush=True)
