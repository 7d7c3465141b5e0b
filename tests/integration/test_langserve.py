"""LangServe over loopback: `judged-rag serve` on a fake-model graph, called by RemoteRunnable."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.tracers.log_stream import RunLog, RunLogPatch
from langserve import RemoteRunnable

from judged_rag.cli import main
from tests.integration import server_graph
from tests.integration.servers import (
    PYTHON,
    env_with_repo_on_path,
    free_port,
    listening,
    start,
    stop,
    wait_ready,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

KEY_ENV = "JUDGED_RAG_TEST_API_KEY"
Q = {"question": "What is the capital of France?"}


class Server:
    def __init__(self, base: str, key: str) -> None:
        self.base, self.key = base, key
        self.url = f"{base}/judged-rag"
        self.headers = {"X-API-Key": key}

    def remote(self) -> RemoteRunnable[Any, Any]:
        return RemoteRunnable(self.url, headers=self.headers, timeout=60)

    def post(self, endpoint: str, body: dict[str, Any], **kw: Any) -> httpx.Response:
        headers = kw.pop("headers", self.headers)
        return httpx.post(f"{self.url}/{endpoint}", json=body, headers=headers, timeout=60, **kw)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("langserve")
    key = secrets.token_urlsafe(16)
    port = free_port()
    cmd = [PYTHON, "-m", "judged_rag.cli", "serve", "--port", str(port)]
    cmd += ["--api-key-env", KEY_ENV, "--graph", "tests.integration.server_graph:make_graph"]
    log = base / "server.log"
    proc = start(cmd, cwd=base, log=log, env=env_with_repo_on_path(**{KEY_ENV: key}))
    srv = Server(f"http://127.0.0.1:{port}", key)
    try:
        wait_ready(proc, f"{srv.url}/input_schema", log=log, headers=srv.headers)
        yield srv
    finally:
        stop(proc)
        assert not listening(port)


def test_invoke_with_settings(server: Server) -> None:
    remote = server.remote()
    out = remote.invoke(Q)
    assert out["answer"] == server_graph.ANSWER
    assert out["route"]["knowledge"] == server_graph.DOCS_PER_RETRIEVAL
    one = remote.invoke(Q, config={"configurable": {"top_k": 1}})
    assert one["route"]["knowledge"] == 1 and len(one["citations"]) == 1


def test_batch(server: Server) -> None:
    outs = server.remote().batch([Q, {"question": "Which is the capital?"}])
    assert [o["answer"] for o in outs] == [server_graph.ANSWER] * 2


def test_stream_yields_the_output_after_each_step(server: Server) -> None:
    chunks = list(server.remote().stream(Q))
    assert len(chunks) > 3
    final = chunks[-1]
    assert final["answer"] == server_graph.ANSWER
    # Output keys only; the working state (documents, judgments...) stays inside.
    assert set(final) == {"answer", "citations", "abstained", "reason", "basis", "route"} | {
        "trace",
        "cost",
    }


def test_stream_log_shows_every_node_and_the_final_output(server: Server) -> None:
    async def collect() -> RunLog:
        log: RunLog | RunLogPatch | None = None
        async for patch in server.remote().astream_log(Q):
            log = patch if log is None else log + patch
        assert isinstance(log, RunLog)
        return log

    log = asyncio.run(collect())
    state: Any = log.state
    names = {entry["name"] for entry in state["logs"].values()}
    assert {"gate", "parse", "retrieve", "judge", "assess", "generate", "verify"} <= names
    assert "route_after_retrieve" in names  # its output holds the judge `Send` packets
    assert state["final_output"]["answer"] == server_graph.ANSWER


def test_stream_events_carry_answer_tokens(server: Server) -> None:
    async def collect() -> list[Any]:
        return [e async for e in server.remote().astream_events(Q, version="v2")]

    events = asyncio.run(collect())
    assert not [e for e in events if e["event"] == "on_chain_error"]
    tokens = [
        e["data"]["chunk"].content
        for e in events
        if e["event"] == "on_chat_model_stream"
        and e["metadata"].get("langgraph_node") == "generate"
    ]
    assert len(tokens) > 3 and "".join(tokens) == server_graph.ANSWER


def test_playground_and_schemas(server: Server) -> None:
    page = httpx.get(f"{server.url}/playground/", headers=server.headers, timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    schema = httpx.get(f"{server.url}/input_schema", headers=server.headers, timeout=30).json()
    assert schema["required"] == ["question"]
    assert set(schema["properties"]) == {"question", "options", "task_type"}
    config = httpx.get(f"{server.url}/config_schema", headers=server.headers, timeout=30).json()
    settings = config["$defs"]["Configurable"]["properties"]
    assert settings["max_knowledge"]["description"]
    assert "model" not in settings and "base_url" not in settings  # fixed by the server


@pytest.mark.parametrize("endpoint", ["invoke", "stream", "stream_log", "stream_events"])
@pytest.mark.parametrize(
    "body",
    [
        {"input": {"question": ""}},
        {"input": {"question": "x", "options": ["only one"]}},
        {"input": {"question": "x"}, "config": {"configurable": {"temperature": 3}}},
        {"input": {"question": "x"}, "config": {"configurable": {"no_such_setting": 1}}},
        {"input": {"question": "x"}, "config": {"configurable": {"base_url": "http://x"}}},
    ],
    ids=["empty-question", "one-option", "bad-setting", "unknown-setting", "server-only-setting"],
)
def test_invalid_requests_are_422_before_anything_runs(
    server: Server, endpoint: str, body: dict[str, Any]
) -> None:
    assert server.post(endpoint, body).status_code == 422


def test_invalid_batch_input_is_422(server: Server) -> None:
    response = server.post("batch", {"inputs": [Q, {"question": ""}]})
    assert response.status_code == 422, response.text
    with pytest.raises(httpx.HTTPStatusError) as caught:
        server.remote().invoke({"question": ""})
    assert caught.value.response.status_code == 422


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}], ids=["missing", "wrong"])
@pytest.mark.parametrize("path", ["invoke", "input_schema", "playground/", "stream_log"])
def test_every_route_needs_the_api_key(server: Server, path: str, headers: dict[str, str]) -> None:
    url = f"{server.url}/{path}"
    if path in ("invoke", "stream_log"):
        response = httpx.post(url, json={"input": Q}, headers=headers, timeout=30)
    else:
        response = httpx.get(url, headers=headers, timeout=30)
    assert response.status_code == 401
    assert "answer" not in response.text


def test_docs_need_the_api_key_too(server: Server) -> None:
    assert httpx.get(f"{server.base}/docs", timeout=30).status_code == 401


def test_serve_refuses_an_unset_api_key_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("JUDGED_RAG_NO_SUCH_KEY", raising=False)
    assert main(["serve", "--api-key-env", "JUDGED_RAG_NO_SUCH_KEY"]) == 2
    assert "JUDGED_RAG_NO_SUCH_KEY is not set" in capsys.readouterr().err


def test_serve_refuses_a_graph_that_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--graph", "tests.integration.server_graph:nothing"]) == 2
    assert "has no attribute 'nothing'" in capsys.readouterr().err
