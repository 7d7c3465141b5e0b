"""Persistence on a SQLite file: a run stopped mid-graph resumes in a new process.

The first process is killed with SIGKILL while `generate` is in flight (or stops at an
`interrupt_after=["assess"]` breakpoint); a second process resumes the thread with
`invoke(None, config)`. The resumed process cannot parse, judge or retrieve (no scripts,
a refusing retriever) and counts its chat-model calls by node, so redoing a finished
step would show.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from judged_rag import Components, build_graph
from tests.integration import persistence_worker as worker
from tests.integration.servers import PYTHON, env_with_repo_on_path, group_alive, stop, tail

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

WORKER = [PYTHON, "-m", "tests.integration.persistence_worker"]


def run_worker(tmp_path: Path, *args: str, timeout: float = 120.0) -> dict[str, Any]:
    done = subprocess.run(
        [*WORKER, *args],
        cwd=tmp_path,
        env=env_with_repo_on_path(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def saved_next(db: Path, thread_id: str) -> tuple[str, ...]:
    """The nodes the thread's latest checkpoint will run next (read from the file)."""
    with SqliteSaver.from_conn_string(str(db)) as saver:
        graph = build_graph(Components(), checkpointer=saver)
        return graph.get_state({"configurable": {"thread_id": thread_id}}).next


def assert_resumed_without_redoing(report: dict[str, Any], *, redone: tuple[str, ...]) -> None:
    """The resumed run made only the calls of the nodes after the checkpoint, once each."""
    result = report["result"]
    assert result["answer"] == worker.ANSWER
    assert [c["doc_id"] for c in result["citations"]] == ["paris"]
    assert report["llm_calls"] == dict.fromkeys(redone, 1)
    assert report["retriever_calls"] == 0
    assert report["next"] == []
    trace = result["trace"]
    # parse and the two judgments happened once, in the first process, by the LLM.
    assert sum(e["node"] == "parse" and e["event"] == "parsed" for e in trace) <= 1
    judged = [e["detail"] for e in trace if e["event"] == "judged"]
    assert sorted(j["doc_id"] for j in judged) == ["lyon", "paris"]
    assert {j["by"] for j in judged} == {"llm"}
    assert not [e for e in trace if e["event"] in ("fallback", "error")]
    assert result["route"]["iterations"] == 1


def test_killed_mid_generate_resumes_in_a_new_process(tmp_path: Path) -> None:
    db, marker, log = tmp_path / "runs.sqlite", tmp_path / "generating", tmp_path / "worker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*WORKER, str(db), "t-kill", "block", str(marker)],
            cwd=tmp_path,
            env=env_with_repo_on_path(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not (marker.exists() and saved_next(db, "t-kill") == ("generate",)):
            assert proc.poll() is None, tail(log)
            assert time.monotonic() < deadline, f"generate never started:\n{tail(log)}"
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        stop(proc)
    assert not group_alive(proc.pid)
    assert saved_next(db, "t-kill") == ("generate",)  # what the killed process left

    resumed = run_worker(tmp_path, str(db), "t-kill", "resume")
    assert_resumed_without_redoing(resumed, redone=("generate", "verify"))


def test_breakpoint_after_assess_resumes_in_a_new_process(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    paused = run_worker(tmp_path, str(db), "t-pause", "pause")
    assert paused["next"] == ["combine"]
    assert not paused["result"].get("answer")  # the gate reset it; nothing generated yet
    assert paused["llm_calls"] == {"parse": 1, "judge": 2}
    assert paused["retriever_calls"] == 1

    resumed = run_worker(tmp_path, str(db), "t-pause", "resume")
    assert_resumed_without_redoing(resumed, redone=("integrate", "generate", "verify"))
