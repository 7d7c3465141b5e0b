"""Embed judged-rag in your own LangGraph agent, two ways.

(a) Shared keys (`build_direct_agent`): the compiled judged-rag graph is itself a node of
    the parent. The parent's state has judged-rag's keys, so `question` flows in and
    `answer`, `citations`, `abstained`, `basis`, `route`, `trace` flow back out. Settings
    reach judged-rag through the parent's `config["configurable"]`, which LangGraph hands
    down to subgraphs unchanged.

(b) Wrapper node (`build_chat_agent`): a node of the parent maps the parent's own state
    (a chat history in `messages`) to judged-rag's input, calls it, and maps the result
    back (an `AIMessage` with numbered sources). It also maps the parent's own context
    (`AgentContext`) to judged-rag's `Configuration` and passes it as `context=`.

In both, only the parent has a checkpointer. judged-rag is built without one and
inherits the parent's, so its steps are checkpointed in the parent's thread under the
namespace `<node name>:<task id>`: `parent.get_state(config, subgraphs=True)` shows a
paused judged-rag run, and `parent.invoke(None, config)` resumes it where it stopped.

Run it (needs the model named in the settings; e.g. `--model openai:gpt-4o-mini` with
OPENAI_API_KEY set, or the bundled local model):

    python examples/subgraph_agent.py "When did Apollo 11 land?" --mode chat
    python examples/subgraph_agent.py "When did Apollo 11 land?" --sqlite /tmp/agent.db

The tests in `tests/unit/test_subgraph.py` run both agents on LangChain's fakes.
"""

from __future__ import annotations

import argparse
import operator
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Annotated, Any, cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import NotRequired, TypedDict

from judged_rag import Configuration, build_graph
from judged_rag.graph.builder import Graph
from judged_rag.state import Basis, Citation, RouteSummary, TraceEvent

# --- (a) judged-rag as a node, sharing keys --------------------------------------------


class DirectState(TypedDict):
    """The parent's state: its own keys plus judged-rag's input and output keys."""

    request: str
    """What the user typed (the parent's own key)."""
    question: NotRequired[str]
    answer: NotRequired[str]
    citations: NotRequired[list[Citation]]
    abstained: NotRequired[bool]
    basis: NotRequired[Basis]
    route: NotRequired[RouteSummary]
    trace: NotRequired[list[TraceEvent]]
    """judged-rag's trace of the latest question (replaced, not accumulated)."""
    reply: NotRequired[str]


def prepare(state: DirectState) -> dict[str, Any]:
    """Turn the user's request into judged-rag's `question`."""
    return {"question": state["request"].strip().removeprefix("Q:").strip()}


def reply(state: DirectState) -> dict[str, Any]:
    """Write the parent's reply from judged-rag's output keys."""
    if state.get("abstained"):
        return {"reply": "I could not find a trustworthy answer to that."}
    return {"reply": with_sources(state.get("answer", ""), state.get("citations") or [])}


def build_direct_agent(
    rag: Graph | None = None, *, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """(a) A parent graph with the compiled judged-rag graph as its `judged_rag` node.

    Args:
        rag: judged-rag built without a checkpointer (default: `build_graph()`).
        checkpointer: The parent's persistence; judged-rag's steps are saved in it too.
    """
    builder = StateGraph(DirectState)
    builder.add_node("prepare", prepare)
    builder.add_node("judged_rag", rag or build_graph())
    builder.add_node("reply", reply)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "judged_rag")
    builder.add_edge("judged_rag", "reply")
    builder.add_edge("reply", END)
    return builder.compile(checkpointer=checkpointer, name="direct_agent")


# --- (b) judged-rag behind a wrapper node -------------------------------------------


@dataclass
class AgentContext:
    """The parent's own run settings, mapped onto judged-rag's `Configuration`."""

    knowledge_limit: int = 5
    """Most documents judged-rag hands to its generator."""
    allow_web: bool = True
    """Whether judged-rag may search the web when its knowledge base is not enough."""


class ChatState(TypedDict):
    """A chat agent's state, with nothing in common with judged-rag's."""

    messages: Annotated[list[AnyMessage], add_messages]
    sources: NotRequired[list[Citation]]
    routes: NotRequired[Annotated[list[RouteSummary], operator.add]]
    """judged-rag's route summary for every question asked in this thread."""


def rag_settings(context: AgentContext | None, config: RunnableConfig) -> Configuration:
    """judged-rag's settings: the caller's `configurable`, then the parent's context."""
    base = Configuration.from_mapping(config.get("configurable") or {})
    ctx = context or AgentContext()
    return base.replace(
        max_knowledge=ctx.knowledge_limit,
        web_search=base.web_search if ctx.allow_web else "none",
    )


def build_chat_agent(
    rag: Graph | None = None, *, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """(b) A chat agent whose `ask` node calls judged-rag and maps state both ways.

    Args:
        rag: judged-rag built without a checkpointer (default: `build_graph()`).
        checkpointer: The parent's persistence; judged-rag's steps are saved in it too.
    """
    graph = rag or build_graph()

    def ask(
        state: ChatState, config: RunnableConfig, runtime: Runtime[AgentContext]
    ) -> dict[str, Any]:
        question = next(
            (m.text for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), ""
        )
        # Passing the node's `config` makes this a subgraph run: same thread, same
        # checkpointer, callbacks and streaming included.
        result = graph.invoke(
            {"question": question}, config, context=rag_settings(runtime.context, config)
        )
        citations = result.get("citations") or []
        text = (
            "I could not find a trustworthy answer to that."
            if result.get("abstained")
            else with_sources(result.get("answer", ""), citations)
        )
        update: dict[str, Any] = {"messages": [AIMessage(text)], "sources": citations}
        if "route" in result:
            update["routes"] = [result["route"]]
        return update

    builder = StateGraph(ChatState, context_schema=AgentContext)
    # LangGraph's node protocols have no (state, config, runtime) variant; it runs fine.
    builder.add_node("ask", cast(Any, ask))
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=checkpointer, name="chat_agent")


def with_sources(answer: str, citations: Sequence[Citation]) -> str:
    """The answer followed by its numbered sources."""
    lines = [answer] + [f"[{c['number']}] {c['title']} ({c['source']})" for c in citations]
    return "\n".join(lines)


# --- command line -----------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Ask one question through either agent."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("question")
    parser.add_argument("--mode", choices=["direct", "chat"], default="direct")
    parser.add_argument("--model", help="judged-rag's chat model, e.g. openai:gpt-4o-mini")
    parser.add_argument("--sqlite", metavar="PATH", help="checkpoint to this SQLite file")
    parser.add_argument("--thread", default="example", help="thread id (resume with --sqlite)")
    args = parser.parse_args(argv)

    configurable: dict[str, Any] = {"thread_id": args.thread}
    if args.model:
        configurable["model"] = args.model
    config: RunnableConfig = {"configurable": configurable}
    with ExitStack() as stack:
        checkpointer: BaseCheckpointSaver[Any]
        if args.sqlite:
            from langgraph.checkpoint.sqlite import SqliteSaver

            checkpointer = stack.enter_context(SqliteSaver.from_conn_string(args.sqlite))
        else:
            checkpointer = InMemorySaver()
        if args.mode == "direct":
            agent = build_direct_agent(checkpointer=checkpointer)
            out = agent.invoke({"request": args.question}, config)
            print(out["reply"])
        else:
            agent = build_chat_agent(checkpointer=checkpointer)
            out = agent.invoke(
                {"messages": [HumanMessage(args.question)]},
                config,
                context=AgentContext(knowledge_limit=3),
            )
            print(out["messages"][-1].text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
