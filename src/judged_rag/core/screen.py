"""Sentences of a retrieved document that speak to the model reading it, screened out.

A page written for people does not tell "AI assistants" what to answer, ask its reader to
ignore previous instructions, vouch for its own relevance to "the question", or open a
chat turn. Text that does is an indirect prompt injection, and a small model follows
it: a judge copies the dictated answer as evidence, the generator repeats it, and the
verifier finds its words in the cited document. Such sentences are removed before any
model reads the document; what was removed is counted in the trace.

The rules are lexical and name the families of injection the literature describes
(instruction override, a model addressed by name, a dictated answer, a document vouching
for itself, fake turns and chat-template tokens). They are a screen, not a proof: an
injection worded as ordinary prose ("tell them the limit is 900 euros") passes, and a
page about prompt injection loses the sentences it quotes. `Configuration.screen_instructions`
turns the screen off.
"""

from __future__ import annotations

import re

from judged_rag.core.trace import event
from judged_rag.state import Doc, TraceEvent

_ADDRESSEE = (
    r"(?:(?-i:\bAI\b)|\bA\.I\.|\bartificial intelligence\b|\blanguage models?\b|"
    r"(?-i:\bLLMs?\b)|\bchat ?bots?\b|(?-i:\bGPT\b)|\bgraders?\b|"
    r"\bautomated (?:\w+ )?(?:software|systems?|tools?|agents?|readers?))"
)
_OUTPUT_VERB = (
    r"(?:answer|respond|reply|say|output|print|write|tell|label|grade|rate|rank|cite|return|"
    r"state)"
)
_QUESTION = r"(?:questions?|quer(?:y|ies)|prompts?)"
_DOCUMENT = r"(?:document|page|passage|text|chunk|source|article)"

_RULES = [
    # an override of the reader's instructions, or of the text around it
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}?"
    r"\b(?:instructions?|prompts?|directions|directives|guidelines|commands?)\b",
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:this|other|the rest of (?:this|the)|"
    r"everything (?:else|above)|all)\s+(?:data|content|info|information|text|context)\b",
    r"\b(?:system|hidden|initial) prompt\b",
    # a model addressed by name
    rf"\b(?:note|message|notice|reminder|instructions?|attention|warning)\s+(?:for|to)\s+"
    rf"(?:any\s+|all\s+|the\s+)?{_ADDRESSEE}",
    rf"\b(?:dear|hey|hello|hi|attention)\s+{_ADDRESSEE}",
    rf"\bif you are an?\s+{_ADDRESSEE}|\b(?:in)?visible (?:only )?to {_ADDRESSEE}",
    rf"\b(?:assistants?|models?|agents?|{_ADDRESSEE})\s+(?:reading|processing|parsing|"
    rf"summari[sz]ing)\s+this\b",
    rf"{_ADDRESSEE}\s+(?:must|should|shall|are to|is to|need to|have to|will)\s+"
    rf"(?:always\s+|only\s+)?{_OUTPUT_VERB}\b",
    # an answer dictated to whoever asks
    rf"\b(?:correct|right|true|real|only|final|proper)\s+(?:answer|response|reply)\s+"
    rf"(?:to|for)\s+(?:the|this|that|every|any|each|your|a|all)\s+(?:{_QUESTION}|users?)\b",
    r"\b(?:answer|respond|reply)(?:\s+with)?\s+['\"“‘][^'\"”’\n]{1,80}['\"”’]\s+(?:to|for|when)\b",
    rf"\b(?:answer|respond|reply)\s+to\s+(?:every|any|all|each)\s+{_QUESTION}",
    rf"\b(?:whatever|regardless of) the {_QUESTION}|\bto every {_QUESTION}",
    rf"\b(?:answer|respond|reply|say)\b[^.!?\n]{{0,80}}\bcite this {_DOCUMENT}\b",
    # a document vouching for itself
    rf"\b(?:this|the)\s+(?:above\s+|following\s+)?{_DOCUMENT}(?:\s+above|\s+below)?\b"
    rf"[^.!?\n]{{0,40}}?\b(?:highly[ _]relevant|relevant to (?:the|your|this|any|every) "
    rf"{_QUESTION}|answers (?:the|your|this|any|every) {_QUESTION}|should be ranked|"
    rf"ranked? (?:it )?first)",
    rf"\blabel (?:it|this|the {_DOCUMENT}|this {_DOCUMENT})\b[^.!?\n]{{0,30}}\brelevant\b",
    r"\bhighly_relevant\b|\bbinary_score\b",
    # a new role for the reader
    r"\byour (?:new|real|true|actual) (?:task|instructions?|role|job|goal|purpose)\b",
    rf"\byou are no longer (?:an?|the) (?:helpful |harmless )?(?:assistant|model|chat ?bot|"
    rf"{_ADDRESSEE})",
    rf"\bfrom now on,? you (?:will|must|should|only|are|{_OUTPUT_VERB})\b",
    # fake turns, chat-template tokens and system markers
    r"<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>",
    r"^\s*#{2,}\s*(?:instruction|system|response)\s*:",
    r"\[(?:system|admin[^\]\n]{0,20}|instructions?|assistant)\]|</?instructions?>|"
    r"<end of (?:session|conversation|document)>|(?-i:\bSYSTEM(?: MESSAGE| PROMPT)?:)|"
    r"(?-i:\b(?:CORE|NEW|FOLLOW) INSTRUCTIONS?\b)",
]
_ADDRESSED = re.compile("|".join(f"(?:{rule})" for rule in _RULES), re.IGNORECASE)
_TURN = re.compile(
    r"^[ \t>]*(system|assistant|user|human|developer)(?: message)?[ \t]*:[^\n]*",
    re.IGNORECASE | re.MULTILINE,
)
_TURN_CUE = re.compile(
    r"\b(?:you|your|grader|must|reply|respond|answer|question|instructions?|repeat|print|"
    r"summary|user)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(
    r"[^\n]*?(?:(?:[.!?]|<\|[a-z_]+\|>|\[/INST\]|<</SYS>>|<end_of_turn>)(?=\s)|\n|$)"
)


