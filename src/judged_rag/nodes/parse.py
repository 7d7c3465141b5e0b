"""parse: the question's syntactic components (GGatrieval), one structured call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.core.budget import reserve
from judged_rag.core.trace import event
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import parse as prompt
from judged_rag.schemas import QueryComponents
from judged_rag.state import State

MAX_PARTS = 8


def parse(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Split the question into the components that alignment and rewriting use."""
    cfg = deps.configuration(config, runtime)
    question = state["question"]
    if not cfg.checks_alignment:
        skipped = "alignment off" if not cfg.alignment else f"the {cfg.judge} judge aligns nothing"
        return {"query_parts": [], "trace": [event("parse", "skipped", why=skipped)]}
    step = deps.step("parse", state, config, cfg, keep=reserve(cfg))
    if step.exhausted:
        return {"query_parts": [], "trace": [event("parse", "budget", exhausted=step.exhausted)]}
    outcome = step.structured(
        QueryComponents,
        [SystemMessage(prompt.SYSTEM), HumanMessage(prompt.USER.format(question=question))],
        default=QueryComponents(components=[question]),
    )
    parts = _distinct(outcome.value.components)[:MAX_PARTS] or [question]
    return {
        "query_parts": parts,
        "cost": outcome.cost,
        "trace": [*outcome.events, event("parse", "components", components=parts)],
    }


def _distinct(parts: list[str]) -> list[str]:
    """Non-empty parts, each once (case-insensitively), in order."""
    seen: dict[str, str] = {}
    for part in parts:
        part = part.strip()
        if part:
            seen.setdefault(part.lower(), part)
    return list(seen.values())
