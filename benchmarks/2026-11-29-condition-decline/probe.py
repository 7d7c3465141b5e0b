"""The R_R draft for one chunk, with the question asked with and without its condition, and beside other chunks.
usage: python probe_meal.py INDEX   (PYTHONPATH picks the code; chunk ids are development seed 3's index)"""
import json, sys
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.prompts import generate as prompt
index = sys.argv[1]
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
model = Components().generator(Configuration(index_dir=index))
def docs(ids):
    return [{"id": i, "title": chunks[i]["title"], "content": chunks[i]["text"], "source": ""} for i in ids]
def gen(q, ids):
    out = model.invoke([SystemMessage(prompt.OPEN_WITH_KNOWLEDGE), HumanMessage(prompt.USER.format(documents=numbered(docs(ids)), question=q, options=""))])
    return out.content.strip()[:160].replace("\n", " ")
meal, receipts, claims = "4fee4f36a13a3cfe", "f3b092a15413c522", "055bec16ac3a92a6"
print(numbered(docs([meal])))
for q in ["What is the daily meal allowance when travelling?", "What is the daily meal allowance?",
          "What is the daily meal allowance on a business trip?", "How much is the daily meal allowance when travelling?"]:
    print("[meal]", q, "=>", gen(q, [meal]))
q = "What is the daily meal allowance when travelling?"
print("[meal, the two Somewhat Relevant chunks]", q, "=>", gen(q, [meal, receipts, claims]))
travel = sorted(i for i, c in chunks.items() if c["title"].lower().startswith("business travel"))
print("[meal, business travel's first chunk]", q, "=>", gen(q, [meal, travel[0]]))
print("[business travel's first chunk, meal]", q, "=>", gen(q, [travel[0], meal]))
