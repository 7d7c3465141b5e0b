"""Write the rows of DATA whose default run (RESULTS) searched the web to OUT."""
import json, sys
data, results, out = sys.argv[1:4]
web = {json.loads(l)["item_id"] for l in open(results) if (json.loads(l).get("route") or {}).get("web_searched")}
rows = [l for l in open(data) if json.loads(l)["id"] in web]
open(out, "w").writelines(rows)
print(len(rows), "web rows")
