"""Every judge strategy by its setting's name, and what the graph asks of the run's one."""

from __future__ import annotations

from judged_rag.configuration import Configuration
from judged_rag.nodes.judge.chunkrag import CHUNKRAG
from judged_rag.nodes.judge.common import JudgeStrategy
from judged_rag.nodes.judge.extract import EXTRACT
from judged_rag.nodes.judge.letter import LETTER
from judged_rag.nodes.judge.listwise import LISTWISE
from judged_rag.nodes.judge.off import OFF
from judged_rag.nodes.judge.structured import STRUCTURED
from judged_rag.state import Doc, JudgeTask, JudgeWindow

STRATEGIES: dict[str, JudgeStrategy] = {
    "structured": STRUCTURED,
    "letter": LETTER,
    "extract": EXTRACT,
    "list": LISTWISE,
    "chunkrag": CHUNKRAG,
    "off": OFF,
}
"""The judge of each `judge` setting ("auto" is resolved before: `NodeDeps.configuration`)."""


def strategy(cfg: Configuration) -> JudgeStrategy:
    """The run's judge.

    Raises:
        ValueError: `cfg.judge` is unresolved ("auto") or unknown.
    """
    try:
        return STRATEGIES[cfg.judge]
    except KeyError:
        raise ValueError(f"no judge strategy {cfg.judge!r}; resolve 'auto' first") from None


def batched(cfg: Configuration) -> bool:
    """Whether a round's documents are judged `judge_batch` at a time.

    Not with progressive selection (it selects from the whole round), nor with a judge
    that does not batch (the list judge: already one call per window; ChunkRAG's: its
    threshold comes from the whole round's scores; judging off: no call).
    """
    return cfg.judge_batch > 0 and strategy(cfg).batches and cfg.sufficiency != "progressive"


def affordable_documents(
    judge: JudgeStrategy, cfg: Configuration, docs: list[Doc], calls: int, *, parsed: bool
) -> list[Doc]:
    """The first of `docs` that `calls` LLM calls can judge (all of them when judging is free)."""
    made = judge.calls_per_task(cfg, parsed=parsed)
    return docs[: calls // made * judge.documents_per_task(cfg)] if made else docs


def judge_tasks(
    judge: JudgeStrategy,
    cfg: Configuration,
    docs: list[Doc],
    *,
    question: str,
    iteration: int,
    calls: int,
    parts: list[str],
    roles: dict[str, str],
    hop: bool,
) -> list[JudgeTask | JudgeWindow]:
    """One task a document, or a window of documents for a judge that grades several.

    `calls`: what each task may spend, retries included; `roles` and `hop` are set on a
    task only when there are any (a hop's first question finds a name, no support).
    """
    if judge.windowed:
        per_window = judge.documents_per_task(cfg)
        windows: list[JudgeTask | JudgeWindow] = []
        for n in range(0, len(docs), per_window):
            window = JudgeWindow(
                question=question,
                documents=docs[n : n + per_window],
                iteration=iteration,
                window=n // per_window,
                calls=calls,
            )
            if hop:
                window["hop"] = True
            windows.append(window)
        return windows
    tasks: list[JudgeTask | JudgeWindow] = []
    for doc in docs:
        task = JudgeTask(
            question=question, query_parts=parts, document=doc, iteration=iteration, calls=calls
        )
        if roles:
            task["roles"] = roles
        if hop:
            task["hop"] = True
        tasks.append(task)
    return tasks
