"""The generator alone on documents the judge labelled Highly Relevant, for questions it
declined in a whole run: the same system prompt and user message `generate` writes,
one call each, question wording and documents varied.
usage: python probes.py SEED8_INDEX   (PYTHONPATH picks the code, JUDGED_RAG_HOME the model)"""
import json
import sys

from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.cli import ask_components
from judged_rag.configuration import Configuration
from judged_rag.core.documents import numbered
from judged_rag.prompts import generate as prompt

index = sys.argv[1]
cfg = Configuration(index_dir=index)
parts = ask_components(cfg)
generator = parts.generator(cfg)
chunks = {c["id"]: c for c in json.load(open(f"{index}/chunks.json"))["kept"]}
BADGE, MEAL, OVERTIME = "84a06d836e850d52", "0905dbb0086487ab", "718d7fe0bcb2b9a0"
SEED6_STUDY_LEAVE = {  # seed 6's training-budget page, its "Study leave" section as a chunk
    "title": "Training budget",
    "content": "[Context: dated 2024-11-03]\nTraining budget\nStudy leave\nTraining is agreed in "
    "the yearly development talk. Courses costing more than 750 euros need the approval of "
    "the head of department. Unused budget is not carried over to the next year.",
}


def doc(chunk_id: str) -> dict:
    c = chunks[chunk_id]
    return {"title": c["title"], "content": c["text"]}


def top5(question: str, first: str) -> list[dict]:
    found = parts.retriever.invoke(question)[:5]
    ids = [d.id or d.metadata.get("chunk_id") for d in found]
    assert ids[0] == first, ids  # the judged document is the retriever's first
    return [{"title": d.metadata.get("title", ""), "content": d.page_content} for d in found]


LOWER_BADGE = "at bakigram instruments, how much does a replacement badge cost?"
SEED6 = "above what cost does a course need the head of department's approval?"
PROBES = [
    ("the judged document alone", LOWER_BADGE, [doc(BADGE)]),
    ("the judged document alone", "At Bakigram Instruments, how much does a replacement badge cost?", [doc(BADGE)]),
    ("the judged document alone", "At bakigram instruments, how much does a replacement badge cost?", [doc(BADGE)]),
    ("the judged document alone", "at Bakigram Instruments, how much does a replacement badge cost?", [doc(BADGE)]),
    ("the judged document alone", "how much does a replacement badge cost?", [doc(BADGE)]),
    ("the retriever's top 5", LOWER_BADGE, top5(LOWER_BADGE, BADGE)),
    ("the judged document alone", "What is the daily meal allowance when travelling?", [doc(MEAL)]),
    ("the retriever's top 5", "What is the daily meal allowance when travelling?",
     top5("What is the daily meal allowance when travelling?", MEAL)),
    ("the judged document alone", "Tell me who approves overtime.", [doc(OVERTIME)]),
    ("the judged document alone", "Who approves overtime?", [doc(OVERTIME)]),
    ("the retriever's top 5", "Tell me who approves overtime.",
     top5("Tell me who approves overtime.", OVERTIME)),
    ("seed 6's chunk alone", f"at dileik building systems, {SEED6}", [SEED6_STUDY_LEAVE]),
    ("seed 6's chunk alone", f"At dileik building systems, {SEED6}", [SEED6_STUDY_LEAVE]),
    ("seed 6's chunk alone", f"At Dileik Building Systems, {SEED6}", [SEED6_STUDY_LEAVE]),
    ("seed 6's chunk alone", SEED6[0].upper() + SEED6[1:], [SEED6_STUDY_LEAVE]),
]
for shown, question, docs in PROBES:
    user = prompt.USER.format(documents=numbered(docs), question=question, options="")
    reply = generator.invoke([SystemMessage(prompt.OPEN_WITH_KNOWLEDGE), HumanMessage(user)])
    print(f"{shown} | {question} -> {str(reply.content)[:160]!r}", flush=True)
