"""Every hop answer stored in benchmarks/ against `core.hops.speaks_of`, no model.

usage: python screen.py CORPUS_DIR... (PYTHONPATH picks the code; run from the project root)

For each distinct (description, name) a stored run's route records ("Who or what is X?
-> Y"), the pages of the given corpora that hold the name and `describe` X are rendered as
the index renders a chunk (title, then headings and text), and the pair is kept when
`speaks_of` accepts it on one of them.
"""

import collections
import glob
import json
import re
import sys

from judged_rag.core import hops
from judged_rag.indexing.chunking import document_units, render

pages = {}
for folder in sys.argv[1:]:
    for path in glob.glob(f"{folder}/**/*.md", recursive=True):
        text = open(path, encoding="utf-8").read()
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path)
        pages[path] = f"{title}\n{render(document_units(text))}"

seen: dict[tuple[str, str], list[str]] = {}
for path in glob.glob("benchmarks/**/*.jsonl", recursive=True):
    for line in open(path, encoding="utf-8"):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        route = row.get("route") if isinstance(row, dict) else None
        steps = route.get("hop") if isinstance(route, dict) else None
        for step in (steps or "").split("; "):
            m = re.match(r"Who or what is (.*)\? → (.*)$", step)
            if m and m.group(2) != "nothing":
                seen.setdefault((m.group(1), m.group(2)), []).append(path)

verdicts: collections.Counter[str] = collections.Counter()
for (description, name), where in sorted(seen.items()):
    flat = " ".join(name.split()).casefold()
    found = [
        text
        for text in pages.values()
        if flat in " ".join(text.split()).casefold() and hops.describes(text, description)
    ]
    if not found:
        verdict = "on no page of these corpora"
    elif any(hops.speaks_of(text, name, description) for text in found):
        verdict = "kept"
    else:
        verdict = "rejected"
    verdicts[verdict] += 1
    if verdict != "kept":
        print(f"{verdict}: {description} → {name} ({len(where)} rows, e.g. {where[0]})")
print(dict(verdicts))
