"""A reduced load test of both servers: every request answered, with its own answer.

Runs `scripts/load_test.py` in this process (so its servers are stopped even when the
test fails or times out): 40 questions at concurrency 10 against `langgraph dev` and
against `judged-rag serve`, each serving a graph of LangChain fakes that take 0.2 s per
model call and answer with their question's tag.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.integration.servers import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

REQUESTS, CONCURRENCY = 40, 10


def load_script() -> ModuleType:
    if "load_test" in sys.modules:
        return sys.modules["load_test"]
    spec = importlib.util.spec_from_file_location("load_test", ROOT / "scripts" / "load_test.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_both_servers_answer_every_request_with_its_own_answer(tmp_path: Path) -> None:
    script = load_script()
    out = tmp_path / "load.json"
    argv = ["--requests", str(REQUESTS), "--concurrency", str(CONCURRENCY)]
    argv += ["--deadline", "240", "--timeout", "90", "--warmup", "1", "--json", str(out)]
    status = script.main(argv)

    reports = {r["target"]: r for r in json.loads(out.read_text())["reports"]}
    assert set(reports) == {"langgraph", "langserve"}
    for target, r in reports.items():
        counts = {k: r[k] for k in ("sent", "succeeded", "wrong", "failed", "lost", "not_sent")}
        assert counts == {
            "sent": REQUESTS,
            "succeeded": REQUESTS,
            "wrong": 0,
            "failed": 0,
            "lost": 0,
            "not_sent": 0,
        }, (target, r["first_errors"])
        assert r["latency_ms"]["p50"] <= r["latency_ms"]["p99"] <= r["latency_ms"]["max"]
        # Five model calls in four rounds at 0.2 s each: no run can be faster than 0.8 s.
        assert r["latency_ms"]["p50"] >= 800
        assert r["rss_mb"]["peak"] >= r["rss_mb"]["start"] > 0
    # The LangGraph server's own record agrees: one successful run on every thread.
    assert reports["langgraph"]["server_side"]["run_status"] == {"success": REQUESTS}
    assert reports["langgraph"]["server_side"]["threads_by_run_count"] == {"1": REQUESTS}
    assert status == 0


def test_a_wrong_answer_is_counted_as_wrong_not_as_success() -> None:
    script = load_script()
    args = script.parse_args(["--requests", "1"])
    outcome = script.Outcome(3)
    good = {"answer": "The answer to q-0003 is q-0003-ok [1].", "abstained": False}
    script.check(3, {**good, "citations": [{"number": 1}]}, args, outcome)
    assert outcome.status == "ok"
    script.check(3, {**good, "citations": [{"number": 1}]} | {"answer": "x"}, args, outcome)
    assert outcome.status == "wrong"
    crossed = {**good, "answer": "The answer to q-0004 is q-0004-ok [1].", "citations": []}
    script.check(3, crossed, args, outcome)
    assert outcome.status == "wrong"


def test_real_model_questions_cycle_through_their_set_and_warm_up_outside_it() -> None:
    script = load_script()
    args = script.parse_args(["--model", "local:x", "--questions", "readme", "--requests", "8"])
    asked = [script.question(i, args) for i in range(8)]
    readme = [q for q, _ in script.README_QUESTIONS]
    assert asked == readme + readme
    warmup = script.question(8, args)  # run_target numbers the warm-up after the requests
    assert warmup == script.WARMUP_QUESTION and warmup not in readme

    outcome = script.Outcome(3)
    script.check(
        3, {"answer": "Unknown", "cost": {"llm_calls": 16, "llm_rounds": 8}}, args, outcome
    )
    assert (outcome.status, outcome.keyword_hit) == ("ok", True)
    assert (outcome.question, outcome.llm_calls, outcome.llm_rounds) == (readme[3], 16, 8)
