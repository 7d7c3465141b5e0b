"""Budgets and input checks hold even if a run's state were written from outside.

The served API refuses clients' state writes (`http_guard.ClientPolicy`); this is the
second line: the writes a hostile client made on the unguarded server (a lowered call
counter, a negative iteration, a start in the future, a 200,000-character question) are
replayed here in process with `Command(update=..., goto=...)` on a checkpointed thread.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from judged_rag import build_graph
from judged_rag.configuration import Configuration
from judged_rag.core.budget import ANSWERING, calls_left, exhausted, rounds_left, spare
from judged_rag.errors import InvalidInputError
from tests.integration.server_graph import INJECTED_STATE, TAMPERED_STATE, fake_components

SETTINGS = {"max_llm_calls": 20, "max_iterations": 2}
QUESTION = {"question": "What is the capital of France?"}


class CountCalls(BaseCallbackHandler):
    """Counts chat-model calls of a run."""

    def __init__(self) -> None:
        self.calls = 0

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: Any, *, run_id: UUID, **kw: Any
    ) -> None:
        self.calls += 1


def graph_on_a_thread() -> tuple[Any, dict[str, Any]]:
    graph = build_graph(
        fake_components(), retry_interval=0, settings=SETTINGS, checkpointer=InMemorySaver()
    )
    config: dict[str, Any] = {"configurable": {"thread_id": "t"}, "max_concurrency": 1}
    graph.invoke(QUESTION, config)
    return graph, config


def test_a_lowered_counter_counts_as_spent_not_as_regained() -> None:
    graph, config = graph_on_a_thread()
    counter = CountCalls()
    out = graph.invoke(
        Command(update=TAMPERED_STATE, goto="rewrite"), {**config, "callbacks": [counter]}
    )
    # Unguarded, this made 167 calls against a limit of 20 on the served graph.
    assert counter.calls == 0
    assert out["abstained"] is True


def test_a_question_written_into_state_is_checked_again_where_it_is_used() -> None:
    graph, config = graph_on_a_thread()
    with pytest.raises(InvalidInputError, match="200000 characters"):
        graph.invoke(Command(update=INJECTED_STATE, goto="generate"), config)


CFG = Configuration(max_llm_calls=20, max_iterations=3, max_seconds=60, max_tokens=1000)


@pytest.mark.parametrize(
    ("state", "calls", "rounds", "spent"),
    [
        ({"cost": {"llm_calls": 5}, "iteration": 1, "started_at": 0.0}, 15, 1, "seconds"),
        ({"cost": {"llm_calls": -100000}}, 0, 2, "llm_calls"),
        ({"cost": {"llm_calls": "5"}}, 0, 2, "llm_calls"),
        ({"cost": {"llm_calls": 1, "input_tokens": -(10**9)}}, 19, 2, "tokens"),
        ({"iteration": -40}, 20, 0, None),
        ({"iteration": 1.5}, 20, 0, None),
        ({"started_at": 4e9}, 20, 2, "seconds"),
        ({"started_at": "soon"}, 20, 2, "seconds"),
        ({}, 20, 2, None),
    ],
)
def test_budget_reads_of_odd_counters(
    state: dict[str, Any], calls: int, rounds: int, spent: str | None
) -> None:
    assert calls_left(state, CFG) == calls
    assert rounds_left(state, CFG) == rounds
    assert exhausted(state, CFG) == spent


@pytest.mark.parametrize(
    ("spent", "verify", "left"), [(0, True, 17), (0, False, 18), (18, True, 0), (25, True, 0)]
)
def test_spare_keeps_the_answers_calls_back_and_never_goes_below_zero(
    spent: int, verify: bool, left: int
) -> None:
    cfg = Configuration(max_llm_calls=20, verify=verify)
    assert spare({"cost": {"llm_calls": spent}}, cfg, *ANSWERING) == left
    assert spare({"cost": {"llm_calls": spent}}, cfg) == max(0, 20 - spent)
