"""`judged-rag serve` against hostile clients, over loopback.

Servers on the fake-model graph (`server_graph.py`, given as a factory so the server
builds it with the operator's settings and `remote=True`):

- `keyed`: an API key and operator settings (a database URL, a collection, an index
  folder, `max_llm_calls=4`) that clients may echo but not change;
- `open`: no API key (loopback Host names and `--allowed-host rag.internal` only),
  threads kept in SQLite;
- `unreachable`: a knowledge base that fails with its host and port in the message;
- `limited`: an API key and low connection limits (2 s for a head, 2 s for a body,
  3 connections), which slow clients meet over raw sockets;
- `operator_models`: models named by the operator (`make_operator_model_graph`).

No client error may give a 500 or a traceback in the server's log (checked at teardown).
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage

from judged_rag import build_graph
from judged_rag.configuration import CLIENT_SETTINGS, Configuration
from judged_rag.errors import REDACTED
from judged_rag.graph.builder import Graph
from tests.integration import server_graph
from tests.integration.servers import (
    PYTHON,
    env_with_repo_on_path,
    free_port,
    listening,
    start,
    stop,
    tail,
    wait_ready,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

KEY_ENV = "JUDGED_RAG_TEST_API_KEY"
JSON = "Content-Type: application/json"
Q = {"question": "What is the capital of France?"}
OPERATOR = {
    "database_url": "postgresql+psycopg://operator@127.0.0.1:1/kb",
    "collection": "kb1",
    "index_dir": "/srv/judged-rag/kb",
    "max_llm_calls": 4,
}
"""The keyed server's settings; the fake graph makes 5 LLM calls when unbounded."""
ALLOWED_HOST = "rag.internal"


class Server:
    def __init__(self, port: int, log: Path, headers: dict[str, str]) -> None:
        self.port, self.log, self.headers = port, log, headers
        self.url = f"http://127.0.0.1:{port}/judged-rag"

    def post(self, endpoint: str, body: Any, **kw: Any) -> httpx.Response:
        headers = {**self.headers, **kw.pop("headers", {})}
        return httpx.post(f"{self.url}/{endpoint}", json=body, headers=headers, timeout=60, **kw)

    def send(self, endpoint: str, content: Any, content_type: str) -> httpx.Response:
        headers = {**self.headers, "Content-Type": content_type}
        return httpx.post(f"{self.url}/{endpoint}", content=content, headers=headers, timeout=60)

    def get(self, path: str, **kw: Any) -> httpx.Response:
        headers = {**self.headers, **kw.pop("headers", {})}
        return httpx.get(f"{self.url}/{path}", headers=headers, timeout=30, **kw)

    def ask(self, settings: dict[str, Any]) -> httpx.Response:
        return self.post("invoke", {"input": Q, "config": {"configurable": settings}})

    def assert_no_traceback(self) -> None:
        time.sleep(0.3)  # uvicorn logs an application's exception after its 500
        assert "Traceback" not in self.log.read_text(errors="replace"), tail(self.log)


def launch(base: Path, args: list[str], env: dict[str, str] | None = None) -> Iterator[Server]:
    port = free_port()
    log = base / "server.log"
    cmd = [PYTHON, "-m", "judged_rag.cli", "serve", "--port", str(port), *args]
    key = (env or {}).get(KEY_ENV)
    proc = start(cmd, cwd=base, log=log, env=env_with_repo_on_path(**(env or {})))
    server = Server(port, log, {"X-API-Key": key} if key else {})
    try:
        wait_ready(proc, f"{server.url}/input_schema", log=log, headers=server.headers)
        yield server
    finally:
        stop(proc)
        assert not listening(port)
    log_text = log.read_text(errors="replace")
    assert "Traceback" not in log_text and " 500 " not in log_text, tail(log)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ["--api-key-env", KEY_ENV, "--graph", "tests.integration.server_graph:make_graph"]
    for name, value in OPERATOR.items():
        args += ["--set", f"{name}={value}"]
    env = {KEY_ENV: secrets.token_urlsafe(16)}
    yield from launch(tmp_path_factory.mktemp("keyed"), args, env)


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("open")
    args = ["--graph", "tests.integration.server_graph:make_graph"]
    args += ["--checkpointer", f"sqlite:{base / 'threads.sqlite'}"]
    args += ["--allowed-host", ALLOWED_HOST]
    yield from launch(base, args)


