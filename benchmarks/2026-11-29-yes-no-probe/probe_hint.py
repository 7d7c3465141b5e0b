"""The generator asked compound yes/no questions with and without the sentence the judge copied from. usage: python probe_hint.py INDEX"""
import json, sys
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.core.quotes import statement
from judged_rag.prompts import generate as prompt

index = sys.argv[1]
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
rows = [
    ("May I build up extra hours, and up to how many?", [("cc3c56e6bfbd8d90", "40 hours")]),
    ("Am I allowed to book any hotel, or what is the nightly limit?", [("be0b00e3e91bd363", "The hotel limit outside capital cities is 160 euros a night."), ("3f78e60c38b4d06c", "The hotel limit in capital cities is 220 euros.")]),
    ("What is the maximum number of participants in a company offsite?", [("02aac5abc61cd6f7", "62")]),
    ("What is the maximum sensor cable length of the KVMS?", [("2d43c4aad10927d4", "55")]),
    ("How often must the Divuth Thermal Regulation Module be recalibrated?", [("f87cdef2d53032d0", "Once")]),
]
cfg = Configuration(index_dir=index)
model = Components().generator(cfg)
for question, found in rows:
    docs = [{"id": i, "title": chunks[i]["title"], "content": chunks[i]["text"], "source": ""} for i, _ in found]
    hint = "".join(
        f"Found in [{n}]: {statement(chunks[i]['text'], copy)[0]}\n"
        for n, (i, copy) in enumerate(found, start=1)
        if statement(chunks[i]["text"], copy)
    )
    base = prompt.USER.format(documents=numbered(docs), question=question, options="")
    hinted = prompt.USER.format(documents=numbered(docs) + hint, question=question, options="")
    for name, user in (("current", base), ("hinted", hinted)):
        out = model.invoke([SystemMessage(prompt.OPEN_WITH_KNOWLEDGE), HumanMessage(user)])
        print(question[:50], name, "=>", out.content.strip()[:150].replace("\n", " "))
