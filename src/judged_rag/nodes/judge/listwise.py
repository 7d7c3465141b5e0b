"""The list judge (`judge="list"`): one call grades a window of `judge_window` documents.

Each document gets one letter, read as the letter judge reads its one (P(A) at its
letter's token, combined with the cosine).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig

from judged_rag.configuration import Configuration
from judged_rag.core.documents import titled
from judged_rag.core.trace import event
from judged_rag.nodes.judge.common import (
    FALLBACK,
    OneDocumentJudge,
    base_of,
    judged_event,
    prefiltered,
    single,
)
from judged_rag.nodes.judge.letter import from_letter
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import judge as prompt
from judged_rag.state import Cost, Doc, JudgeTask, JudgeWindow, Judgment, zero_cost


class Listwise(OneDocumentJudge):
    """One call a window of documents; a task is a window."""

    windowed = True
    batches = False

    def documents_per_task(self, cfg: Configuration) -> int:
        """A window's documents."""
        return cfg.judge_window

    def judge(
        self,
        task: JudgeTask | JudgeWindow,
        config: RunnableConfig,
        cfg: Configuration,
        deps: NodeDeps,
    ) -> dict[str, Any]:
        """Grade the window (a single document's task is a window of one)."""
        if "documents" in task:
            return judge_window(task, config, cfg, deps=deps)
        one = single(task)
        window = JudgeWindow(
            question=one["question"],
            documents=[one["document"]],
            iteration=one["iteration"],
            window=0,
        )
        if "calls" in one:
            window["calls"] = one["calls"]
        return judge_window(window, config, cfg, deps=deps)


LISTWISE = Listwise()


def judge_window(
    task: JudgeWindow, config: RunnableConfig, cfg: Configuration, *, deps: NodeDeps
) -> dict[str, Any]:
    """The list judge: one call grades every document of the window that needs the LLM.

    Each document gets its own `Judgment` and `judged` event, labelled as the letter
    judge labels (P(A) read at its letter's token, combined with the cosine). A document
    the reply gives no readable letter for gets the recorded safe default; a failed call
    gives it to every document the call was for.
    """
    slots: list[Judgment | None] = []
    asked: list[tuple[Doc, dict[str, Any]]] = []
    for doc in task["documents"]:
        base = base_of(doc, task["iteration"], cfg)
        decided = prefiltered(base, doc, cfg)
        slots.append(decided)
        if decided is None:
            asked.append((doc, base))
    cost: Cost = zero_cost()
    events: list[Any] = []
    graded: list[Judgment] = []
    if asked:
        step = deps.step("judge", task, config, cfg, calls=task.get("calls"))
        with deps.components.judge_slots(cfg.judge_concurrency):
            outcome = step.letter_list(
                list_messages(task["question"], [doc for doc, _ in asked]),
                list(prompt.LETTERS),
                len(asked),
                max_tokens=prompt.LIST_TOKENS_PER_DOCUMENT * len(asked),
                default=FALLBACK.model_dump(),
                count_round=False,  # the join counts one round per window
            )
        cost, events = outcome.cost, list(outcome.events)
        choices = outcome.value or [None] * len(asked)
        for position, ((doc, base), choice) in enumerate(zip(asked, choices, strict=True), 1):
            judgment = from_letter(base, choice, cfg, doc["similarity"])
            judgment["window"] = task["window"]
            judgment["reason"] = f"position {position} of {len(asked)}: {judgment['reason']}"
            if choice is None and not outcome.fallback:
                events.append(
                    event(
                        "judge",
                        "fallback",
                        doc_id=doc["id"],
                        error="no readable letter for its number in the reply",
                        position=position,
                        default=FALLBACK.model_dump(),
                    )
                )
            graded.append(judgment)
    remaining = iter(graded)
    judgments = [j if j is not None else next(remaining) for j in slots]
    return {
        "judgments": judgments,
        "cost": cost,
        "trace": [*events, *(judged_event(j, cfg) for j in judgments)],
    }


def list_messages(question: str, docs: list[Doc]) -> list[BaseMessage]:
    """The list judge's messages: the instructions, then the question and numbered documents."""
    documents = "\n".join(
        prompt.LIST_DOCUMENT.format(number=n, document=titled(doc))
        for n, doc in enumerate(docs, start=1)
    )
    user = prompt.LIST_USER.format(question=question, documents=documents)
    return [SystemMessage(prompt.LIST_SYSTEM), HumanMessage(user)]
