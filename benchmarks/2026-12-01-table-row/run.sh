#!/usr/bin/env bash
# Seed 7's rows whose evidence page has a table, of the kinds most likely to read one
# (lower case, table, two documents, role: 36 rows), judged-rag at 942b372, default
# settings, one run, alone, with traces; and the no-model screen (at 7eed29d) over
# handbook seeds 1-7, the organisations set and RDQ.
# S: a scratch folder outside the repository holding seed 7's hb7/ and hb7-index-g/
# (../2026-12-01-heldout-seed7/run.sh), seeds 1-6 built with `judged-rag eval-data
# build-handbook --out hbN --seed N`, orgs/ (`judged-rag eval-data build-orgs --out
# orgs`) and rdq/ (`judged-rag eval-data build --out rdq`). Resumable: traces.py skips
# the rows it has.
set -e
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$REPO/benchmarks/2026-12-01-table-row"
CODE=942b372
cd "$S"
export JUDGED_RAG_HOME="$S/home"
. "$REPO/benchmarks/freeze.sh"
freeze "$CODE"
export PYTHONPATH="$S/src-$CODE"
python - hb7 > tab7.jsonl <<'PY'
import json, re, sys
from pathlib import Path
from judged_rag.core.asked import table_rows
folder = Path(sys.argv[1])
titles = set()
for path in sorted((folder / "corpus").glob("*.md")):
    text = path.read_text()
    if table_rows(text):
        titles.add(re.search(r"^title:\s*(.+)$", text, re.M).group(1).strip())
order = {"lowercase": 0, "table": 1, "two_hop": 2, "role": 3}
rows = [json.loads(line) for line in open(folder / "eval-data-handbook.jsonl")]
chosen = [r for r in rows if set(r.get("evidence") or []) & titles and r["category"] in order]
for r in sorted(chosen, key=lambda r: order[r["category"]]):
    print(json.dumps(r))
PY
python "$REPO/benchmarks/2026-11-28-unchanged-and-query-duplicates/traces.py" \
  tab7.jsonl hb7-index-g "tab7-$CODE.jsonl" all
python "$REPO/benchmarks/2026-12-01-yes-no-value/rows.py" \
  "$REPO/benchmarks/2026-12-01-heldout-seed7/whole-89765f0/results.jsonl" "tab7-$CODE.jsonl" > rows.txt
SCREEN=7eed29d  # the column rule (README)
freeze "$SCREEN"
export PYTHONPATH="$S/src-$SCREEN"
{
  echo "# handbook seeds 1-7"; python "$HERE/screen.py" hb1 hb2 hb3 hb4 hb5 hb6 hb7
  echo; echo "# organisations"; python "$HERE/screen.py" orgs
  echo; echo "# RDQ"; python "$HERE/screen.py" rdq
} > screen.txt
