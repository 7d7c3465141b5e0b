"""The graph as callers use it: async, streaming, threads, context, schemas."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessageChunk
from langgraph.checkpoint.memory import InMemorySaver

from judged_rag import Components, Configuration, build_graph
from judged_rag.configuration import CLIENT_SETTINGS
from judged_rag.graph.builder import graph as exported_graph
from tests.fakes import components, doc, generator, judge_model, label, scripted_retriever, verdict

SNAPSHOTS = Path(__file__).parent / "snapshots"
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
Q = {"question": "When did Apollo 11 land?"}
# One document per run, so judge order cannot vary; max_concurrency=1 would also
# deadlock stream_mode="messages" (its stream waiter takes the only worker).
CFG: dict[str, Any] = {"configurable": {"gate": False}}


def parts(*answers: str, runs: int = 1) -> Components:
    replies = [
        components("Apollo 11"),
        label("highly_relevant", "Apollo 11"),
        verdict(True, 0.9),
    ] * runs
    return Components(
        chat_model=generator(*answers),
        judge_model=judge_model(*replies),
        retriever=scripted_retriever(*([[APOLLO]] * runs)),
    )


def test_ainvoke_gives_the_same_result_as_invoke() -> None:
    sync = build_graph(parts("In 1969 [1]."), retry_interval=0).invoke(Q, CFG)
    result = asyncio.run(build_graph(parts("In 1969 [1]."), retry_interval=0).ainvoke(Q, CFG))
    assert result["answer"] == sync["answer"] == "In 1969 [1]."
    assert [e["event"] for e in result["trace"]] == [e["event"] for e in sync["trace"]]


def test_only_the_answer_streams_as_tokens() -> None:
    graph = build_graph(parts("Apollo 11 landed in 1969 [1]."), retry_interval=0)
    chunks = []
    for message, meta in graph.stream(Q, CFG, stream_mode="messages"):
        chunks.append((meta["langgraph_node"], message))
    assert chunks, "no tokens streamed"
    assert {node for node, _ in chunks} == {"generate"}
    assert all(isinstance(m, AIMessageChunk) for _, m in chunks)
    assert len(chunks) > 3  # token by token, not one block
    assert "".join(str(m.content) for _, m in chunks) == "Apollo 11 landed in 1969 [1]."


def test_node_updates_stream_in_order() -> None:
    graph = build_graph(parts("In 1969 [1]."), retry_interval=0)
    nodes = [next(iter(update)) for update in graph.stream(Q, CFG, stream_mode="updates")]
    assert nodes == [
        "start",
        "gate",
        "parse",
        "retrieve",
        "judge",
        "assess",
        "combine",
        "integrate",
        "generate",
        "verify",
        "finish",
    ]


def test_second_run_on_a_thread_resets_per_run_state() -> None:
    graph = build_graph(
        parts("In 1969 [1].", "In 1969 [1].", runs=2),
        checkpointer=InMemorySaver(),
        retry_interval=0,
    )
    config = {**CFG, "configurable": {**CFG["configurable"], "thread_id": "t1"}}
    first = graph.invoke({**Q, "options": None}, config)
    second = graph.invoke(Q, config)
    assert first["cost"]["llm_calls"] == second["cost"]["llm_calls"] == 5
    assert len(second["trace"]) == len(first["trace"])
    state = graph.get_state(config).values
    assert len(state["judgments"]) == 1 and len(state["documents"]) == 1
    assert state["iteration"] == 0 and state["regenerations"] == 0


def test_options_do_not_leak_into_the_next_run_on_a_thread() -> None:
    p = Components(
        chat_model=generator("B", "In 1969 [1]."),
        judge_model=judge_model(
            components("x"),
            label("highly_relevant", "x"),
            verdict(True, 0.9),
            components("x"),
            label("highly_relevant", "x"),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([APOLLO], [APOLLO]),
    )
    graph = build_graph(p, checkpointer=InMemorySaver(), retry_interval=0)
    config = {**CFG, "configurable": {**CFG["configurable"], "thread_id": "t2"}}
    closed = graph.invoke({"question": "Which year?", "options": ["1968", "1969"]}, config)
    assert closed["route"]["task_type"] == "closed" and closed["answer"] == "1969"
    opened = graph.invoke(Q, config)
    assert opened["route"]["task_type"] == "open"


def test_context_and_configurable_are_equivalent() -> None:
    via_configurable = build_graph(parts("x [1]."), retry_interval=0).invoke(
        Q, {"configurable": {"gate": False, "max_knowledge": 1}}
    )
    via_context = build_graph(parts("x [1]."), retry_interval=0).invoke(
        Q, context=Configuration(gate=False, max_knowledge=1)
    )
    assert via_context["route"] == via_configurable["route"]
    assert via_context["route"]["gate"] == "retrieve"


def test_exported_graph_builds_without_keys_and_has_no_checkpointer() -> None:
    assert exported_graph.checkpointer is None
    assert exported_graph.name == "judged_rag"


def _snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {name}; create it with UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed; rerun with UPDATE_SNAPSHOTS=1 if intended"
    )


def test_mermaid_snapshot() -> None:
    _snapshot("graph.mmd", exported_graph.get_graph().draw_mermaid())


def _schema(model: Any) -> str:
    return json.dumps(model, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_input_output_and_config_schema_snapshots() -> None:
    _snapshot("input_schema.json", _schema(exported_graph.get_input_jsonschema()))
    _snapshot("output_schema.json", _schema(exported_graph.get_output_jsonschema()))
    _snapshot("context_schema.json", _schema(build_graph().get_context_jsonschema()))
    _snapshot("client_context_schema.json", _schema(exported_graph.get_context_jsonschema()))


def test_context_schema_has_descriptions_and_choices() -> None:
    props = build_graph().get_context_jsonschema()["properties"]
    assert all(p.get("description") for p in props.values()), [
        k for k, p in props.items() if not p.get("description")
    ]
    assert len(props["open_strategy"]["enum"]) == 8
    assert props["web_search"]["enum"] == [
        "auto",
        "offline_wikipedia",
        "tavily",
        "duckduckgo",
        "none",
    ]


def test_served_graph_shows_clients_only_what_they_may_set() -> None:
    props = exported_graph.get_context_jsonschema()["properties"]
    assert set(props) == set(CLIENT_SETTINGS)
    assert all(p.get("description") for p in props.values())
    assert {"model", "base_url", "index_dir", "database_url", "web_search"}.isdisjoint(props)
    assert "may only be lowered" in props["top_k"]["description"]


class InFlight(BaseCallbackHandler):
    """Counts chat-model calls running at the same time (LangChain callbacks)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        with self.lock:
            self.now -= 1


