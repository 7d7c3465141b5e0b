"""Assemble the judged-RAG workflow as one LangGraph `StateGraph`.

START → start → gate ─┬─ parse → retrieve → judge ×N → assess ─┬─ rewrite → retrieve
                      │                                         ├─ select ─┬─ rewrite
                      │                                         │          └─ combine
                      │                                         └─ combine ─┬─ web_search
                      │                                                     │   → combine
                      └─────────────────────────────────────────────────────┴─ integrate
    integrate ─┬─ generate → verify ─┬─ finish → END
               │                     ├─ generate (bounded)
               │                     └─ judge (after a decline, once)
               └─ finish ("Unknown": SRA trusts neither the documents nor the model)

`select` runs only with `sufficiency="progressive"` (GGatrieval's Algorithm 1: re-rank,
progressive selection, Verify). `start` checks the input and the settings and resets
the run; `finish` turns the
verdict into the output and closes the accounting. Every node is given the same
`NodeDeps` (components, where settings come from, LLM retries); LLM calls retry within
the call (`components.llm`), so no node carries a `RetryPolicy`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial, wraps
from typing import Any, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from judged_rag.components import Components
from judged_rag.components.llm import Retries
from judged_rag.configuration import ClientSettings, Configuration, RunSettings
from judged_rag.graph.routing import (
    route_after_assess,
    route_after_combine,
    route_after_gate,
    route_after_integrate,
    route_after_retrieve,
    route_after_select,
    route_after_verify,
)
from judged_rag.nodes.assess import assess
from judged_rag.nodes.combine import combine
from judged_rag.nodes.finish import finish
from judged_rag.nodes.gate import gate
from judged_rag.nodes.generate import generate
from judged_rag.nodes.integrate import integrate
from judged_rag.nodes.judge import judge
from judged_rag.nodes.parse import parse
from judged_rag.nodes.retrieve import retrieve
from judged_rag.nodes.rewrite import rewrite
from judged_rag.nodes.select import select
from judged_rag.nodes.start import start
from judged_rag.nodes.step import NodeDeps
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
    settings: Mapping[str, Any] | None = None,
    remote: bool = False,
) -> Graph:
    """Build and compile the workflow.

    Args:
        components: Models, retriever, web search and gate index; anything left `None`
            is built lazily from each run's configuration.
        checkpointer: Persistence for threads (leave `None` for the LangGraph server,
            which brings its own).
        store: Optional LangGraph store.
        max_attempts: Attempts per LLM call (the first included) before its recorded
            safe default is used.
        retry_interval: Seconds before an LLM call's first retry (doubles each time,
            jittered).
        interrupt_before: Nodes to pause before (needs a checkpointer), e.g. ["generate"].
        interrupt_after: Nodes to pause after, e.g. ["assess"] to inspect the judgments.
        name: Name of the compiled graph (as a subgraph, in traces).
        settings: The operator's settings (preset and values) under every run's own.
        remote: Every run's settings come from untrusted clients (a server's): they may
            tune quality settings and lower budgets, but not name a model, endpoint,
            path, store or backend, nor raise a budget (`client_configuration`). The
            graph then takes `ClientSettings` as its context schema.

    Raises:
        ValueError: `settings` are not valid settings.
    """
    deps = NodeDeps(
        components=components or Components(),
        settings=RunSettings(base=dict(settings or {}), remote=remote),
        retries=Retries(attempts=max_attempts, interval=retry_interval),
    )

    def bind(node: Callable[..., dict[str, Any]]) -> Any:
        # LangGraph still passes state, config and runtime; the rest is injected here.
        return partial(node, deps=deps)

    def route(router: Callable[..., Any]) -> Any:
        # Routers resolve a run's settings as the nodes do (NodeDeps.configuration).
        return wraps(router)(partial(router, deps=deps))

    context_schema = ClientSettings if remote else Configuration
    builder = StateGraph(
        State, context_schema=context_schema, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("start", bind(start))
    builder.add_node("gate", bind(gate))
    builder.add_node("parse", bind(parse))
    builder.add_node("retrieve", bind(retrieve))
    builder.add_node("judge", bind(judge))
    builder.add_node("assess", bind(assess))
    builder.add_node("select", bind(select))
    builder.add_node("rewrite", bind(rewrite))
    builder.add_node("combine", bind(combine))
    builder.add_node("web_search", bind(web_search))
    builder.add_node("integrate", bind(integrate))
    builder.add_node("generate", bind(generate))
    builder.add_node("verify", bind(verify))
    builder.add_node("finish", finish)

    builder.add_edge(START, "start")
    builder.add_edge("start", "gate")
    builder.add_conditional_edges("gate", route_after_gate, ["parse", "integrate"])
    builder.add_edge("parse", "retrieve")
    builder.add_conditional_edges("retrieve", route(route_after_retrieve), ["judge", "assess"])
    builder.add_edge("judge", "assess")
    builder.add_conditional_edges(
        "assess", route(route_after_assess), ["judge", "select", "rewrite", "combine"]
    )
    builder.add_conditional_edges("select", route(route_after_select), ["rewrite", "combine"])
    builder.add_edge("rewrite", "retrieve")
    builder.add_conditional_edges(
        "combine", route_after_combine, ["web_search", "integrate", "finish"]
    )
    builder.add_conditional_edges(
        "integrate", route_after_integrate, ["generate", "finish", "parse"]
    )
    builder.add_edge("web_search", "combine")
    builder.add_edge("generate", "verify")
    builder.add_conditional_edges(
        "verify", route(route_after_verify), ["judge", "assess", "generate", "finish"]
    )
    builder.add_edge("finish", END)
    compiled = builder.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        name=name,
    )
    return cast(Graph, compiled)


graph = build_graph(remote=True)
"""The workflow `langgraph.json` serves: default components, no checkpointer (the server
brings its own), and every run's settings treated as a remote client's (`remote=True`).
In-process, build your own with `build_graph()`; an operator serving other settings
points `langgraph.json` at a module of theirs holding `build_graph(settings=..., remote=True)`.
"""
