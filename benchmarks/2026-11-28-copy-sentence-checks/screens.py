"""What the copy-sentence screens share: the question's attribute words, first-round judgments.

A question's attribute words are its content words (`core.citations.content_words`)
without the chunk title's words, its names (capitalised words after the first), the
`generic` question words given, and, with `skip_how`, the adjective after "how" ("how
long"). A text's word matches one of them when equal, or when one is a prefix of the
other from four letters on ("meet", "meets").
"""

import re

from judged_rag.core.citations import content_words
from judged_rag.core.quotes import words

HOW = re.compile(r"\bhow\s+(\w+)", re.I)


def same_word(a, b):
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short[: max(4, len(short) - 1)])


def attributes(question, title, generic, *, skip_how=False):
    title_words = set(words(title).split())
    names = {w.lower() for w in re.findall(r"\b[A-Z][\w-]*", question)[1:]}
    hows = {w.lower() for w in HOW.findall(question)} if skip_how else set()
    return {
        w
        for w in content_words(question)
        if w not in title_words
        and w not in names
        and w not in generic
        and w not in hows
        and not w.isdigit()
    }


def overlap(asked, text):
    said = content_words(text)
    return sum(any(same_word(a, s) for s in said) for a in asked)


def first_round_judged(trace):
    """The judged events' details of a traced run's first round, one per chunk, in order."""
    seen = set()
    for e in trace:
        d = e["detail"]
        if e["event"] == "retrieved" and d.get("iteration", 0) > 0:
            return
        if e["event"] == "judged" and d["doc_id"] not in seen:
            seen.add(d["doc_id"])
            yield d