@pytest.fixture(scope="module")
def unreachable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ["--graph", "tests.integration.server_graph:make_unreachable_graph"]
    yield from launch(tmp_path_factory.mktemp("unreachable"), args)


HEAD_SECONDS = BODY_SECONDS = 2
MAX_CONNECTIONS = 3


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ["--api-key-env", KEY_ENV, "--graph", "tests.integration.server_graph:make_graph"]
    args += ["--header-timeout", str(HEAD_SECONDS), "--body-timeout", str(BODY_SECONDS)]
    args += ["--max-connections", str(MAX_CONNECTIONS)]
    env = {KEY_ENV: secrets.token_urlsafe(16)}
    yield from launch(tmp_path_factory.mktemp("limited"), args, env)


OPERATOR_MODEL = "operator-private-model-7b"


def make_operator_model_graph(
    *, settings: Mapping[str, Any] | None = None, remote: bool = False
) -> Graph:
    """The fake-model graph with models as an operator names them (a `--graph` factory).

    Its judge is the one the server builds from the operator's `judge_model` setting (a
    `ChatOpenAI`; LangChain puts its name in the metadata of every call, even one that
    fails). Its generator answers as providers do, naming its model in the answer's
    `response_metadata`.
    """
    parts = server_graph.fake_components()
    parts.judge_model = None
    answer = AIMessage(
        content=server_graph.ANSWER,
        response_metadata={"model_name": OPERATOR_MODEL, "model_provider": "openai"},
    )
    parts.chat_model = FakeMessagesListChatModel(responses=[answer])
    return build_graph(parts, retry_interval=0, max_attempts=1, settings=settings, remote=remote)


@pytest.fixture(scope="module")
def operator_models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {
        "judge_model": f"openai:{OPERATOR_MODEL}",
        "base_url": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens: calls fail fast
        "request_timeout": 2,
        # Few calls to fail, and an answer from the generator all the same.
        "web_search": "none",
        "verify": False,
        "max_iterations": 1,
    }
    args = ["--graph", f"{__name__}:make_operator_model_graph"]
    for name, value in settings.items():
        args += ["--set", f"{name}={value}"]
    env = {"OPENAI_API_KEY": "sk-test-not-a-key"}
    yield from launch(tmp_path_factory.mktemp("operator_models"), args, env)


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def head(server: Server, method: str, endpoint: str, *lines: str, key: bool = True) -> bytes:
    """A request head for `endpoint`, with the server's key unless `key=False`."""
    fields = [f"{method} /judged-rag/{endpoint} HTTP/1.1", "Host: 127.0.0.1", *lines]
    if key:
        fields += [f"{k}: {v}" for k, v in server.headers.items()]
    return ("\r\n".join(fields) + "\r\n\r\n").encode()


def answer(sock: socket.socket, within: float) -> tuple[int | None, bool]:
    """The status the server answers on `sock` (`None`: none), and whether it then closed
    the connection, waiting at most `within` seconds for both."""
    deadline = time.monotonic() + within
    received = b""
    closed = False
    while not closed and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            data = b""
        received += data
        closed = not data
    status = re.match(rb"HTTP/1\.1 (\d{3}) ", received)
    return (int(status[1]) if status else None), closed


# Finding 1: the settings a client may send are an allowlist, under the operator's.


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("database_url", "postgresql+psycopg://me@10.0.0.5:5432/other"),
        ("store", "postgres"),
        ("collection", "someone_elses"),
        ("web_search", "tavily"),
        ("index_dir", "/etc"),
        ("model", "openai:gpt-4o"),
        ("base_url", "http://169.254.169.254/v1"),
    ],
)
def test_operator_settings_are_refused(keyed: Server, name: str, value: str) -> None:
    response = keyed.ask({name: value})
    assert response.status_code == 422, response.text
    assert f"{name} is fixed by the server" in response.json()["detail"]


