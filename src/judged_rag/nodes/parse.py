"""parse: the question's syntactic components (GGatrieval), one structured call.

With `query_components="typed"` each component also gets its type, one of the paper's
eight (Eq. 1: subject, predicate, object, predicative, attributive, adverbial,
complement, apposition), kept in `query_roles`. A reply with no usable component, typed
or not, leaves the whole question as the one component, and the trace says so.

With the extracting judge, whose judgments align no component, a question that compares
names by a quantity ("Which was founded earlier, X or Y?") gets its alternatives as its
parts, without an LLM call (`Configuration.splits_alternatives`, `core.comparison.compared`).

A yes/no question that asks a value after it ("May I build up extra hours, and up to how
many?", `core.asked.value_clause`) is rewritten, one call, as the value's question ("How
many extra hours can I build up?"), which the judge and the generator answer
(`value_question="first"`, `State.value_question`); not with a hop, whose steps name what
the question asks about first.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from judged_rag.components.llm import read_question
from judged_rag.configuration import Configuration
from judged_rag.core.asked import value_clause
from judged_rag.core.budget import ANSWERING
from judged_rag.core.comparison import compared
from judged_rag.core.trace import event
from judged_rag.nodes.rewrite import plan_hop
from judged_rag.nodes.step import NodeDeps, preceded
from judged_rag.prompts import parse as prompt
from judged_rag.schemas import QueryComponents, TypedComponents
from judged_rag.state import Cost, State, TraceEvent, zero_cost

MAX_PARTS = 8


def parse(
    state: State, config: RunnableConfig, runtime: Runtime[Any], *, deps: NodeDeps
) -> dict[str, Any]:
    """Split the question into the components that alignment and rewriting use."""
    cfg = deps.configuration(config, runtime)
    question = state["question"]
    if cfg.splits_alternatives and (alternatives := compared(question)):
        # No LLM call: the alternatives are the parts each document is asked about.
        return {
            "query_parts": alternatives,
            "trace": [event("parse", "alternatives", components=alternatives)],
        }
    if cfg.hop_questions == "always" and state.get("hop") is None:
        hop, cost, events = plan_hop(state, config, cfg, deps, node="parse")
        if hop is not None:
            # The first round asks the hop's first question; its judge aligns nothing.
            return {
                "hop": hop,
                "queries": [hop["question"]],
                "query_parts": [],
                "cost": cost,
                "trace": events,
            }
        return preceded(_valued(state, config, cfg, deps), cost, events)
    return _valued(state, config, cfg, deps)


def _valued(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> dict[str, Any]:
    """The value's question, when there is one to ask first, then the components."""
    asked, cost, events = value_question(state, config, cfg, deps)
    update = _components(state, config, cfg, deps)
    if asked is not None:
        update["value_question"] = asked
    return preceded(update, cost, events)


def value_question(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> tuple[str | None, Cost, list[TraceEvent]]:
    """One call: a yes/no question that asks a value after it, as that value's question.

    None, with no call, for any other question, with `value_question` not "first", or
    once a run wrote one; None when the reply holds no question (the run goes on with
    the question as written, and the trace says so). Returns the question, the call's
    cost and its trace.
    """
    question = state["question"]
    if (
        cfg.value_question != "first"
        or state.get("value_question")
        or value_clause(question) is None
    ):
        return None, zero_cost(), []
    step = deps.step("parse", state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        stops = event("parse", "budget", exhausted=step.exhausted, stops="value_question")
        return None, zero_cost(), [stops]
    asked = step.reading(
        [SystemMessage(prompt.VALUE_QUESTION), HumanMessage(question)],
        read_question,
        max_tokens=prompt.VALUE_QUESTION_MAX_TOKENS,
        default=None,
    )
    if asked.value is None:
        told = event("parse", "value_question_skipped", why="no question read")
    else:
        told = event("parse", "value_question", asked=asked.value)
    return asked.value, asked.cost, [*asked.events, told]


def _components(
    state: State, config: RunnableConfig, cfg: Configuration, deps: NodeDeps
) -> dict[str, Any]:
    """GGatrieval's syntactic components, typed or not, when the judge aligns them."""
    question = state["question"]
    if not cfg.checks_alignment:
        skipped = "alignment off" if not cfg.alignment else f"the {cfg.judge} judge aligns nothing"
        return {"query_parts": [], "trace": [event("parse", "skipped", why=skipped)]}
    step = deps.step("parse", state, config, cfg, keep=ANSWERING)
    if step.exhausted:
        return {"query_parts": [], "trace": [event("parse", "budget", exhausted=step.exhausted)]}
    user = HumanMessage(prompt.USER.format(question=question))
    if cfg.query_components == "typed":
        typed = step.structured(
            TypedComponents,
            [SystemMessage(prompt.TYPED_SYSTEM), user],
            default=TypedComponents(components=[]),
        )
        roles = typed_roles(typed.value)
        events = list(typed.events)
        if not roles:
            events.append(event("parse", "untyped", why="no typed component read", uses=question))
        parts = list(roles) or [question]
        events.append(event("parse", "components", components=parts, roles=roles))
        return {"query_parts": parts, "query_roles": roles, "cost": typed.cost, "trace": events}
    outcome = step.structured(
        QueryComponents,
        [SystemMessage(prompt.SYSTEM), user],
        default=QueryComponents(components=[question]),
    )
    parts = _distinct(outcome.value.components)[:MAX_PARTS] or [question]
    return {
        "query_parts": parts,
        "cost": outcome.cost,
        "trace": [*outcome.events, event("parse", "components", components=parts)],
    }


def typed_roles(parsed: TypedComponents) -> dict[str, str]:
    """Each distinct component's text and type, in the question's order (first type wins)."""
    roles: dict[str, str] = {}
    for text in _distinct([c.text for c in parsed.components])[:MAX_PARTS]:
        roles[text] = next(c.role for c in parsed.components if c.text.strip() == text)
    return roles


def _distinct(parts: list[str]) -> list[str]:
    """Non-empty parts, each once (case-insensitively), in order."""
    seen: dict[str, str] = {}
    for part in parts:
        part = part.strip()
        if part:
            seen.setdefault(part.lower(), part)
    return list(seen.values())
