"""Ask the generator again, with other prompts, what stored runs gave it.

For each row of a traced judged-rag run whose answer was written from documents
(`basis` "retrieval"), the documents the last combination chose are read back from the
index's `chunks.json`, numbered as `generate` numbers them, and sent to the bundled model
with each variant's system prompt (and, for a variant given as `(system, make_user)`,
its own user message). Replies are appended to OUT, one JSON line per row and variant;
a rerun skips what OUT already holds.

usage: python replay.py TRACES.jsonl INDEX_DIR VARIANTS.py OUT.jsonl [ID,ID,...]

The replay is approximate for questions asked in two steps (role, two-document): the
question sent is the one asked, not the step's resolved one.
"""

import importlib.util
import json
import sys
import time

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.models import load_chat_model
from judged_rag.core.documents import numbered
from judged_rag.prompts import generate as prompt

traces, index, variants_file, out = sys.argv[1:5]
only = set(sys.argv[5].split(",")) if len(sys.argv) > 5 else None
spec = importlib.util.spec_from_file_location("variants", variants_file)
variants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(variants)
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
model = load_chat_model("local:qwen2.5-coder-1.5b", temperature=0.0, max_tokens=384)
done = set()
try:
    for line in open(out):
        row = json.loads(line)
        done.add((row["id"], row["variant"]))
except FileNotFoundError:
    pass
with open(out, "a") as sink:
    for line in open(traces):
        run = json.loads(line)
        if only and run["id"] not in only:
            continue
        chosen, declined, basis = None, False, None
        for e in run["trace"]:
            if e["event"] == "combined":
                chosen = e["detail"]["chosen"]
            if e["node"] == "verify" and e["event"] == "declined":
                declined = True
            if e["event"] == "generated":
                basis = e["detail"]["basis"]
        if basis != "retrieval" or not chosen:
            continue
        docs = [{"id": i, "title": chunks[i]["title"], "content": chunks[i]["text"]} for i in chosen]
        for name, system in variants.VARIANTS.items():
            if (run["id"], name) in done:
                continue
            user = prompt.USER.format(documents=numbered(docs), question=run["question"], options="")
            if isinstance(system, tuple):
                system, make_user = system
                user = make_user(docs, run["question"])
            started = time.time()
            reply = model.invoke([SystemMessage(system), HumanMessage(user)]).content
            sink.write(
                json.dumps(
                    {
                        "id": run["id"],
                        "variant": name,
                        "gold": run["gold"],
                        "stored_declined": declined,
                        "stored_answer": run["answer"][:100],
                        "reply": reply,
                        "seconds": round(time.time() - started, 1),
                        "ndocs": len(docs),
                    }
                )
                + "\n"
            )
            sink.flush()
            print(run["id"], name, repr(reply[:120]), flush=True)
