"""The generator asked compound yes/no questions in other forms, on the chunks the judge passed. usage: python probe_split.py INDEX"""
import json, sys
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.prompts import generate as prompt
index = sys.argv[1]
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
rows = [
    (["May I build up extra hours, and up to how many?", "May I build up extra hours? Up to how many?", "Up to how many extra hours may I build up?"], ["cc3c56e6bfbd8d90"]),
    (["Am I allowed to book any hotel, or what is the nightly limit?", "Am I allowed to book any hotel? What is the nightly limit?", "What is the nightly hotel limit?"], ["be0b00e3e91bd363", "3f78e60c38b4d06c"]),
    (["What is the maximum number of participants in a company offsite?"], ["02aac5abc61cd6f7"]),
]
model = Components().generator(Configuration(index_dir=index))
for questions, ids in rows:
    docs = [{"id": i, "title": chunks[i]["title"], "content": chunks[i]["text"], "source": ""} for i in ids]
    for q in questions:
        out = model.invoke([SystemMessage(prompt.OPEN_WITH_KNOWLEDGE), HumanMessage(prompt.USER.format(documents=numbered(docs), question=q, options=""))])
        print(q, "=>", out.content.strip()[:150].replace("\n", " "))
