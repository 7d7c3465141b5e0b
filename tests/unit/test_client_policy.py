"""What a client of the LangGraph API server may do (`http_guard.ClientPolicy`), table-driven.

The policy sits in front of a Starlette app that answers every route with 200, so a
200 means "passed on" and anything else is the policy's own answer. The real server
behind it is exercised in `tests/integration/test_hostile_clients.py`.
"""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from judged_rag.http_guard import (
    CLIENT_WRITES,
    ClientPolicy,
    RequestGuard,
    check_a2a,
    check_mcp,
    check_run,
    find_endpoint,
)

NONE: frozenset[str] = frozenset()


async def _passed(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"passed": True, "bytes": len(body)})


def client(*opened: str) -> TestClient:
    behind = Starlette(
        routes=[Route("/{path:path}", _passed, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])]
    )
    app = RequestGuard(ClientPolicy(behind, opened=opened))
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/ok"),
        ("GET", "/assistants/abc/schemas"),
        ("HEAD", "/threads/t1/state"),
        ("POST", "/assistants/search"),
        ("POST", "/threads/t1/history"),
        ("POST", "/threads/t1/runs/r1/cancel"),
        ("DELETE", "/threads/t1"),
        ("GET", "/a2a/abc/.well-known/agent-card.json"),
        ("GET", "/threads/t1/runs/"),  # a trailing slash names the same route
    ],
)
def test_reads_and_a_clients_own_thread_operations_are_open(method: str, path: str) -> None:
    assert find_endpoint(method, path, NONE) is not None


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/threads/t1/state"),  # writes the graph's bookkeeping
        ("PATCH", "/threads/t1/state"),
        ("POST", "/threads/prune"),
        ("POST", "/internal/truncate"),  # the in-memory runtime's "empty everything"
        ("GET", "/metrics"),
        ("POST", "/ui/judged_rag"),
        ("POST", "/threads/t1/commands"),
        ("POST", "/threads/t1/stream/events"),
        ("GET", "/threads/t1/storage"),
        ("POST", "/assistants"),
        ("PATCH", "/assistants/abc"),
        ("DELETE", "/assistants/abc"),
        ("POST", "/assistants/abc/latest"),
        ("POST", "/runs/crons"),
        ("POST", "/threads/t1/runs/crons"),
        ("PATCH", "/runs/crons/c1"),
        ("PUT", "/store/items"),
        ("DELETE", "/store/items"),
        ("GET", "/threads/t1/state/../../internal"),
        ("GET", "/nothing/here"),
    ],
)
def test_every_other_route_is_refused(method: str, path: str) -> None:
    assert find_endpoint(method, path, NONE) is None


@pytest.mark.parametrize(
    ("opened", "method", "path"),
    [
        ("assistants", "POST", "/assistants"),
        ("assistants", "PATCH", "/assistants/abc"),
        ("crons", "POST", "/runs/crons"),
        ("store", "PUT", "/store/items"),
    ],
)
def test_an_operator_opens_writes_one_kind_at_a_time(opened: str, method: str, path: str) -> None:
    assert find_endpoint(method, path, frozenset({opened})) is not None
    others = frozenset(CLIENT_WRITES) - {opened}
    assert find_endpoint(method, path, others) is None


def test_an_unknown_opt_in_is_an_error_at_startup() -> None:
    with pytest.raises(ValueError, match="unknown client writes"):
        ClientPolicy(Starlette(), opened=["state"])


UPDATE = {"update": {"cost": {"llm_calls": -100000}, "iteration": -40}, "goto": "rewrite"}


