"""Score traced rows of compound yes/no questions: before = the first draft (a decline where the value
question fired), after = the final answer. usage: python score_traces.py DATA TRACES"""
import json, sys
from judged_rag_eval.metrics import contains_answer
data = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
for l in open(sys.argv[2]):
    r = json.loads(l); d = data[r["id"]]
    fired = [e["detail"] for e in r["trace"] if e["event"] == "value_question"]
    bad = [w for w in d.get("must_not_contain", []) if w.lower() in str(r["answer"]).lower()]
    if not d.get("answers"):
        after = "abstained" if r["abstained"] else "ANSWERED"
    else:
        after = "abstained" if r["abstained"] else ("right" if contains_answer(r["answer"], d["answers"]) and not bad else "WRONG")
    print(r["id"], "| fired" if fired else "|", "| after:", after, "|", r["cost"]["llm_calls"], "calls |", str(r["answer"])[:90].replace("\n", " "), "|", (fired[0]["asked"] if fired else ""))
