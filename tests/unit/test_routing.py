"""Table-driven tests of every router."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.types import Send

from judged_rag.components import Components
from judged_rag.core.budget import ANSWERING, kept
from judged_rag.graph.routing import (
    route_after_assess,
    route_after_combine,
    route_after_gate,
    route_after_integrate,
    route_after_retrieve,
    route_after_verify,
)
from judged_rag.nodes.step import NodeDeps


@pytest.mark.parametrize(
    ("gate_route", "expected"),
    [("retrieve", "parse"), ("direct", "integrate"), (None, "integrate")],
)
def test_route_after_gate(gate_route: str | None, expected: str) -> None:
    assert route_after_gate({"question": "q", "gate_route": gate_route}) == expected  # type: ignore[typeddict-item]


def _doc(i: str) -> dict[str, Any]:
    return {
        "id": i,
        "content": i,
        "title": i,
        "source": "",
        "origin": "kb",
        "reliability": "B",
        "similarity": None,
        "scores": {},
        "iteration": 0,
    }


@pytest.mark.parametrize(
    ("pending", "expected_ids"),
    [([], None), (["a"], ["a"]), (["a", "c"], ["a", "c"]), (["missing"], None)],
)
def test_route_after_retrieve(pending: list[str], expected_ids: list[str] | None) -> None:
    state = {
        "question": "q",
        "query_parts": ["q"],
        "iteration": 2,
        "pending": pending,
        "documents": [_doc("a"), _doc("b"), _doc("c")],
    }
    result = route_after_retrieve(state, {})  # type: ignore[arg-type]
    if expected_ids is None:
        assert result == "assess"
        return
    assert isinstance(result, list) and all(
        isinstance(s, Send) and s.node == "judge" for s in result
    )
    assert [s.arg["document"]["id"] for s in result] == expected_ids
    assert all(s.arg["iteration"] == 2 and s.arg["query_parts"] == ["q"] for s in result)


@pytest.mark.parametrize(
    ("spent", "max_llm_calls", "verify", "judged"),
    [
        (0, 100, True, 3),  # plenty: every new document
        (0, 5, True, 2),  # 5 calls, 3 kept for C_M + generate + verify
        (0, 5, False, 3),  # 5 calls, 2 kept for C_M + generate
        (2, 5, True, 0),  # nothing left beyond the answer's calls: straight to assess
        (10, 5, True, 0),
    ],
)
def test_route_after_retrieve_judges_only_what_the_budget_allows(
    spent: int, max_llm_calls: int, verify: bool, judged: int
) -> None:
    state = {
        "question": "q",
        "pending": ["a", "b", "c"],
        "documents": [_doc("a"), _doc("b"), _doc("c")],
        "cost": {"llm_calls": spent},
    }
    config = {"configurable": {"max_llm_calls": max_llm_calls, "verify": verify}}
    result = route_after_retrieve(state, config)  # type: ignore[arg-type]
    if judged == 0:
        assert result == "assess"
    else:
        assert [s.arg["document"]["id"] for s in result] == ["a", "b", "c"][:judged]


def test_route_after_retrieve_stops_when_a_budget_ran_out() -> None:
    state = {
        "question": "q",
        "pending": ["a"],
        "documents": [_doc("a")],
        "budget_exhausted": "seconds",
    }
    assert route_after_retrieve(state, {}) == "assess"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sufficient", "iteration", "max_iterations", "expected"),
    [
        (True, 0, 4, "combine"),
        (False, 0, 4, "rewrite"),
        (False, 2, 4, "rewrite"),
        (False, 3, 4, "combine"),
        (False, 0, 1, "combine"),
        (False, 9, 4, "combine"),
    ],
)
def test_route_after_assess(
    sufficient: bool, iteration: int, max_iterations: int, expected: str
) -> None:
    state = {"question": "q", "sufficient": sufficient, "iteration": iteration}
    config = {"configurable": {"max_iterations": max_iterations}}
    assert route_after_assess(state, config) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("basis", "expected"),
    [
        ("retrieval", "generate"),
        ("combined", "generate"),
        ("model", "generate"),
        ("none", "finish"),
    ],
)
def test_route_after_integrate(basis: str, expected: str) -> None:
    assert route_after_integrate({"question": "q", "basis": basis}) == expected  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("needs_web", "web_searched", "expected"),
    [
        (True, False, "web_search"),
        (True, True, "integrate"),
        (False, False, "integrate"),
        (False, True, "integrate"),
    ],
)
def test_route_after_combine(needs_web: bool, web_searched: bool, expected: str) -> None:
    state = {"question": "q", "needs_web": needs_web, "web_searched": web_searched}
    assert route_after_combine(state) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdict", "regenerations", "limit", "expected"),
    [
        ("accept", 0, 1, "finish"),
        ("abstain", 1, 1, "finish"),
        ("regenerate", 1, 1, "generate"),
        ("regenerate", 2, 1, "finish"),
        ("regenerate", 1, 0, "finish"),
    ],
)
def test_route_after_verify(verdict: str, regenerations: int, limit: int, expected: str) -> None:
    state = {"question": "q", "verdict": verdict, "regenerations": regenerations}
    config = {"configurable": {"max_regenerations": limit}}
    assert route_after_verify(state, config) == expected  # type: ignore[arg-type]


def test_routers_read_context_as_well_as_configurable() -> None:
    class Runtime:
        context: ClassVar[dict[str, int]] = {"max_iterations": 1}

    state = {"question": "q", "sufficient": False, "iteration": 0}
    assert route_after_assess(state, {}, Runtime()) == "combine"  # type: ignore[arg-type]


def test_routers_budget_with_the_judge_the_nodes_run() -> None:
    # judge="auto" with an injected judge model is the structured judge (Components.judge_kind);
    # with reflection each document costs two calls. Routers once resolved settings
    # without "auto" resolved, and so sent twice the documents the budget allows.
    deps = NodeDeps(components=Components(judge_model=GenericFakeChatModel(messages=iter([]))))
    docs = [_doc(str(i)) for i in range(6)]
    state: Any = {
        "question": "q",
        "documents": docs,
        "pending": [d["id"] for d in docs],
        "query_parts": ["a", "b"],
        "cost": {"llm_calls": 0},
    }
    config: Any = {
        "configurable": {
            "reflection": True,
            "alignment": True,
            "judge_batch": 0,
            "max_llm_calls": 7,
        }
    }
    resolved = deps.configuration(config, None)
    assert resolved.judge == "structured" and resolved.reflects
    sends = route_after_retrieve(state, config, deps=deps)
    affordable = resolved.max_llm_calls - kept(resolved, *ANSWERING)
    assert isinstance(sends, list) and len(sends) == affordable // 2 == 2
