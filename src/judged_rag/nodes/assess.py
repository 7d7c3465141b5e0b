"""assess: the join after the judge fan-out; is the support sufficient?

Gathers the judgments of every iteration into D_H / D_S / D_N and decides, from label
and alignment counts or from an LLM verification (LLatrieval's Verify(q, D)), whether
the supporting set is enough. `route_after_assess` turns that into rewrite vs combine.
"""

from __future__ import annotations

import math
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
    numbered,
    reserve,
    settings,
    structured_method,
)
from judged_rag.prompts import assess as prompt
from judged_rag.schemas import SupportCheck
from judged_rag.state import Cost, Doc, Judgment, State, add_costs, zero_cost


def latest_judgments(state: State) -> dict[str, Judgment]:
    """One judgment per document (a later one replaces an earlier one)."""
    return {j["doc_id"]: j for j in state.get("judgments") or []}


def is_supporting(judgment: Judgment) -> bool:
    """Highly Relevant, and Full alignment whenever alignment was checked."""
    return judgment["label"] == "highly_relevant" and judgment["alignment"] in ("full", "unchecked")


def labelled(state: State, label: str) -> list[Doc]:
    """Documents with this label, best composite score first."""
    judged = latest_judgments(state)
    docs = [
        d
        for d in state.get("documents") or []
        if d["id"] in judged and judged[d["id"]]["label"] == label
    ]
    return sorted(docs, key=lambda d: -judged[d["id"]]["composite_score"])


def assess(
    state: State,
    config: RunnableConfig,
    runtime: Runtime[Any],
    *,
    components: Components,
    max_attempts: int = 1,
    run_settings: RunSettings = TRUSTED,
) -> dict[str, Any]:
    """Count the labels, decide sufficiency, and account for the judge rounds."""
    cfg = settings(config, runtime, run_settings)
    iteration = state.get("iteration", 0)
    judged = latest_judgments(state)
    this_round = [j for j in state.get("judgments") or [] if j["iteration"] == iteration]
    llm_judged = sum(1 for j in this_round if j["by"] not in ("prefilter", "unjudged"))
    cost: Cost = zero_cost()
    cost["llm_rounds"] = math.ceil(llm_judged / cfg.judge_concurrency)
    counts = {
        label: sum(1 for j in judged.values() if j["label"] == label)
        for label in ("highly_relevant", "somewhat_relevant", "not_relevant")
    }
    supporting = sum(1 for j in judged.values() if is_supporting(j))
    events = []
    if cfg.sufficiency == "labels":
        sufficient = supporting >= cfg.min_supporting
    else:
        candidates = [*labelled(state, "highly_relevant"), *labelled(state, "somewhat_relevant")]
        candidates = candidates[: cfg.max_knowledge]
        why = exhausted(state, cfg, keep=reserve(cfg))
        if why:
            events.append(event("assess", "budget", exhausted=why))
        if candidates and not why:
            model = components.judge(cfg)
            outcome = structured_call(
                model,
                SupportCheck,
                [
                    SystemMessage(prompt.SYSTEM),
                    HumanMessage(
                        prompt.USER.format(
                            question=state["question"], documents=numbered(candidates)
                        )
                    ),
                ],
                config=config,
                ctx=call_context(
                    "assess",
                    runtime,
                    max_attempts,
                    calls=calls_left(state, cfg) - reserve(cfg),
                    redact=run_settings.remote,
                ),
                default=SupportCheck(sufficient=False),
                method=structured_method(model, cfg),
            )
            sufficient = outcome.value.sufficient
            events.extend(outcome.events)
            cost = {**outcome.cost, "llm_rounds": outcome.cost["llm_rounds"] + cost["llm_rounds"]}
        else:
            sufficient = False
    events.append(
        event(
            "assess",
            "assessed",
            iteration=iteration,
            counts=counts,
            supporting=supporting,
            judged_by_llm=llm_judged,
            sufficient=sufficient,
            by=cfg.sufficiency,
        )
    )
    after = {**state, "cost": add_costs(state.get("cost"), cost)}
    out_of_budget = exhausted(after, cfg, keep=reserve(cfg) + 1)
    if out_of_budget:
        events.append(event("assess", "budget", exhausted=out_of_budget, stops="the rewrite loop"))
    return {
        "sufficient": sufficient,
        "pending": [],
        "budget_exhausted": out_of_budget,
        "cost": cost,
        "trace": events,
    }
