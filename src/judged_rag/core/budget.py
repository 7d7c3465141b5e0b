"""The run's budget: LLM calls, tokens and seconds per question."""

from __future__ import annotations

import time
from typing import Any

from judged_rag.configuration import Configuration


def reserve(cfg: Configuration) -> int:
    """LLM calls kept back for the answer: SRA's C_M, generate, and verify when it is on."""
    return 3 if cfg.verify else 2


def calls_left(state: Any, cfg: Configuration) -> int:
    """LLM calls this question may still make."""
    spent = (state.get("cost") or {}).get("llm_calls", 0)
    return max(0, cfg.max_llm_calls - int(spent))


def exhausted(state: Any, cfg: Configuration, *, keep: int = 0) -> str | None:
    """The budget that has run out (keeping `keep` calls back), or None.

    Computed from the run's cost and clock; the `budget_exhausted` flag in state only
    tells the routers that the optional work (judging, rewriting) has to stop.
    """
    if calls_left(state, cfg) <= keep:
        return "llm_calls"
    cost = state.get("cost") or {}
    if (
        cfg.max_tokens
        and cost.get("input_tokens", 0) + cost.get("output_tokens", 0) >= cfg.max_tokens
    ):
        return "tokens"
    started = state.get("started_at")
    if cfg.max_seconds and started is not None and time.time() - started >= cfg.max_seconds:
        return "seconds"
    return None
