"""Screen, with no model: a copy read from another row, re-read from the row asked about.

usage: python screen.py SET_DIR...   (each a built set: corpus/*.md and eval-data-*.jsonl)

For every answerable question whose evidence page holds its gold answer in a table's
data row (`core.asked.table_rows`; the table read as written, its heading included),
every cell of that table's other rows is a copy a
judge could take instead. For each such copy `wrong_row` refuses (with the question's
`row_words`), `asked_cell` either gives the cell of the row asked about in the copy's
column (counted as the gold answer or not) or nothing (the copy is dropped, as before).
Questions `core.hops.describable` reads as describing what they ask about are not
checked by the graph; a role question ("In which office does the head of sales work?")
is checked once the hop has named the person, so here it is read with the name its
evidence page gives the role ("- Head of Sales: Kadith Niva"), as the hop's answer.
"""

import json
import re
import sys
from pathlib import Path

from judged_rag.core.asked import asked_cell, row_words, table_rows, wrong_row
from judged_rag.core.hops import describable
from judged_rag.core.quotes import grounded

ROLE = re.compile(r"\bthe (head of [A-Za-z]+)")


def as_resolved(question: str, evidence: list[str]) -> str | None:
    """The question with its role replaced by the name an evidence page gives it."""
    found = ROLE.search(question)
    if found is None:
        return None
    for text in evidence:
        named = re.search(rf"^- {re.escape(found.group(1))}: (.+)$", text, re.I | re.M)
        if named:
            return question[: found.start()] + named.group(1).strip() + question[found.end() :]
    return None


def blocks(text: str) -> list[str]:
    """Each table of a page as written, its heading included: the chunk a judge reads."""
    return [m.group(0) for m in re.finditer(r"(?m)(?:^\|.*\n?)+", text)]


for folder in map(Path, sys.argv[1:]):
    questions = copies = refused = to_gold = to_other = dropped = 0
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
            block
            for text in evidence
            for block in blocks(text)
            if any(grounded(gold, r) for rows in table_rows(block) for r in rows)
        ]
        if not tables:
            continue
        if describable(question):
            question = as_resolved(question, evidence)
            if question is None or describable(question):
                continue
        questions += 1
        asked = row_words(question)
        for table in tables:
            for data_row in (r for rows in table_rows(table) for r in rows):
                if grounded(gold, data_row):
                    continue
                for cell in (c.strip() for c in data_row.strip("|").split("|")):
                    if not cell:
                        continue
                    copies += 1
                    if not wrong_row(asked, table, cell):
                        continue
                    refused += 1
                    read = asked_cell(asked, table, cell)
                    if read is None:
                        dropped += 1
                    elif grounded(gold, read):
                        to_gold += 1
                    else:
                        to_other += 1
                        print(f"OTHER {row['id']} | {question} | gold {gold} | copy {cell} -> {read}")
    print(
        f"{folder.name}: {questions} questions checked (gold answer in a table); "
        f"{copies} cells of other rows; refused {refused}: re-read to the gold answer "
        f"{to_gold}, to another value {to_other}, dropped {dropped}"
    )
