"""The run's budget: LLM calls, tokens, seconds and rounds per question.

A step that may use the calls left keeps back those of the steps that must still run
after it, by name (`Reserve`): SRA's self-check C_M, the answer, its verification, and
for a further retrieval round its rewrite. `kept(cfg, *reserves)` counts them and
`spare(state, cfg, *reserves)` gives what is left beside them, so no step carries an
offset of its own.

The counters live in the run's state, which only the graph writes (the served API
refuses clients' state writes). Should a counter ever be lowered all the same, a
negative count, a start in the future or a value of the wrong type counts as the
budget spent, never as budget regained.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from judged_rag.configuration import Configuration
from judged_rag.state import Cost, add_costs

Reserve = Literal["rewrite", "self_check", "answer", "verification"]
"""A step whose call is kept back: a further round's rewrite, SRA's C_M, the answer, and
the answer's verification (only when `verify` is on)."""
ANSWERING: tuple[Reserve, ...] = ("self_check", "answer", "verification")
"""What every step before the answer keeps back."""


def kept(cfg: Configuration, *reserves: Reserve) -> int:
    """LLM calls kept back for the steps named."""
    return sum(0 if r == "verification" and not cfg.verify else 1 for r in reserves)


def _count(value: Any) -> float | None:
    """A counter's value, or None when it is not a non-negative number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if value >= 0 else None


def charged(state: Any, cost: Cost) -> dict[str, Any]:
    """The state as the budget sees it: what the run spent before, and `cost` since."""
    return {**state, "cost": add_costs(state.get("cost"), cost)}


def calls_left(state: Any, cfg: Configuration) -> int:
    """LLM calls this question may still make."""
    spent = _count((state.get("cost") or {}).get("llm_calls", 0))
    if spent is None:
        return 0
    return max(0, cfg.max_llm_calls - int(spent))


def spare(state: Any, cfg: Configuration, *keep: Reserve) -> int:
    """LLM calls a step may make now: those left, less the `keep` reserves' (never below 0)."""
    return max(0, calls_left(state, cfg) - kept(cfg, *keep))


def rounds_left(state: Any, cfg: Configuration) -> int:
    """Retrieval rounds this question may still start after the current one."""
    iteration = state.get("iteration", 0)
    if isinstance(iteration, bool) or not isinstance(iteration, int) or iteration < 0:
        return 0
    return max(0, cfg.max_iterations - 1 - iteration)


def exhausted(state: Any, cfg: Configuration, *, keep: tuple[Reserve, ...] = ()) -> str | None:
    """The budget that has run out (no call left beyond the `keep` reserves), or None.

    Computed from the run's cost and clock; the `budget_exhausted` flag in state only
    tells the routers that the optional work (judging, rewriting) has to stop.
    """
    if calls_left(state, cfg) <= kept(cfg, *keep):
        return "llm_calls"
    cost = state.get("cost") or {}
    tokens = [_count(cost.get(k, 0)) for k in ("input_tokens", "output_tokens")]
    if None in tokens or (cfg.max_tokens and sum(t or 0 for t in tokens) >= cfg.max_tokens):
        return "tokens"
    started = state.get("started_at")
    if started is not None:
        now = time.time()
        if _count(started) is None or started > now:
            return "seconds"
        if cfg.max_seconds and now - started >= cfg.max_seconds:
            return "seconds"
    return None
