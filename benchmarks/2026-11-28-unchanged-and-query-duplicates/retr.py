import json, sys
from judged_rag.indexing import open_index
data, index, out = sys.argv[1:4]
r = open_index(index)
with open(out, "w") as f:
    for l in open(data):
        q = json.loads(l)
        ids = [d.metadata["chunk_id"] for d in r.invoke(q["question"])]
        f.write(json.dumps({"id": q["id"], "ids": ids}) + "\n")