@pytest.mark.parametrize("endpoint", ["batch", "stream", "stream_log", "stream_events"])
def test_every_route_refuses_them(keyed: Server, endpoint: str) -> None:
    config = {"configurable": {"database_url": "postgresql+psycopg://me@10.0.0.5/x"}}
    body = {"inputs": [Q], "config": config} if endpoint == "batch" else {"input": Q}
    if endpoint != "batch":
        body["config"] = config
    response = keyed.post(endpoint, body)
    assert response.status_code == 422, response.text
    assert "database_url is fixed by the server" in response.text


def test_the_servers_own_values_are_refused_too(keyed: Server) -> None:
    # Accepting the right value would confirm a guess (a model name, a path, an endpoint).
    echoed = {
        **{k: v for k, v in OPERATOR.items() if k != "max_llm_calls"},
        "store": "files",
        "web_search": Configuration().web_search,
        "model": Configuration().model,
        "base_url": "",
    }
    response = keyed.ask(echoed)
    assert response.status_code == 422, response.text
    for name in echoed:
        assert f"{name} is fixed by the server" in response.json()["detail"]


def test_unknown_settings_and_langgraph_keys_are_refused(keyed: Server) -> None:
    for sent in ({"no_such_setting": 1}, {"checkpoint_id": "1f0-old"}, {"thread_id": "t1"}):
        response = keyed.ask(sent)
        assert response.status_code == 422, (sent, response.text)


def test_operator_values_stay_out_of_what_clients_see(keyed: Server) -> None:
    # LangChain copies `configurable["model"]` into every event's metadata.
    response = keyed.post("stream_events", {"input": Q})
    assert response.status_code == 200 and server_graph.ANSWER[:5] in response.text
    for value in (OPERATOR["database_url"], OPERATOR["index_dir"], Configuration().model):
        assert str(value) not in response.text


def test_a_budget_may_be_lowered_never_raised(keyed: Server) -> None:
    for calls in (10_000, 5):
        response = keyed.ask({"max_llm_calls": calls})
        assert response.status_code == 422, response.text
        assert "max_llm_calls" in response.text and "above the server's limit (4)" in response.text
    # Unset, the operator's ceiling holds; lowered, the client's.
    # Three calls are kept back for the answer (C_M, generate, verify): under 4, parse gets
    # one and nothing is left to judge, so the answer rests on the model (C_M, generate);
    # under 3, parse gets none.
    for sent, calls in (({}, 3), ({"max_llm_calls": 3}, 2)):
        response = keyed.ask(sent)
        assert response.status_code == 200, response.text
        output = response.json()["output"]
        assert output["cost"]["llm_calls"] == calls
        budget = [e for e in output["trace"] if e["event"] == "budget"]
        assert budget and budget[0]["detail"]["exhausted"] == "llm_calls"


def test_the_settings_schema_lists_exactly_the_client_settings(keyed: Server) -> None:
    schema = keyed.get("config_schema").json()
    settings = schema["$defs"]["Configurable"]["properties"]
    assert set(settings) == CLIENT_SETTINGS
    assert "Server: 4." in settings["max_llm_calls"]["description"]


