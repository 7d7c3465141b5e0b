"""Screen, with no model: would "the copy's sentence says what happens" refuse right copies?

usage: python screen.py SET_DIR...   (each a built set: corpus/*.md and eval-data-*.jsonl)

For every question asking how often (`core.asked.what_happens` is not empty) whose gold
answer the corpus states: each statement (sentence or table row, `core.quotes.statements`)
of a page holding the gold answer is a right copy's sentence; the check must keep at
least one per question. Every other statement of those pages that states a number or a
frequency word is a sibling a judge could copy: how many the check refuses. And how many
of either `states_what_happens` (the documents ranked first in their set), each read with
its page's title and its section's heading (a chunk also carries a note of the names the
document defines, which this screen does not: a lower bound for the gold statements).
"""

import json
import re
import sys
from pathlib import Path

from judged_rag.core.asked import CALENDAR, says_what_happens, states_what_happens, what_happens
from judged_rag.core.quotes import grounded, statements, words


def sections(body: str) -> list[str]:
    """The page's sections, each with its heading (a chunk carries its section's)."""
    found: list[list[str]] = [[]]
    for line in body.splitlines():
        if line.startswith("#"):
            found.append([])
        found[-1].append(line)
    return ["\n".join(lines) for lines in found if any(lines)]


def stating(question: str, title: str, section: str, sentence: str) -> bool:
    """`states_what_happens` of the sentence, read with its section's heading."""
    heading = section.splitlines()[0] if section.startswith("#") else ""
    return states_what_happens(question, {"title": title, "content": f"{heading}\n{sentence}"})


kept = refused = sib_all = sib_refused = questions = 0
gold_stating = sib_stating = 0
for folder in map(Path, sys.argv[1:]):
    pages = {}
    for path in sorted((folder / "corpus").glob("*.md")):
        text = path.read_text()
        title = re.search(r"^title:\s*(.+)$", text, re.M)
        body = text.split("---", 2)[-1] if text.startswith("---") else text
        pages[path.name] = (title.group(1).strip() if title else path.stem, body)
    data = next(folder.glob("eval-data-*.jsonl"))
    for line in data.open():
        row = json.loads(line)
        question, gold = row["question"], (row.get("answers") or [None])[0]
        if not what_happens(question) or not gold:
            continue
        questions += 1
        right, siblings = [], []  # (title, section, statement)
        for title, body in pages.values():
            if not any(grounded(gold, s) for s in statements(body)):
                continue
            for section in sections(body):
                for s in statements(section):
                    if grounded(gold, s):
                        right.append((title, section, s))
                    elif not s.startswith("#") and (
                        any(c.isdigit() for c in s) or set(words(s).split()) & CALENDAR
                    ):
                        siblings.append((title, section, s))
        ok = [s for _, _, s in right if says_what_happens(question, s)]
        kept += bool(ok)
        gold_stating += any(stating(question, t, sec, s) for t, sec, s in right)
        refused += not ok
        mark = "kept" if ok else "REFUSED"
        print(
            f"{folder.name} {row['id']} | {question} | {gold} | {mark}: {(ok or [right[0][1]])[0][:90]}"
        )
        for t, sec, s in siblings:
            sib_all += 1
            if stating(question, t, sec, s):
                sib_stating += 1
                print(f"    sibling ranked first: [{t}] {s[:100]}")
            if not says_what_happens(question, s):
                sib_refused += 1
            else:
                print(f"    sibling kept: [{t}] {s[:100]}")
print(
    f"\n{questions} questions asking how often with a stated gold answer: "
    f"a right sentence kept for {kept}, none kept for {refused}"
)
print(
    f"other statements with a number or frequency word on the same pages: {sib_all}, "
    f"refused {sib_refused}"
)
print(
    f"ranked first (a frequency in a sentence holding a word asked): gold statement for "
    f"{gold_stating} of {questions}, other statements {sib_stating} of {sib_all}"
)
