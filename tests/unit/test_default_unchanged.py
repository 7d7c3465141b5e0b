"""The default preset's runs stay exactly as they were when the paper's loop was added.

Scripted scenarios of the existing route tests are run with the default settings (and
with `sufficiency="llm"`), and their whole trace, cost, answer and route are compared
with a snapshot recorded before the paper preset's progressive selection, segment
alignment, reflection and component-replacing rewrite existed. Wall time is left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judged_rag import Components, build_graph
from tests.fakes import (
    components,
    doc,
    generator,
    judge_model,
    keywords,
    label,
    rewrite,
    scripted_retriever,
    sufficient,
    verdict,
)

SNAPSHOT = Path(__file__).parent / "snapshots" / "default_runs.json"
APOLLO = doc("apollo", "Apollo 11 landed on the Moon on 20 July 1969.")
MOON = doc("moon", "The Moon is Earth's only natural satellite.")
SATURN = doc("saturn", "Saturn V was the rocket of the Apollo programme.")
WIKI = doc("wiki", "Apollo 11 was the first crewed Moon landing, in July 1969.", reliability="B")
QUESTION = "When did Apollo 11 land on the Moon?"
PARTS = ["Apollo 11", "land", "the Moon"]


def _rewrite_loop() -> tuple[Components, dict[str, Any]]:
    return Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(PARTS),
            label("somewhat_relevant", "the Moon"),
            rewrite("touch down", pseudo="Apollo 11 touched down on the lunar surface."),
            label("highly_relevant", *PARTS),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([MOON], [MOON, APOLLO]),
    ), {}


def _web_search() -> tuple[Components, dict[str, Any]]:
    return Components(
        chat_model=generator("In July 1969 [2]."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant", "Apollo 11"),
            label("not_relevant"),
            keywords("Apollo 11 Moon landing date"),
            verdict(True, 0.8),
        ),
        retriever=scripted_retriever([MOON, SATURN]),
        web_search=scripted_retriever([WIKI]),
    ), {"max_iterations": 1}


def _llm_sufficiency() -> tuple[Components, dict[str, Any]]:
    return Components(
        chat_model=generator("On 20 July 1969 [1]."),
        judge_model=judge_model(
            components(PARTS),
            label("somewhat_relevant", "the Moon"),
            label("not_relevant"),
            sufficient(False),
            rewrite("touch down"),
            label("highly_relevant", *PARTS),
            sufficient(True),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([MOON, SATURN], [APOLLO]),
    ), {"sufficiency": "llm"}


def _stalled() -> tuple[Components, dict[str, Any]]:
    docs = [doc(f"d{i}", f"Unrelated fact number {i}.") for i in range(3)]
    return Components(
        chat_model=generator("Apollo 11 landed in July 1969."),
        judge_model=judge_model(
            components("Apollo 11"),
            label("somewhat_relevant"),
            rewrite("Apollo eleven"),
            label("not_relevant"),
            verdict(True, 0.9),
        ),
        retriever=scripted_retriever([docs[0]], [docs[1]], [docs[2]]),
    ), {"max_iterations": 3, "web_search": "none"}


SCENARIOS: dict[str, Callable[[], tuple[Components, dict[str, Any]]]] = {
    "rewrite_loop": _rewrite_loop,
    "web_search": _web_search,
    "llm_sufficiency": _llm_sufficiency,
    "stalled": _stalled,
}


def run_scenario(name: str) -> dict[str, Any]:
    """One scenario's run with the default preset: everything but the wall time."""
    parts, settings = SCENARIOS[name]()
    graph = build_graph(parts, retry_interval=0)
    config = {"max_concurrency": 1, "configurable": {"gate": False, **settings}}
    out = graph.invoke({"question": QUESTION}, config)
    cost = {k: v for k, v in out["cost"].items() if k != "seconds"}
    keys = ("answer", "abstained", "reason", "basis", "citations", "route", "trace")
    return {**{k: out[k] for k in keys}, "cost": cost}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_default_runs_match_the_recorded_runs(name: str) -> None:
    got = json.loads(json.dumps(run_scenario(name), ensure_ascii=False))
    if os.environ.get("UPDATE_DEFAULT_RUNS") == "1":
        recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8")) if SNAPSHOT.exists() else {}
        recorded[name] = got
        text = json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        SNAPSHOT.write_text(text, encoding="utf-8")
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert got == recorded[name]