# Finding 2: what a request may carry.


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_over_the_limit_is_413(keyed: Server, chunked: bool) -> None:
    body = json.dumps({"input": {"question": "x" * 300_000}}).encode()
    content: Any = (
        iter([body[i : i + 8192] for i in range(0, len(body), 8192)]) if chunked else body
    )
    response = keyed.send("invoke", content, "application/json")
    assert response.status_code == 413, response.text
    # Under the limit the body is read, and the question found too long.
    smaller = json.dumps({"input": {"question": "x" * 200_000}}).encode()
    assert keyed.send("invoke", smaller, "application/json").status_code == 422


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_body_that_is_not_declared_json_is_415(open_server: Server, content_type: str) -> None:
    # What a web page can post without a CORS preflight.
    body = json.dumps({"input": Q, "config": {"configurable": {"thread_id": "t-1"}}})
    response = open_server.send("invoke", body, content_type)
    assert response.status_code == 415, response.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"input": ',
        b'{"input": {"question": "caf\xe9"}}',
        b"[" * 1000 + b"]" * 1000,
        b'{"input": ' + b'{"a": ' * 40 + b"1" + b"}" * 41,
        b'{"input": {"question": "\\ud800"}}',
    ],
    ids=["truncated", "latin-1", "1000-deep", "41-deep", "lone-surrogate"],
)
def test_malformed_json_is_400_without_a_traceback(keyed: Server, body: bytes) -> None:
    response = keyed.send("invoke", body, "application/json")
    assert response.status_code == 400, response.text
    assert isinstance(response.json()["detail"], str)
    keyed.assert_no_traceback()


def test_a_batch_holds_at_most_16_inputs(keyed: Server) -> None:
    response = keyed.post("batch", {"inputs": [Q] * 17})
    assert response.status_code == 413, response.text
    assert "at most 16 inputs" in response.json()["detail"]
    response = keyed.post("batch", {"inputs": [Q] * 16})
    assert response.status_code == 200, response.text
    assert len(response.json()["output"]) == 16


def test_a_long_option_is_refused(keyed: Server) -> None:
    long = {"question": "Which?", "options": ["a" * 501, "b"]}
    response = keyed.post("invoke", {"input": long})
    assert response.status_code == 422, response.text
    assert "the limit is 500" in response.text


@pytest.mark.parametrize(
    "thread_id", ["", "a/b", "a b", "é", "x" * 129, "x" * 200_000], ids=lambda t: t[:8] or "empty"
)
def test_a_bad_thread_id_is_refused(open_server: Server, thread_id: str) -> None:
    response = open_server.ask({"thread_id": thread_id})
    assert response.status_code == 422, response.text
    assert "thread_id must be 1-128 characters" in response.text


def test_a_1mb_thread_id_is_refused(open_server: Server) -> None:
    response = open_server.ask({"thread_id": "x" * 1_000_000})
    assert response.status_code == 413, response.text


@pytest.mark.parametrize("thread_id", ["x" * 129, "a%20b", "caf%C3%A9"])
@pytest.mark.parametrize("view", ["state", "history"])
def test_thread_routes_refuse_a_bad_thread_id(
    open_server: Server, thread_id: str, view: str
) -> None:
    response = open_server.get(f"threads/{thread_id}/{view}")
    assert response.status_code == 422, response.text


def test_the_server_makes_thread_ids(open_server: Server) -> None:
    first, second = (open_server.post("threads", None) for _ in range(2))
    assert first.status_code == second.status_code == 200, first.text
    thread_id = first.json()["thread_id"]
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", thread_id)
    assert second.json()["thread_id"] != thread_id
    assert open_server.get(f"threads/{thread_id}/state").status_code == 404  # nothing yet
    response = open_server.ask({"thread_id": thread_id})
    assert response.status_code == 200, response.text
    state = open_server.get(f"threads/{thread_id}/state").json()
    assert state["values"]["answer"] == server_graph.ANSWER


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example"])
def test_a_foreign_host_is_refused_without_an_api_key(open_server: Server, host: str) -> None:
    headers = {"Host": host.format(port=open_server.port)}
    assert open_server.get("input_schema", headers=headers).status_code == 400
    body = {"input": Q, "config": {"configurable": {"thread_id": "t-host"}}}
    assert open_server.post("invoke", body, headers=headers).status_code == 400


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "localhost", ALLOWED_HOST]
)
def test_loopback_and_allowed_hosts_are_served(open_server: Server, host: str) -> None:
    headers = {"Host": host.format(port=open_server.port)}
    assert open_server.get("input_schema", headers=headers).status_code == 200


def test_with_an_api_key_any_host_is_served(keyed: Server) -> None:
    assert keyed.get("input_schema", headers={"Host": "rag.example.com"}).status_code == 200


