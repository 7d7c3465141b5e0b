"""The bundled model's rewrite of each compound yes/no question of a data set (one sample each).
usage: python probe_wh.py INDEX DATA [SYSTEM]   (PYTHONPATH picks the code)"""
import json, re, sys
from langchain_core.messages import HumanMessage, SystemMessage
from judged_rag.components import Components
from judged_rag.configuration import Configuration
pat=re.compile(r"^(can|may|am|is|are|do|does|should|must|will)\b.*,\s+(and|or)\s+(how|what|who|when|where|which|from|up|for|by|to|in)\b",re.I)
qs=[json.loads(l)['question'] for l in open(sys.argv[2])]
qs=[q for q in qs if pat.search(q)]
SYSTEM = sys.argv[3] if len(sys.argv)>3 else ("Rewrite the question as one question that asks only for the value it wants "
  "(a number, amount, duration, name or place), keeping every detail it mentions. Reply with the question only.")
model = Components().generator(Configuration(index_dir=sys.argv[1]))
for q in qs:
    out = model.invoke([SystemMessage(SYSTEM), HumanMessage(q)])
    print(q, "=>", out.content.strip()[:200].replace("\n"," "), flush=True)
