"""Threads of `judged-rag serve --checkpointer sqlite:PATH` survive the server's restart.

The server runs the fixed-latency fake graph (`load_graph.py`, whose answer names the
question's tag). A thread is run, the server is stopped with SIGTERM and later with
SIGKILL (once between runs, once in the middle of a run), started again on the same
SQLite file, and the thread is read back and continued.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from judged_rag.cli import main
from tests.integration.load_graph import LATENCY_ENV, expected_answer
from tests.integration.servers import (
    PYTHON,
    env_with_repo_on_path,
    free_port,
    group_alive,
    listening,
    start,
    stop,
    tail,
    wait_ready,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

LATENCY = 0.3  # per model call: a run takes about 1.2 s, long enough to kill it midway


class Server:
    def __init__(self, db: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/judged-rag"
        cmd = [PYTHON, "-m", "judged_rag.cli", "serve", "--port", str(self.port)]
        cmd += ["--graph", "tests.integration.load_graph:graph", "--checkpointer", f"sqlite:{db}"]
        env = env_with_repo_on_path(**{LATENCY_ENV: str(LATENCY)})
        self.log = log
        self.proc = start(cmd, cwd=db.parent, log=log, env=env)
        try:
            wait_ready(self.proc, f"{self.url}/input_schema", log=log)
        except BaseException:
            stop(self.proc)
            raise

    def ask(self, thread_id: str | None, tag: str) -> httpx.Response:
        config = {"configurable": {"thread_id": thread_id}} if thread_id else {}
        body = {"input": {"question": f"What is the capital of France? ({tag})"}, "config": config}
        return httpx.post(f"{self.url}/invoke", json=body, timeout=60)

    def answer(self, thread_id: str, tag: str) -> dict[str, Any]:
        response = self.ask(thread_id, tag)
        assert response.status_code == 200, response.text
        output: dict[str, Any] = response.json()["output"]
        assert output["answer"] == expected_answer(tag)
        return output

    def state(self, thread_id: str) -> dict[str, Any]:
        response = httpx.get(f"{self.url}/threads/{thread_id}/state", timeout=30)
        assert response.status_code == 200, response.text
        state: dict[str, Any] = response.json()
        return state

    def history(self, thread_id: str) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.url}/threads/{thread_id}/history?limit=100", timeout=30)
        assert response.status_code == 200, response.text
        checkpoints: list[dict[str, Any]] = response.json()["checkpoints"]
        return checkpoints

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        assert self.proc.wait(timeout=30) == -signal.SIGKILL
        stop(self.proc)  # reaps anything left of the group, and checks
        assert not listening(self.port)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Servers started by a test; all of them stopped at the end, whatever happened."""
    started: list[Server] = []
    try:
        yield started
    finally:
        for server in started:
            stop(server.proc)
            assert not group_alive(server.proc.pid)


def test_threads_survive_sigterm_and_sigkill_and_continue(
    tmp_path: Path, servers: list[Server]
) -> None:
    db = tmp_path / "threads.sqlite"

    def launch(name: str) -> Server:
        servers.append(Server(db, tmp_path / f"{name}.log"))
        return servers[-1]

    first = launch("first")
    first.answer("t-1", "q-0001")
    state = first.state("t-1")
    assert state["next"] == [] and state["values"]["answer"] == expected_answer("q-0001")
    assert "q-0001" in state["values"]["question"]
    history = first.history("t-1")
    assert len(history) > 5 and history[0]["checkpoint_id"] == state["checkpoint_id"]

    stop(first.proc)  # SIGTERM: uvicorn shuts down, the lifespan closes the database
    # uvicorn finishes its shutdown, then re-raises the signal it caught.
    assert first.proc.returncode == -signal.SIGTERM
    assert "Application shutdown complete" in tail(first.log), tail(first.log)

    second = launch("second")
    assert second.state("t-1") == state
    assert second.history("t-1") == history
    second.answer("t-1", "q-0002")  # the same thread goes on
    after_second_run = second.state("t-1")
    assert "q-0002" in after_second_run["values"]["question"]
    longer = second.history("t-1")
    assert len(longer) > len(history)
    assert longer[-len(history) :] == history  # the first run's checkpoints are still there
    second.kill()

    third = launch("third")
    assert third.state("t-1") == after_second_run
    assert third.history("t-1") == longer

    # Killed in the middle of a run: the thread keeps the steps that finished.
    failed: list[BaseException] = []

    def ask_in_background() -> None:
        try:
            third.ask("t-2", "q-0003")
        except httpx.HTTPError as exc:  # the connection dies with the server
            failed.append(exc)

    caller = threading.Thread(target=ask_in_background, daemon=True)
    caller.start()
    deadline = time.monotonic() + 60
    while True:
        response = httpx.get(f"{third.url}/threads/t-2/state", timeout=30)
        if response.status_code == 200 and "generate" in response.json()["next"]:
            break
        assert time.monotonic() < deadline, tail(third.log)
        time.sleep(0.05)
    third.kill()
    caller.join(timeout=30)
    assert failed, "the request in flight should have lost its connection"

    fourth = launch("fourth")
    interrupted = fourth.state("t-2")
    assert "generate" in interrupted["next"]
    assert not interrupted["values"].get("answer")
    assert "q-0003" in interrupted["values"]["question"]
    fourth.answer("t-2", "q-0004")  # a new question on the thread starts clean
    done = fourth.state("t-2")
    assert done["next"] == [] and done["values"]["answer"] == expected_answer("q-0004")
    assert fourth.state("t-1") == after_second_run


def test_a_thread_id_is_required_and_unknown_threads_are_404(
    tmp_path: Path, servers: list[Server]
) -> None:
    servers.append(Server(tmp_path / "threads.sqlite", tmp_path / "server.log"))
    server = servers[0]
    response = server.ask(None, "q-0001")
    assert response.status_code == 422 and "thread_id" in response.text
    assert httpx.get(f"{server.url}/threads/nope/state", timeout=30).status_code == 404
    assert httpx.get(f"{server.url}/threads/nope/history", timeout=30).status_code == 404


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("postgres://x", "expected sqlite:PATH"),
        ("sqlite:", "expected sqlite:PATH"),
        ("sqlite:/no/such/folder/t.sqlite", "does not exist"),
    ],
)
def test_serve_refuses_a_bad_checkpointer(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["serve", "--graph", "tests.integration.load_graph:graph", "--checkpointer", spec]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_serve_refuses_no_run_threads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--run-threads", "0"]) == 2
    assert "run_threads must be at least 1" in capsys.readouterr().err
