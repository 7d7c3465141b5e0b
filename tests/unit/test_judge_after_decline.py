"""After the generator declines, the retrieved documents not judged yet are judged (once)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from judged_rag import Components, Configuration, build_graph
from judged_rag.graph.routing import route_after_combine
from judged_rag.nodes.verify import _reopened
from judged_rag.state import State
from tests.fakes import (
    doc,
    generator,
    judge_model,
    quote,
    scripted_retriever,
    state_doc,
    verdict,
)

LEAVERS = doc("leavers", "Leavers must return their laptops within 5 working days.")
PHONES = doc("phones", "A company phone is issued to staff who travel often.")
CYCLE = doc("cycle", "From July 2025 the laptop replacement cycle is 5 years.")
QUESTION = "How often are laptops replaced?"


def run(drafts: list[str], *judgments: AIMessage, **settings: Any) -> dict[str, Any]:
    parts = Components(
        chat_model=generator(*drafts),
        judge_model=judge_model(*judgments, verdict()),
        retriever=scripted_retriever([LEAVERS, CYCLE, PHONES]),
    )
    graph = build_graph(parts, retry_interval=0)
    configurable = {
        "gate": False,
        "judge": "extract",
        "judge_batch": 1,
        "max_iterations": 1,
        "web_search": "none",
        **settings,
    }
    config = {"max_concurrency": 1, "configurable": configurable}
    return graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type,return-value]


def events(out: dict[str, Any], node: str, name: str) -> list[dict[str, Any]]:
    return [e["detail"] for e in out["trace"] if (e["node"], e["event"]) == (node, name)]


SURE = {"5": 0.95, "NONE": 0.05}


def test_a_decline_is_followed_by_judging_the_next_documents_and_a_new_draft() -> None:
    # The first batch passes the leavers' rule; the generator finds no cycle in it.
    out = run(
        ["I don't know.", "Laptops are replaced every 5 years [1]."],
        quote("5 working days", **SURE),
        quote("5 years", **SURE),
        judge_after_decline=True,
    )
    assert not out["abstained"] and "5 years" in out["answer"]
    assert events(out, "verify", "reopened") == [{"unjudged": 2}]
    judged = [e["doc_id"] for e in events(out, "judge", "judged")]
    assert judged == ["leavers", "cycle"]  # one batch more: the best-ranked unjudged
    assert out["route"]["reopened"] is True
    assert [c["doc_id"] for c in out["citations"]] == ["cycle"]


def test_without_the_setting_a_decline_is_the_answer() -> None:
    out = run(["I don't know."], quote("5 working days", **SURE), judge_after_decline=False)
    assert out["abstained"] and out["reason"] == "model_declined"
    assert not events(out, "verify", "reopened") and "reopened" not in out["route"]
    assert len(events(out, "judge", "judged")) == 1


def test_new_judgments_that_leave_the_knowledge_as_it_was_end_the_run() -> None:
    # Neither document left is relevant: each batch is judged until none is left, and the
    # generator would read what it declined on, so no second draft is asked for (a
    # second one would exhaust the scripted replies).
    out = run(
        ["I don't know."],
        quote("5 working days", **SURE),
        quote("NONE", NONE=0.9),
        quote("NONE", NONE=0.9),
        judge_after_decline=True,
        max_iterations=2,
    )
    assert out["abstained"] and out["reason"] == "model_declined"
    assert out["route"]["reopened"] is True
    assert len(events(out, "generate", "generated")) == 1
    assert [e["doc_id"] for e in events(out, "judge", "judged")] == [
        "leavers",
        "cycle",
        "phones",
    ]
    assert len(events(out, "rewrite", "queries")) == 0  # no new round either


def test_a_decline_reopens_the_judging_once() -> None:
    # The new document is passed, and the generator declines again: that decline stands.
    out = run(
        ["I don't know.", "I don't know."],
        quote("5 working days", **SURE),
        quote("5 years", **SURE),
        judge_after_decline=True,
    )
    assert out["abstained"] and out["reason"] == "model_declined"
    assert len(events(out, "verify", "reopened")) == 1
    assert len(events(out, "generate", "generated")) == 2


def test_nothing_left_to_judge_or_no_budget_keeps_the_decline() -> None:
    parts = Components(
        chat_model=generator("I don't know."),
        judge_model=judge_model(quote("5 working days", **SURE)),
        retriever=scripted_retriever([LEAVERS]),
    )
    graph = build_graph(parts, retry_interval=0)
    configurable = {"gate": False, "judge": "extract", "max_iterations": 1}
    config = {"configurable": {**configurable, "judge_after_decline": True}}
    out = graph.invoke({"question": QUESTION}, config)  # type: ignore[arg-type]
    assert out["abstained"] and not events(out, "verify", "reopened")
    # Documents unjudged, but no call left for a judgment besides the answer's.
    out = run(
        ["I don't know."],
        quote("5 working days", **SURE),
        judge_after_decline=True,
        max_llm_calls=4,
    )
    assert out["abstained"] and not events(out, "verify", "reopened")


def test_routing_after_a_reopened_combination_is_pure() -> None:
    knowledge = [{"id": "leavers"}]
    state: Any = {
        "reopened": True,
        "verdict": "reopen",
        "declined_knowledge": ["leavers"],
        "knowledge": knowledge,
    }
    assert route_after_combine(State(**state)) == "finish"
    state["knowledge"] = [{"id": "cycle"}, {"id": "leavers"}]
    assert route_after_combine(State(**state)) == "integrate"
    state["verdict"] = "accept"
    state["knowledge"] = knowledge
    assert route_after_combine(State(**state)) == "integrate"


def test_the_latest_rounds_documents_are_judged_first() -> None:
    # Round 0 retrieved for the hop's first question ("Who is the head of X?"); round 1
    # for the question as then asked: its documents are the ones to read next.
    docs = [
        {**state_doc(name, name), "iteration": round_}
        for name, round_ in [("a", 0), ("b", 0), ("c", 1), ("d", 1)]
    ]
    state: Any = {"documents": docs, "judgments": [], "cost": {"llm_calls": 3}}
    cfg = Configuration(judge_after_decline=True)
    reopened = _reopened(State(**state), cfg, "retrieval", [], {})  # type: ignore[arg-type]
    assert reopened is not None and reopened["pending"] == ["c", "d", "a", "b"]
    assert _reopened(State(**state), cfg, "model", [], {}) is None  # type: ignore[arg-type]
    state["reopened"] = True
    assert _reopened(State(**state), cfg, "retrieval", [], {}) is None  # type: ignore[arg-type]
