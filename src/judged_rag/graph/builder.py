"""Assemble the judged-RAG workflow as one LangGraph `StateGraph`.

START → gate ─┬─ parse → retrieve → judge ×N → assess ─┬─ rewrite → retrieve
              │                                         └─ combine ─┬─ web_search → combine
              └─────────────────────────────────────────────────────┴─ generate → verify ─┬─ END
                                                                         ↑ (bounded) ──────┘
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from judged_rag.components import Components
from judged_rag.components.llm import llm_retry_policy
from judged_rag.configuration import Configuration
from judged_rag.graph.routing import (
    route_after_assess,
    route_after_combine,
    route_after_gate,
    route_after_retrieve,
    route_after_verify,
)
from judged_rag.nodes.assess import assess
from judged_rag.nodes.combine import combine
from judged_rag.nodes.gate import gate
from judged_rag.nodes.generate import generate
from judged_rag.nodes.judge import judge
from judged_rag.nodes.parse import parse
from judged_rag.nodes.retrieve import retrieve
from judged_rag.nodes.rewrite import rewrite
from judged_rag.nodes.verify import verify
from judged_rag.nodes.web_search import web_search
from judged_rag.state import InputState, OutputState, State

Graph = CompiledStateGraph[State, Configuration, InputState, OutputState]


def build_graph(
    components: Components | None = None,
    *,
    checkpointer: BaseCheckpointSaver[Any] | bool | None = None,
    store: BaseStore | None = None,
    max_attempts: int = 3,
    retry_interval: float = 0.5,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    name: str = "judged_rag",
) -> Graph:
    """Build and compile the workflow.

    Args:
        components: Models, retriever, web search and gate index; anything left `None`
            is built lazily from each run's configuration.
        checkpointer: Persistence for threads (leave `None` for the LangGraph server,
            which brings its own).
        store: Optional LangGraph store.
        max_attempts: Attempts per LLM node (the first included) before its recorded
            safe default is used.
        retry_interval: Seconds before the first retry (doubles each time, jittered).
        interrupt_before: Nodes to pause before (needs a checkpointer), e.g. ["generate"].
        interrupt_after: Nodes to pause after, e.g. ["assess"] to inspect the judgments.
        name: Name of the compiled graph (as a subgraph, in traces).
    """
    parts = components or Components()
    retry = llm_retry_policy(max_attempts=max_attempts, initial_interval=retry_interval)

    def bind(node: Callable[..., dict[str, Any]], **extra: Any) -> Any:
        # Components (and the attempt limit the node compares with) are injected here;
        # LangGraph still passes state, config and runtime.
        return partial(node, components=parts, **extra)

    builder = StateGraph(
        State, context_schema=Configuration, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("gate", bind(gate))
    builder.add_node("parse", bind(parse, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("retrieve", bind(retrieve))
    builder.add_node("judge", bind(judge, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("assess", bind(assess, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("rewrite", bind(rewrite, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("combine", cast(Any, combine))  # needs no components
    builder.add_node("web_search", bind(web_search, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("generate", bind(generate, max_attempts=max_attempts), retry_policy=retry)
    builder.add_node("verify", bind(verify, max_attempts=max_attempts), retry_policy=retry)

    builder.add_edge(START, "gate")
    builder.add_conditional_edges("gate", route_after_gate, ["parse", "generate"])
    builder.add_edge("parse", "retrieve")
    builder.add_conditional_edges("retrieve", route_after_retrieve, ["judge", "assess"])
    builder.add_edge("judge", "assess")
    builder.add_conditional_edges("assess", route_after_assess, ["rewrite", "combine"])
    builder.add_edge("rewrite", "retrieve")
    builder.add_conditional_edges("combine", route_after_combine, ["web_search", "generate"])
    builder.add_edge("web_search", "combine")
    builder.add_edge("generate", "verify")
    builder.add_conditional_edges("verify", route_after_verify, ["generate", END])
    return builder.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        name=name,
    )


graph = build_graph()
"""The default workflow (no checkpointer), as served by `langgraph.json`."""
