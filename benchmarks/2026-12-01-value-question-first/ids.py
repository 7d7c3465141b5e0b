"""ids of a set's rows whose question asks a value after a yes/no question."""
import json, sys
from judged_rag.core.asked import value_clause
print(" ".join(json.loads(l)["id"] for l in open(sys.argv[1]) if value_clause(json.loads(l)["question"])))
