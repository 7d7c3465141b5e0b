"""parse: the question's syntactic components (GGatrieval), one structured call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import Components
from judged_rag.components.llm import structured_call
from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.nodes._shared import (
    call_context,
    calls_left,
    event,
    exhausted,
    reserve,
    settings,
    structured_method,
)
from judged_rag.prompts import parse as prompt
from judged_rag.schemas import QueryComponents
from judged_rag.state import State

MAX_COMPONENTS = 8


def parse(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    max_attempts: int = 1,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Split the question into components that alignment and rewriting use."""
    cfg = settings(config, runtime, run_settings)
    question = state["question"]
    if not cfg.checks_alignment:
        skipped = "alignment off" if not cfg.alignment else f"the {cfg.judge} judge aligns nothing"
        return {"components": [], "trace": [event("parse", "skipped", why=skipped)]}
    if why := exhausted(state, cfg, keep=reserve(cfg)):
        return {"components": [], "trace": [event("parse", "budget", exhausted=why)]}
    model = components.judge(cfg)
    outcome = structured_call(
        model,
        QueryComponents,
        [SystemMessage(prompt.SYSTEM), HumanMessage(prompt.USER.format(question=question))],
        config=config,
        ctx=call_context(
            "parse",
            runtime,
            max_attempts,
            calls=calls_left(state, cfg) - reserve(cfg),
            redact=run_settings.remote,
        ),
        default=QueryComponents(components=[question]),
        method=structured_method(model, cfg),
    )
    seen: list[str] = []
    for part in outcome.value.components:
        part = part.strip()
        if part and part.lower() not in {s.lower() for s in seen}:
            seen.append(part)
    parts = seen[:MAX_COMPONENTS] or [question]
    return {
        "components": parts,
        "cost": outcome.cost,
        "trace": [*outcome.events, event("parse", "components", components=parts)],
    }
