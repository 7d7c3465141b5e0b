"""Screen, with no model: the same check for every question asking a value, not only two forms.

usage: python wider.py SET_DIR...   (each a built set: corpus/*.md and eval-data-*.jsonl)

For every answerable question asking a value (`core.asked.value_asked`) that is neither
a "how often" question nor a yes/no question asking a value after it (those two are
`asked_about`'s), take as its words those of the whole question less
`NOT_ASKED_ABOUT` and its names, as `asked_about` does for a yes/no question, and count
the questions for which no sentence holding the gold answer holds one of them: the
right copies such a check would refuse.
"""

import json
import sys
from pathlib import Path

from judged_rag.core.asked import NOT_ASKED_ABOUT, asked_about, same_word, value_asked
from judged_rag.core.quotes import grounded, statements, subject_terms, words


def question_words(question: str) -> list[str]:
    names = subject_terms(question)
    found = dict.fromkeys(words(question).split())
    return [
        w
        for w in found
        if w not in NOT_ASKED_ABOUT and w not in names and len(w) > 1 and not w.isdigit()
    ]


def holds_one(asked: list[str], sentence: str) -> bool:
    held = words(sentence).split()
    return any(same_word(w, s) for w in asked for s in held)


questions = refused = 0
for folder in map(Path, sys.argv[1:]):
    texts = [p.read_text() for p in sorted((folder / "corpus").glob("*.md"))]
    sentences = [s for t in texts for s in statements(t) if not s.startswith("#")]
    data = next(folder.glob("eval-data-*.jsonl"))
    for line in data.open():
        row = json.loads(line)
        question, gold = row["question"], (row.get("answers") or [None])[0]
        if not gold or value_asked(question) is None or asked_about(question):
            continue
        right = [s for s in sentences if grounded(gold, s)]
        if not right:
            continue
        questions += 1
        asked = question_words(question)
        if not any(holds_one(asked, s) for s in right):
            refused += 1
            print(f"{folder.name} {row['id']} | {question} | {asked} | {right[0][:90]}")
print(f"\n{questions} questions asking a value with a stated gold answer; refused: {refused}")
