"""Screen, with no model: would "the copy's sentence is about what is asked" refuse right copies?

usage: python screen.py SET_DIR...   (each a built set: corpus/*.md and eval-data-*.jsonl)

For every yes/no question asking a value after it (`core.asked.asked_about` gives words,
and the question does not ask how often) whose gold answer the corpus states: each
statement (sentence or table row, `core.quotes.statements`) of any page holding the gold
answer is a right copy's sentence; the check must keep at least one per question
(`says_asked`). Every other statement of the corpus stating a number is a copy a judge
could take from a retrieved chunk: how many the check refuses, and how many would lead
their set (`states_asked`, each read with its page's title and its section's heading).
"""

import json
import re
import sys
from pathlib import Path

from judged_rag.core.asked import asked_about, says_asked, states_asked, what_happens
from judged_rag.core.quotes import grounded, statements, states_a_number


def sections(body: str) -> list[str]:
    """The page's sections, each with its heading (a chunk carries its section's)."""
    found: list[list[str]] = [[]]
    for line in body.splitlines():
        if line.startswith("#"):
            found.append([])
        found[-1].append(line)
    return ["\n".join(lines) for lines in found if any(lines)]


def stating(question: str, title: str, section: str, sentence: str) -> bool:
    """`states_asked` of the sentence, read with its section's heading."""
    heading = section.splitlines()[0] if section.startswith("#") else ""
    return states_asked(question, {"title": title, "content": f"{heading}\n{sentence}"})


kept = refused = others = others_refused = others_stating = questions = gold_stating = 0
for folder in map(Path, sys.argv[1:]):
    pages = []
    for path in sorted((folder / "corpus").glob("*.md")):
        text = path.read_text()
        title = re.search(r"^title:\s*(.+)$", text, re.M)
        body = text.split("---", 2)[-1] if text.startswith("---") else text
        pages.append((title.group(1).strip() if title else path.stem, body))
    data = next(folder.glob("eval-data-*.jsonl"))
    for line in data.open():
        row = json.loads(line)
        question, gold = row["question"], (row.get("answers") or [None])[0]
        if not asked_about(question) or what_happens(question) or not gold:
            continue
        questions += 1
        right, other = [], []  # (title, section, statement)
        for title, body in pages:
            for section in sections(body):
                for s in statements(section):
                    if s.startswith("#"):
                        continue
                    if grounded(gold, s):
                        right.append((title, section, s))
                    elif states_a_number(s):
                        other.append((title, section, s))
        ok = [s for _, _, s in right if says_asked(question, s)]
        kept += bool(ok)
        refused += not ok
        gold_stating += any(stating(question, t, sec, s) for t, sec, s in right)
        mark = "kept" if ok else "REFUSED"
        shown = (ok or [s for _, _, s in right] or ["(no statement holds it)"])[0]
        print(f"{folder.name} {row['id']} | {question} | {gold} | {mark}: {shown[:90]}")
        leading = [(t, s) for t, sec, s in other if stating(question, t, sec, s)]
        others += len(other)
        others_refused += sum(not says_asked(question, s) for _, _, s in other)
        others_stating += len(leading)
        for t, s in leading[:3]:
            print(f"    other statement leading its set: [{t}] {s[:100]}")
        if len(leading) > 3:
            print(f"    … and {len(leading) - 3} more")
print(
    f"\n{questions} yes/no questions asking a value after them, with a stated gold answer: "
    f"a right sentence kept for {kept}, none kept for {refused}; a right sentence would "
    f"lead its set for {gold_stating}"
)
print(
    f"other statements with a number in the same corpus: {others}, refused {others_refused}, "
    f"leading their set {others_stating}"
)
