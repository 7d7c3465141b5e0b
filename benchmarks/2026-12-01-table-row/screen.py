"""Screen, with no model: would "a copy read from another row" refuse right copies?

usage: python screen.py SET_DIR...   (each a built set: corpus/*.md and eval-data-*.jsonl)

For every answerable question whose evidence page (the row's `evidence` titles) holds
its gold answer in a table's data row (`core.asked.table_rows`): whether the gold
answer, as a copy from that table, is refused (`wrong_row` with the question's
`row_words`; never for a question `core.hops.describable` reads as describing what it
asks about, as the graph does). And every other cell of those tables, as a copy a judge
could take instead: how many are refused. A question whose gold answer the table holds
only by chance (a number also in another row) counts like the others.
"""

import json
import re
import sys
from pathlib import Path

from judged_rag.core.asked import row_words, table_rows, wrong_row
from judged_rag.core.hops import describable
from judged_rag.core.quotes import grounded

questions = kept = refused = skipped = cells = cells_refused = 0
unexcepted = 0  # refused if describable questions were checked too
for folder in map(Path, sys.argv[1:]):
    pages = {}
    for path in sorted((folder / "corpus").glob("*.md")):
        text = path.read_text()
        title = re.search(r"^title:\s*(.+)$", text, re.M)
        pages[title.group(1).strip() if title else path.stem] = text
    data = next(folder.glob("eval-data-*.jsonl"))
    for line in data.open():
        row = json.loads(line)
        question, gold = row["question"], (row.get("answers") or [None])[0]
        if not gold:
            continue
        evidence = [pages[t] for t in row.get("evidence") or [] if t in pages]
        tables = [
            "\n".join(rows)
            for text in evidence
            for rows in table_rows(text)
            if any(grounded(gold, r) for r in rows)
        ]
        if not tables:
            continue
        questions += 1
        asked = row_words(question)
        wrong = all(wrong_row(asked, t, gold) for t in tables)
        if describable(question):
            skipped += 1
            unexcepted += wrong
            if wrong:
                print(f"refused were it checked: {folder.name} {row['id']} | {question} | {gold}")
            continue
        kept += not wrong
        refused += wrong
        if wrong:
            print(f"REFUSED {folder.name} {row['id']} | {question} | {gold}")
        for table in tables:
            for data_row in table.splitlines():
                if grounded(gold, data_row):
                    continue
                for cell in data_row.strip("|").split("|"):
                    if cell.strip():
                        cells += 1
                        cells_refused += wrong_row(asked, table, cell.strip())
print(
    f"{questions} questions with the gold answer in a table of an evidence page: "
    f"{skipped} may describe what they ask about (not checked); of the {kept + refused} "
    f"others the gold answer kept for {kept}, refused for {refused}"
)
print(f"cells of the other rows of those tables: {cells}, refused {cells_refused}")
print(f"were the describing questions checked too: gold answer refused for {unexcepted} of them")
