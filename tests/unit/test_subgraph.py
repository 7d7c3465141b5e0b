"""judged-rag inside a parent agent (examples/subgraph_agent.py), with LangChain's fakes."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from judged_rag import Components, build_graph
from judged_rag.graph.builder import Graph
from tests.fakes import (
    PerSchemaFakeChatModel,
    components,
    doc,
    keywords,
    label,
    rewrite,
    scripted_retriever,
    verdict,
)

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Paris is the capital of France [1]."
PARIS = doc("paris", "Paris is the capital of France.")
EUROPE = doc("europe", "France is a country in Europe.")
QUESTION = "What is the capital of France?"
# Both documents only Somewhat Relevant: the open strategy then asks for the web, so the
# trace shows whether web_search="none" arrived, and max_knowledge=1 cuts D_S to one.
RAG_SETTINGS = {"max_knowledge": 1, "web_search": "none"}
BASE = {"gate": False, "max_iterations": 1}


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "subgraph_agent", ROOT / "examples" / "subgraph_agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and TypedDicts resolve their module
    spec.loader.exec_module(module)
    return module


example = load_example()


def rag(*, pause_before_generate: bool = False) -> tuple[Graph, RunnableLambda[str, Any]]:
    """judged-rag on fakes (no checkpointer), and its retriever (which records queries)."""
    judge = PerSchemaFakeChatModel(
        messages=iter([]),
        scripts={
            "QueryComponents": [components(["capital", "France"])],
            "RelevanceJudgment": [label("somewhat_relevant", "capital")],
            "QueryRewrite": [rewrite("French capital")],
            "SearchQuery": [keywords("capital of France")],
            "Verification": [verdict(True, 0.9)],
        },
    )
    retriever = scripted_retriever([PARIS, EUROPE])
    parts = Components(
        chat_model=GenericFakeChatModel(messages=itertools.cycle([AIMessage(ANSWER)])),
        judge_model=judge,
        retriever=retriever,  # type: ignore[arg-type]
    )
    graph = build_graph(parts, retry_interval=0)
    if pause_before_generate:
        graph = graph.copy(update={"interrupt_before_nodes": ["generate"]})
    return graph, retriever


def thread(name: str, **configurable: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": name, **BASE, **configurable}}


def namespaces(saver: Any, thread_id: str) -> set[str]:
    configs = saver.list({"configurable": {"thread_id": thread_id}})
    return {c.config["configurable"]["checkpoint_ns"] for c in configs}


def has(trace: list[dict[str, Any]], node: str, event: str) -> bool:
    return any(e["node"] == node and e["event"] == event for e in trace)


def web_off(trace: list[dict[str, Any]]) -> bool:
    """web_search="none" arrived: the combination says so and no search was asked for."""
    combined = [e for e in trace if (e["node"], e["event"]) == ("combine", "combined")]
    return (
        bool(combined)
        and combined[-1]["detail"].get("web") == "off"
        and not any(e["node"] == "web_search" for e in trace)
    )


# --- (a) shared keys --------------------------------------------------------------------


@pytest.mark.parametrize("via", ["configurable", "context"])
def test_direct_agent_shares_keys_and_passes_parent_settings_down(via: str) -> None:
    graph, retriever = rag()
    agent = example.build_direct_agent(graph, checkpointer=InMemorySaver())
    if via == "configurable":
        out = agent.invoke({"request": f"Q: {QUESTION}"}, thread("a", **RAG_SETTINGS))
    else:
        # A context replaces `configurable` as a whole (get_configuration), so it carries all.
        config = {"configurable": {"thread_id": "a"}}
        out = agent.invoke({"request": f"Q: {QUESTION}"}, config, context={**BASE, **RAG_SETTINGS})
    assert out["question"] == QUESTION  # parent key -> judged-rag input
    assert retriever.queries == [QUESTION]  # type: ignore[attr-defined]
    assert out["answer"] == ANSWER  # judged-rag output -> parent keys
    assert [c["doc_id"] for c in out["citations"]] == ["paris"]
    assert out["reply"] == f"{ANSWER}\n[1] paris (kb/paris.md)"
    assert out["route"]["knowledge"] == 1  # max_knowledge=1 arrived
    assert web_off(out["trace"])  # web_search="none" arrived


def test_direct_agent_checkpoints_the_subgraph_and_resumes_it_without_rerunning() -> None:
    graph, retriever = rag(pause_before_generate=True)
    saver = InMemorySaver()
    agent = example.build_direct_agent(graph, checkpointer=saver)
    config = thread("b", **RAG_SETTINGS)
    paused = agent.invoke({"request": QUESTION}, config)
    assert "answer" not in paused

    state = agent.get_state(config, subgraphs=True)
    assert state.next == ("judged_rag",)
    (task,) = state.tasks
    sub = task.state
    assert sub is not None and not isinstance(sub, dict)
    assert sub.next == ("generate",)  # paused inside judged-rag, by the parent's saver
    assert len(sub.values["judgments"]) == 2
    assert sub.config["configurable"]["checkpoint_ns"].startswith("judged_rag:")
    assert any(ns.startswith("judged_rag:") for ns in namespaces(saver, "b"))

    done = agent.invoke(None, config)
    assert done["answer"] == ANSWER and done["route"]["knowledge"] == 1
    assert retriever.queries == [QUESTION]  # type: ignore[attr-defined]  # not retrieved again
    assert sum(e["event"] == "judged" for e in done["trace"]) == 2  # judged once each
    assert agent.get_state(config).next == ()


# --- (b) wrapper node -------------------------------------------------------------------


def test_chat_agent_maps_messages_and_its_own_context() -> None:
    graph, retriever = rag()
    saver = InMemorySaver()
    agent = example.build_chat_agent(graph, checkpointer=saver)
    config = thread("c")
    context = example.AgentContext(knowledge_limit=1, allow_web=False)
    out = agent.invoke({"messages": [HumanMessage(QUESTION)]}, config, context=context)
    reply = out["messages"][-1]
    assert isinstance(reply, AIMessage)
    assert reply.text == f"{ANSWER}\n[1] paris (kb/paris.md)"
    assert [c["doc_id"] for c in out["sources"]] == ["paris"]
    assert [r["knowledge"] for r in out["routes"]] == [1]  # knowledge_limit -> max_knowledge

    out = agent.invoke({"messages": [HumanMessage("And of Spain?")]}, config, context=context)
    assert len(out["messages"]) == 4 and len(out["routes"]) == 2
    assert retriever.queries == [QUESTION, "And of Spain?"]  # type: ignore[attr-defined]
    subruns = sorted(ns for ns in namespaces(saver, "c") if ns.startswith("ask:"))
    assert len(subruns) == 2  # one judged-rag run per question, in the parent's thread
    for ns in subruns:
        saved = saver.get_tuple({"configurable": {"thread_id": "c", "checkpoint_ns": ns}})
        assert saved is not None
        trace = saved.checkpoint["channel_values"]["trace"]
        assert web_off(trace)  # allow_web=False -> web_search="none"


def test_chat_agent_pauses_inside_judged_rag_and_resumes_from_sqlite(tmp_path: Path) -> None:
    graph, retriever = rag(pause_before_generate=True)
    config = thread("d")
    context = example.AgentContext(knowledge_limit=1, allow_web=False)
    db = str(tmp_path / "agent.sqlite")
    with SqliteSaver.from_conn_string(db) as saver:
        agent = example.build_chat_agent(graph, checkpointer=saver)
        agent.invoke({"messages": [HumanMessage(QUESTION)]}, config, context=context)
        state = agent.get_state(config, subgraphs=True)
        assert state.next == ("ask",)
        sub = state.tasks[0].state
        assert sub is not None and not isinstance(sub, dict)
        assert sub.next == ("generate",)
        assert web_off(sub.values["trace"])

    # A new saver and a new parent on the same file: the paused judged-rag run goes on.
    with SqliteSaver.from_conn_string(db) as saver:
        agent = example.build_chat_agent(graph, checkpointer=saver)
        out = agent.invoke(None, config, context=context)
    assert out["messages"][-1].text.startswith(ANSWER)
    assert [r["knowledge"] for r in out["routes"]] == [1]
    assert retriever.queries == [QUESTION]  # type: ignore[attr-defined]


def test_example_builds_with_default_components_and_no_checkpointer_of_its_own() -> None:
    agent = example.build_direct_agent()
    node = agent.builder.nodes["judged_rag"].runnable
    assert node.checkpointer is None  # inherits the parent's
    assert example.build_chat_agent().checkpointer is None