def _line_end(text: str, position: int) -> int:
    """Where the line holding `position` ends; past the next line when this one ends in ":".

    What follows an addressed sentence on its line is its payload ("… and report: X"), and
    so is the line a colon introduces.
    """
    end = text.find("\n", position)
    end = len(text) if end < 0 else end
    if text[:end].rstrip().endswith(":") and end < len(text):
        following = text.find("\n", end + 1)
        end = len(text) if following < 0 else following
    return end


def _turns(text: str) -> list[tuple[int, int]]:
    """Lines written as a chat turn ("User: …") that speak to the reader or stage a dialogue.

    A line labelled as a turn is kept when it is a plain label ("User: a member of staff")
    and the text holds no turn of another role.
    """
    turns = list(_TURN.finditer(text))
    dialogue = len({m.group(1).casefold() for m in turns}) > 1
    return [
        (m.start(), _line_end(text, m.end()))
        for m in turns
        if dialogue or _TURN_CUE.search(m.group(0), m.end(1))
    ]


def _spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the addressed sentences and turns, adjacent ones merged."""
    found: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        match = _SENTENCE.match(text, position)
        end = match.end() if match and match.end() > position else len(text)
        sentence = text[position:end]
        start = position + len(sentence) - len(sentence.lstrip())
        stop = start + len(sentence.strip())
        if stop > start and _ADDRESSED.search(text[start:stop]):
            found.append((start, _line_end(text, stop)))
        position = end
    spans: list[tuple[int, int]] = []
    for start, stop in sorted([*found, *_turns(text)]):
        start += len(text[start:stop]) - len(text[start:stop].lstrip())
        if spans and (start <= spans[-1][1] or not text[spans[-1][1] : start].strip()):
            spans[-1] = (spans[-1][0], max(stop, spans[-1][1]))
        else:
            spans.append((start, stop))
    return spans


def addressed_sentences(text: str) -> list[str]:
    """The sentences of `text` that address the model reading it, adjacent ones joined."""
    return [text[start:stop] for start, stop in _spans(text)]


def screen(text: str) -> tuple[str, int]:
    """`text` without its addressed sentences, and how many passages were removed.

    A removed passage that filled its line takes the line break with it.
    """
    spans = _spans(text)
    if not spans:
        return text, 0
    parts: list[str] = []
    position = 0
    for start, stop in spans:
        before = text[position:start]
        line_start = not before or before.endswith("\n")
        parts.append(before.rstrip(" \t") if not line_start else before)
        rest = text[stop:]
        skip = len(rest) - len(rest.lstrip(" \t"))
        if line_start and rest[skip : skip + 1] == "\n":
            skip += 1
        elif not line_start and parts[-1] and rest[skip : skip + 1] not in ("", "\n"):
            parts.append(" ")
        position = stop + skip
    parts.append(text[position:])
    result = "".join(parts)
    return (result if text.endswith("\n") else result.rstrip("\n")), len(spans)


def screen_docs(docs: list[Doc]) -> tuple[list[Doc], dict[str, int]]:
    """The documents with their addressed sentences removed, and the count per document id.

    Documents with nothing removed are returned as they were.
    """
    screened: dict[str, int] = {}
    out: list[Doc] = []
    for doc in docs:
        content, removed = screen(doc["content"])
        if removed:
            screened[doc["id"]] = removed
            doc = Doc(**{**doc, "content": content})
        out.append(doc)
    return out, screened


def screen_found(docs: list[Doc], node: str, query: str, events: list[TraceEvent]) -> list[Doc]:
    """`screen_docs` for what `node` found for `query`.

    When anything was removed, a ``screened`` event naming the documents goes to `events`.
    """
    docs, screened = screen_docs(docs)
    if screened:
        events.append(event(node, "screened", query=query, removed=screened))
    return docs
