"""Judging off (`judge="off"`): every document is kept, unjudged — plain RAG's view."""

from __future__ import annotations

from typing import Any

from judged_rag.configuration import Configuration
from judged_rag.nodes.judge.common import Judging, OneDocumentJudge, unaligned, written


class Off(OneDocumentJudge):
    """Each document Highly Relevant, `by="unjudged"`, without a call (nor a pre-filter)."""

    batches = False
    prefilters = False

    def calls_per_task(self, cfg: Configuration, *, parsed: bool) -> int:
        """No call."""
        return 0

    def judge_document(self, j: Judging) -> dict[str, Any]:
        """Keep the document."""
        return written(unaligned(j.base, "highly_relevant", "judging off", by="unjudged"), j.cfg)


OFF = Off()
