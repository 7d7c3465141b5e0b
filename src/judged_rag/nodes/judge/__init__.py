"""judge: one parallel task per (question, document) (RJAG, GGatrieval, SRA).

With the list judge, one task per window of documents instead. Each document gets one
`Judgment`: RJAG's three-level label with a reason, the question
components the document grounds (Full / Partial / No alignment), and SRA's composite
score. With the pre-filter on, clear cases are labelled from the score alone.

Setting `judge` chooses how the LLM is asked: `structured` (a JSON judgment with quoted
evidence and aligned components), `letter` (one output token A/B/C whose probabilities
give the label; no alignment), `extract` (the model copies the answer from the document
or replies NONE; a copy that really is in the document is the evidence), `list` (one
call grades a window of `judge_window` documents, one letter each, read as the letter
judge reads its one), `chunkrag` (ChunkRAG's scoring: a relevance score, the model's
reconsidered score and a critic's score, three calls per document; see below), or `off`
(every document kept unjudged: plain RAG).

The letter, list and extracting judges give a probability that the document states the
answer; it is combined with the retriever's cosine into the judge's score (`judge_score`
= (1 - w) * p + w * cosine, w = `judge_similarity_weight`, unset: the judge's own value,
`JUDGE_SIMILARITY_WEIGHTS`), which `judge_threshold` cuts (unset: the judge's own value,
`JUDGE_THRESHOLDS`).

The ChunkRAG judge's task cannot label its document: the join (`assess`) labels the
round, asking the strategy (`JudgeStrategy.label_round`).

One module per judge (`structured`, `letter`, `extract`, `listwise`, `chunkrag`,
`off`), each a `common.JudgeStrategy`: what a task costs, whether a round may be
judged in batches, how the round is labelled, and the call itself. The graph asks the
run's strategy (`strategies.strategy(cfg)`) instead of testing `cfg.judge`.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.nodes.judge.chunkrag import label_round
from judged_rag.nodes.judge.common import FALLBACK, SEGMENT_FALLBACK, JudgeStrategy, judge_score
from judged_rag.nodes.judge.extract import extract_messages, extraction_label, substantive
from judged_rag.nodes.judge.letter import letter_label
from judged_rag.nodes.judge.listwise import judge_window, list_messages
from judged_rag.nodes.judge.strategies import STRATEGIES, batched, strategy
from judged_rag.nodes.judge.structured import align, claims, listed
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import JudgeTask, JudgeWindow

__all__ = [
    "FALLBACK",
    "SEGMENT_FALLBACK",
    "STRATEGIES",
    "JudgeStrategy",
    "align",
    "batched",
    "claims",
    "extract_messages",
    "extraction_label",
    "judge",
    "judge_score",
    "judge_window",
    "label_round",
    "letter_label",
    "list_messages",
    "listed",
    "strategy",
    "substantive",
]


def judge(
    task: JudgeTask | JudgeWindow,
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    deps: NodeDeps,
) -> dict[str, Any]:
    """Judge one document against the question, or a window of them with the list judge.

    Also callable outside the graph; the list judge takes a single document's task as
    a window of one, and the ChunkRAG judge's label is then the provisional one, by
    `judge_cutoff` (what the join gives a round of one document).
    """
    cfg = deps.configuration(config, runtime)
    chosen = strategy(cfg)
    if "documents" in task and not chosen.windowed:
        raise ValueError(f"a window of documents needs judge='list', not {cfg.judge!r}")
    update = chosen.judge(task, config, cfg, deps)
    if task.get("hop"):
        # Against the hop's first question: it finds a name, it is no support.
        update["judgments"] = [{**j, "hop": True} for j in update.get("judgments") or []]
    return update