@pytest.mark.parametrize(
    ("body", "opened", "refused"),
    [
        ({"assistant_id": "a", "input": {"question": "q"}}, NONE, None),
        ({"assistant_id": "a", "input": None, "stream_mode": ["updates"]}, NONE, None),
        ({"assistant_id": "a", "command": UPDATE}, NONE, "command"),
        ({"assistant_id": "a", "command": {"goto": "generate"}}, NONE, "command"),
        ({"assistant_id": "a", "command": {"resume": "yes"}}, NONE, "command"),
        ({"assistant_id": "a", "command": {"resume": "yes"}}, frozenset({"resume"}), None),
        ({"assistant_id": "a", "command": UPDATE}, frozenset({"resume"}), "only resume"),
        ({"assistant_id": "a", "webhook": "http://10.0.0.1/x"}, NONE, "webhook"),
        ({"assistant_id": "a", "checkpoint_id": "c1"}, NONE, "checkpoint_id"),
        ({"assistant_id": "a", "interrupt_before": ["generate"]}, NONE, "interrupt_before"),
        ({"assistant_id": "a", "after_seconds": 3600}, NONE, "after_seconds"),
        ({"assistant_id": "a", "config": {"configurable": {"top_k": 3}}}, NONE, None),
        (
            {"assistant_id": "a", "config": {"configurable": {"checkpoint_id": "c"}}},
            NONE,
            "checkpoint_id",
        ),
        (
            {"assistant_id": "a", "config": {"configurable": {"__pregel_x": 1}}},
            NONE,
            "__pregel_x",
        ),
        ({"assistant_id": "a", "config": {"callbacks": []}}, NONE, "callbacks"),
        ({"assistant_id": "a", "config": "x"}, NONE, "object"),
        (["not", "a", "run"], NONE, "object"),
    ],
)
def test_a_run_carries_only_what_starts_a_run(
    body: Any, opened: frozenset[str], refused: str | None
) -> None:
    problem = check_run(body, opened)
    if refused is None:
        assert problem is None
    else:
        assert problem is not None and refused in problem


@pytest.mark.parametrize(
    ("body", "refused"),
    [
        ({"method": "tools/call", "params": {"name": "t", "arguments": {"question": "q"}}}, None),
        ({"method": "tools/call", "params": {"name": "t", "context": {"top_k": 2}}}, None),
        ({"method": "tools/call", "params": {"name": "t", "context": "x"}}, "params.context"),
        ({"method": "tools/call", "params": {"name": "t", "context": [1]}}, "params.context"),
        ({"method": "tools/call", "params": {"name": "t", "arguments": 3}}, "params.arguments"),
        ({"method": "tools/call", "params": "x"}, "params"),
        ({"method": "tools/list"}, None),
        ([], "JSON-RPC"),
    ],
)
def test_an_mcp_tool_call_has_object_arguments_and_context(body: Any, refused: str | None) -> None:
    problem = check_mcp(body, NONE)
    assert problem is None if refused is None else (problem is not None and refused in problem)


MESSAGE = {"role": "ROLE_USER", "messageId": "m1", "parts": [{"data": {"question": "q"}}]}


@pytest.mark.parametrize(
    ("params", "refused"),
    [
        ({"message": MESSAGE}, None),
        ({"message": {**MESSAGE, "contextId": "c1", "taskId": "t1"}}, None),
        ({"message": {**MESSAGE, "command": UPDATE}}, "command"),
        ({"message": MESSAGE, "command": UPDATE}, "command"),
        ({"message": "x"}, "object"),
    ],
)
def test_an_a2a_message_carries_no_command(params: Any, refused: str | None) -> None:
    problem = check_a2a(
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}, NONE
    )
    assert problem is None if refused is None else (problem is not None and refused in problem)


def test_refusals_are_403_or_400_with_a_reason_and_allowed_requests_pass_whole() -> None:
    http = client()
    passed = http.post("/threads/t1/runs/wait", json={"assistant_id": "a", "input": {"q": 1}})
    assert passed.status_code == 200 and passed.json()["bytes"] > 0  # the body reached the app
    state = http.post("/threads/t1/state", json={"values": {"iteration": -40}})
    assert state.status_code == 403 and "POST /threads/t1/state" in state.json()["detail"]
    goto = http.post("/threads/t1/runs/wait", json={"assistant_id": "a", "command": UPDATE})
    assert goto.status_code == 403 and "command" in goto.json()["detail"]
    broken = http.post(
        "/threads/t1/runs", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400 and "Traceback" not in broken.text
    supersteps = http.post("/threads", json={"supersteps": [{"updates": []}]})
    assert supersteps.status_code == 403 and "supersteps" in supersteps.json()["detail"]


def test_websockets_are_refused() -> None:
    from starlette.websockets import WebSocketDisconnect

    with (
        pytest.raises(WebSocketDisconnect),
        client().websocket_connect("/threads/t1/stream/events"),
    ):
        pass


def test_an_opened_kind_passes_through_the_middleware() -> None:
    assert client().post("/assistants", json={"graph_id": "g"}).status_code == 403
    assert client("assistants").post("/assistants", json={"graph_id": "g"}).status_code == 200
