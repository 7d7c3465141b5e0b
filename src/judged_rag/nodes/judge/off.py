"""Judging off (`judge="off"`): every document is kept, unjudged — plain RAG's view."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from judged_rag.configuration import Configuration
from judged_rag.nodes.judge.common import OneDocumentJudge, base_of, single, unaligned, written
from judged_rag.nodes.step import NodeDeps
from judged_rag.state import JudgeTask, JudgeWindow


class Off(OneDocumentJudge):
    """Each document Highly Relevant, `by="unjudged"`, without a call."""

    batches = False

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """No call."""
        return 0

    def judge(
        self,
        task: JudgeTask | JudgeWindow,
        config: RunnableConfig,
        cfg: Configuration,
        deps: NodeDeps,
    ) -> dict[str, Any]:
        """Keep the document (no pre-filter either: nothing is judged)."""
        one = single(task)
        base = base_of(one["document"], one["iteration"], cfg)
        return written(unaligned(base, "highly_relevant", "judging off", by="unjudged"), cfg)


OFF = Off()
