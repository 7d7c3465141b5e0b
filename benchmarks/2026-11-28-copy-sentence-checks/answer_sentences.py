"""Would a copy-sentence rule demote a right copy? The gold answers' own sentences, no model.

usage: python answer_sentences.py DATA INDEX [show]

For each answerable question (a multiple-choice twin ":mc" counted once), every chunk of
its evidence pages, and in it every sentence or table row holding a gold answer (the
scorer's `contains_answer`): the sentences a right copy can come from. The question's
attribute words are as in `first_round_copies.py`, without the adjective after "how" and
a few more question words. A rule demotes a right copy when it fires on every one of the
question's answer sentences (table rows are left to the rule's exemption):

  A: the sentence holds none of the attribute words;
  B: A, and another sentence of its chunk holds one;
  W: the whole chunk holds none.
"""

import json
import sys
from collections import Counter, defaultdict

import screens

from judged_rag.core.documents import split_note, undated
from judged_rag.core.quotes import statements
from judged_rag_eval.metrics import contains_answer, normalize_title

data, index = sys.argv[1:3]
show = len(sys.argv) > 3
by_title = defaultdict(list)
for c in json.load(open(f"{index}/chunks.json"))["kept"]:
    by_title[normalize_title(c["title"])].append(c)
GENERIC = {
    "current", "currently", "describe", "explain", "give", "tell", "does", "did", "can",
    "may", "should", "must", "will", "would", "could", "allowed", "get", "many", "much",
    "often", "still", "there", "year", "date", "time",
}  # fmt: skip


def attributes(question, title):
    return screens.attributes(question, title, GENERIC, skip_how=True)


overlap = screens.overlap


RULES = {
    "A: sentence 0": lambda s: s["asked"] > 0 and s["own"] == 0 and not s["table"],
    "B: sentence 0, other >= 1": lambda s: (
        s["asked"] > 0 and s["own"] == 0 and s["other"] >= 1 and not s["table"]
    ),
    "W: chunk 0": lambda s: s["asked"] > 0 and s["chunk"] == 0 and not s["table"],
}
questions = Counter()
fired = defaultdict(Counter)
examples = defaultdict(list)
for line in open(data):
    r = json.loads(line)
    gold = r.get("answers") or []
    if not gold or r.get("abstain") or r["id"].endswith(":mc"):
        continue
    kind = r.get("category") or "-"
    found = []
    for title in r.get("evidence") or []:
        for c in by_title.get(normalize_title(title), []):
            body = split_note(undated(c["text"]))[2]
            said = statements(body)
            asked = attributes(r["question"], c["title"])
            for s in said:
                if contains_answer(s, gold):
                    found.append(
                        {
                            "text": s,
                            "asked": len(asked),
                            "own": overlap(asked, s),
                            "other": max([overlap(asked, x) for x in said if x != s] or [0]),
                            "chunk": overlap(asked, body),
                            "table": s.startswith("|"),
                        }
                    )
    if not found:
        questions["no answer sentence"] += 1
        continue
    questions[kind] += 1
    for name, rule in RULES.items():
        if all(rule(s) for s in found):
            fired[name][kind] += 1
            examples[name].append((r["id"], r["question"], found[0]["text"][:110]))
print(data, dict(questions))
answerable = sum(n for k, n in questions.items() if k != "no answer sentence")
for name, by_kind in fired.items():
    print(f"  {name}: {sum(by_kind.values())} of {answerable}", dict(by_kind))
if show:
    for name, found in examples.items():
        print("==", name)
        for x in found[:25]:
            print("  ", x)