@pytest.mark.parametrize("limit", [1, 2, 4])
def test_judge_concurrency_caps_parallel_judge_calls(limit: int) -> None:
    docs = [doc(f"d{i}", f"Fact {i} about Apollo 11.") for i in range(6)]
    # FakeListChatModel has no tool calling: the judge reads its JSON text (tolerant path).
    judge = FakeListChatModel(responses=['{"label": "highly_relevant", "aligned": []}'], sleep=0.15)
    p = Components(
        chat_model=generator("x [1]."),
        judge_model=judge,
        retriever=scripted_retriever(docs),
    )
    counter = InFlight()
    graph = build_graph(p, retry_interval=0)
    out = graph.invoke(
        Q,
        {
            "callbacks": [counter],
            "configurable": {
                "gate": False,
                "alignment": False,
                "verify": False,
                "judge_concurrency": limit,
                "judge_batch": 0,  # all six at once: the cap, not the batch, limits them
            },
        },
    )
    assert len([e for e in out["trace"] if e["event"] == "judged"]) == 6
    assert counter.most == limit
    # judge rounds, C_M, generate (FakeListChatModel answers C_M with its one JSON text,
    # three attempts: an unreadable letter, so the model's own knowledge is not trusted)
    assert out["cost"]["llm_rounds"] == -(-6 // limit) + 3 + 1
