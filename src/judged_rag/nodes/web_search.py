"""web_search: keyword query to the injected search backend (RJAG).

Reached only when the combination strategy needs K_W. The question is rewritten into
keywords; results become documents with their source and reliability grade, the most
authoritative first. A missing or failing backend is recorded and the run goes on
without web knowledge.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components import Components
from judged_rag.components.llm import structured_call
from judged_rag.configuration import TRUSTED, RunSettings
from judged_rag.errors import error_detail
from judged_rag.nodes._shared import (
    GRADES,
    call_context,
    calls_left,
    event,
    exhausted,
    reserve,
    settings,
    structured_method,
    to_doc,
)
from judged_rag.prompts import web_search as prompt
from judged_rag.schemas import SearchQuery
from judged_rag.state import State, TraceEvent, zero_cost


def web_search(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    max_attempts: int = 1,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Search the web for the question and keep the results as K_W."""
    cfg = settings(config, runtime, run_settings)
    question = state["question"]
    events: list[TraceEvent] = []
    out: dict[str, Any] = {"web_searched": True, "web_results": [], "needs_web": False}
    try:
        backend = components.web(cfg)
    except Exception as exc:
        events.append(
            event(
                "web_search",
                "error",
                **error_detail(exc, redact=run_settings.remote, where="web_search"),
            )
        )
        return {**out, "trace": events}
    if backend is None:
        events.append(event("web_search", "skipped", why="no web-search backend configured"))
        return {**out, "trace": events}
    cost = zero_cost()
    if why := exhausted(state, cfg, keep=reserve(cfg)):
        # No keyword rewrite: the question itself is the query.
        query = question
        events.append(event("web_search", "budget", exhausted=why))
    else:
        model = components.judge(cfg)
        outcome = structured_call(
            model,
            SearchQuery,
            [SystemMessage(prompt.SYSTEM), HumanMessage(prompt.USER.format(question=question))],
            config=config,
            ctx=call_context(
                "web_search",
                runtime,
                max_attempts,
                calls=calls_left(state, cfg) - reserve(cfg),
                redact=run_settings.remote,
            ),
            default=SearchQuery(query=question),
            method=structured_method(model, cfg),
        )
        query = outcome.value.query.strip() or question
        events.extend(outcome.events)
        cost = outcome.cost
    try:
        found = backend.invoke(query, config)
    except Exception as exc:
        events.append(
            event(
                "web_search",
                "error",
                query=query,
                **error_detail(exc, redact=run_settings.remote, where="web_search"),
            )
        )
        return {**out, "cost": cost, "trace": events}
    iteration = state.get("iteration", 0)
    docs = [to_doc(d, origin="web", iteration=iteration, reliability="F") for d in found]
    docs = [d for d in docs if d["content"].strip()][: cfg.web_k]
    docs.sort(key=lambda d: -GRADES[d["reliability"]])  # stable: backend rank within a grade
    events.append(
        event(
            "web_search",
            "searched",
            query=query,
            results=len(docs),
            sources=[d["source"] for d in docs],
        )
    )
    return {**out, "web_results": docs, "cost": cost, "trace": events}