# Finding 3: what a failure tells a client.


def test_failures_reach_clients_redacted(unreachable: Server) -> None:
    address = "10.9.8.7"
    response = unreachable.post("invoke", {"input": Q})
    assert response.status_code == 200, response.text
    errors = [
        e
        for e in response.json()["output"]["trace"]
        if e["node"] == "retrieve" and e["event"] == "error"
    ]
    assert errors and all(e["detail"]["message"] == REDACTED for e in errors)
    assert address not in response.text
    for endpoint in ("stream", "stream_log", "stream_events"):
        streamed = unreachable.post(endpoint, {"input": Q})
        assert streamed.status_code == 200 and REDACTED in streamed.text
        assert address not in streamed.text, endpoint
    assert address in unreachable.log.read_text()  # the operator still sees it


# Finding 4: what a slow, keyless or numerous client can hold.


def test_a_keyless_request_is_refused_before_its_body(keyed: Server) -> None:
    # The body never arrives whole: only the head decides, at once (the server's body
    # deadline is its default, 15 s), and the connection closes with the unread body.
    with connect(keyed) as sock:
        declared = "Content-Length: 100000"
        sock.sendall(head(keyed, "POST", "invoke", declared, JSON, key=False) + b'{"input": ')
        assert answer(sock, within=5) == (401, True)


@pytest.mark.parametrize("endpoint", ["invoke", "stream_events"])
def test_a_half_sent_body_is_cut_off(limited: Server, endpoint: str) -> None:
    with connect(limited) as sock:
        sock.sendall(head(limited, "POST", endpoint, "Content-Length: 1000", JSON) + b'{"input"')
        assert answer(sock, within=BODY_SECONDS + 15) == (408, True)


def test_a_head_that_never_ends_is_cut_off(limited: Server) -> None:
    with connect(limited) as partial, connect(limited) as idle:
        partial.sendall(b"POST /judged-rag/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert answer(partial, within=HEAD_SECONDS + 15) == (408, True)
        assert answer(idle, within=HEAD_SECONDS + 15) == (None, True)  # closed, unanswered


def test_an_oversized_head_is_refused(limited: Server) -> None:
    # A header growing without end, sent in pieces; the server reads every byte it is
    # sent before refusing (unread bytes would reset the connection and lose the answer).
    with connect(limited) as sock:
        sock.sendall(b"GET /judged-rag/input_schema HTTP/1.1\r\nX-Padding: ")
        for _ in range(3):
            sock.sendall(b"a" * 40_000)
            time.sleep(0.2)
        assert answer(sock, within=15) == (400, True)


def test_connections_over_the_limit_get_503(limited: Server) -> None:
    request = head(limited, "GET", "input_schema", "Connection: close")
    held = [connect(limited) for _ in range(MAX_CONNECTIONS - 1)]
    try:
        # Idle connections count: with them open, one request is still served...
        with connect(limited) as sock:
            sock.sendall(request)
            assert answer(sock, within=10) == (200, True)
        held.append(connect(limited))
        # ...and none once they fill the limit.
        with connect(limited) as sock:
            sock.sendall(request)
            assert answer(sock, within=10) == (503, True)
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10
    while limited.get("input_schema").status_code != 200:
        assert time.monotonic() < deadline, "the server stayed full after the clients left"
        time.sleep(0.1)


# Finding 5: what the streams say about the operator's models.


@pytest.mark.parametrize("endpoint", ["stream_events", "stream_log"])
def test_streams_leave_out_the_operators_models(operator_models: Server, endpoint: str) -> None:
    response = operator_models.post(endpoint, {"input": Q})
    assert response.status_code == 200, response.text
    assert server_graph.ANSWER[:5] in response.text  # the answer still streams
    assert '"langgraph_node":' in response.text  # and events still say where they come from
    for leak in (OPERATOR_MODEL, "ls_model_name", "ls_provider", "lc_versions"):
        assert leak not in response.text, leak
