"""judged-rag as a tool of other agents, through the LangGraph API server (`langgraph dev`).

The server exposes every assistant as an MCP tool (`/mcp`, streamable HTTP) and as an A2A
agent (`/a2a/{assistant_id}`). One server runs two locked graphs on LangChain fakes
(`server_graph.py`): one that answers, one that abstains. The repository's own
langgraph.json supplies the description and the HTTP guard. The clients are the
official ones: `mcp` and `a2a-sdk`, over loopback.
"""

from __future__ import annotations

import ast
import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, Task, TaskState
from a2a.utils.errors import InvalidParamsError
from google.protobuf import struct_pb2
from mcp import Client as McpClient
from mcp.shared.exceptions import MCPError

from tests.integration import server_graph
from tests.integration.servers import (
    ROOT,
    Server,
    dev_server,
    guarded_config,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

QUESTION = "What is the capital of France?"
REPOSITORY_CONFIG = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
DESCRIPTION = REPOSITORY_CONFIG["graphs"]["judged_rag"]["description"]
T = TypeVar("T")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("agent_protocols")
    project = base / "project"
    project.mkdir()
    fakes = Path(server_graph.__file__).resolve()
    graphs = {
        "judged_rag": {"path": f"{fakes}:served_graph", "description": DESCRIPTION},
        server_graph.ABSTAINING_NAME: f"{fakes}:abstaining_graph",
    }
    config = guarded_config(project, graphs)
    with dev_server(config, project, base / "server.log") as srv:
        yield srv


def output_of(text: str) -> dict[str, Any]:
    """The run's output in a tool result: the server writes it as a Python literal."""
    value = ast.literal_eval(text)
    assert isinstance(value, dict)
    return value


def judge_scores(output: dict[str, Any]) -> list[float]:
    return [e["detail"]["score"] for e in output["trace"] if e["event"] == "judged"]


# --- MCP ------------------------------------------------------------------------------


def with_mcp(server: Server, use: Callable[[McpClient], Awaitable[T]]) -> T:
    """Open an MCP session to the server, use it, close it."""

    async def session() -> T:
        async with McpClient(f"{server.url}/mcp", read_timeout_seconds=60) as client:
            return await use(client)

    return asyncio.run(session())


def mcp_post(server: Server, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    """A raw JSON-RPC request to /mcp: what any MCP client can send, fields the SDK hides."""
    return httpx.post(
        f"{server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={"Accept": "application/json, text/event-stream", **headers},
        timeout=60,
    )


def test_mcp_lists_judged_rag_with_a_description_and_its_input_schema(server: Server) -> None:
    tools = with_mcp(server, lambda c: c.list_tools()).tools
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"judged_rag", server_graph.ABSTAINING_NAME}
    tool = by_name["judged_rag"]
    assert tool.description == DESCRIPTION
    for word in ("citations", "abstained", "reason", "Unknown", "options"):
        assert word in DESCRIPTION
    schema = tool.input_schema
    assert schema["type"] == "object" and schema["required"] == ["question"]
    props = schema["properties"]
    assert set(props) == {"question", "options", "task_type"}
    assert props["question"]["type"] == "string" and props["question"]["description"]
    assert {"type": "array", "items": {"type": "string"}} in props["options"]["anyOf"]
    assert "closed-ended" in props["options"]["description"]
    # Without a description in langgraph.json the server makes one up from the name.
    assert by_name[server_graph.ABSTAINING_NAME].description == (
        f"Tool based on the {server_graph.ABSTAINING_NAME} assistant"
    )


def test_mcp_call_returns_the_answer_with_its_citations(server: Server) -> None:
    result = with_mcp(server, lambda c: c.call_tool("judged_rag", {"question": QUESTION}))
    assert result.is_error is not True
    (content,) = result.content
    out = output_of(content.text)  # type: ignore[union-attr]
    assert out["answer"] == server_graph.ANSWER
    assert out["abstained"] is False and out["reason"] is None
    (citation,) = out["citations"]
    assert citation["number"] == 1 and citation["source"].startswith("kb/doc")
    assert citation["snippet"].startswith("Fact number")


def test_mcp_options_make_a_closed_question(server: Server) -> None:
    result = with_mcp(
        server,
        lambda c: c.call_tool("judged_rag", {"question": QUESTION, "options": ["Paris", "Rome"]}),
    )
    assert result.is_error is not True
    out = output_of(result.content[0].text)  # type: ignore[union-attr]
    assert out["route"]["task_type"] == "closed"


def test_mcp_caller_can_tell_an_abstention_from_an_answer(server: Server) -> None:
    result = with_mcp(
        server, lambda c: c.call_tool(server_graph.ABSTAINING_NAME, {"question": QUESTION})
    )
    assert result.is_error is not True
    out = output_of(result.content[0].text)  # type: ignore[union-attr]
    assert out["abstained"] is True and out["answer"] == "Unknown"
    # Nothing was found anywhere, and the model does not know.
    assert out["reason"] == "model_declined" and out["citations"] == []


@pytest.mark.parametrize(
    "arguments", [{}, {"question": "   "}, {"question": 42}, {"question": "Q?", "options": "A"}]
)
def test_mcp_bad_input_is_a_tool_error(server: Server, arguments: dict[str, Any]) -> None:
    result = with_mcp(server, lambda c: c.call_tool("judged_rag", arguments))
    assert result.is_error is True
    # The server reports only the exception's class, not its message.
    assert result.content[0].text == "InvalidInputError"  # type: ignore[union-attr]


def test_mcp_bad_requests_are_protocol_errors_not_server_errors(server: Server) -> None:
    async def unknown_tool(client: McpClient) -> MCPError:
        with pytest.raises(MCPError, match="Unknown tool: nope") as caught:
            await client.call_tool("nope", {"question": QUESTION})
        return caught.value

    assert with_mcp(server, unknown_tool).code == -32602  # JSON-RPC: invalid params
    unknown = mcp_post(server, "resources/list", {})
    assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32601
    broken = httpx.post(
        f"{server.url}/mcp",
        content=b"{not json",
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        timeout=10,
    )
    # The guard answers it before the MCP handler sees it (it parses every body it checks).
    assert broken.status_code == 400
    assert broken.json() == {"detail": "the request body is not valid JSON"}


def test_mcp_keeps_operator_settings_locked(server: Server) -> None:
    def call(params: dict[str, Any]) -> dict[str, Any]:
        response = mcp_post(server, "tools/call", {"name": "judged_rag", **params})
        assert response.status_code == 200
        result: dict[str, Any] = response.json()["result"]
        return result

    def output(params: dict[str, Any]) -> dict[str, Any]:
        result = call(params)
        assert not result.get("isError"), result
        return output_of(result["content"][0]["text"])

    clean = output({"arguments": {"question": QUESTION}})
    # The server's MCP route hands a `context` field of tools/call to the run: a client
    # setting passes (lowering a budget), operator settings are dropped by the server's
    # context schema, and a budget above the operator's is refused.
    lowered = output({"arguments": {"question": QUESTION}, "context": {"top_k": 1}})
    assert lowered["route"]["knowledge"] == 1 < clean["route"]["knowledge"]
    operator = {"kb_reliability": "A", "index_dir": "/etc", "model": "openai:gpt-4o"}
    sent = output({"arguments": {"question": QUESTION}, "context": operator})
    assert judge_scores(sent) == judge_scores(clean) == [0.8, 0.8]  # still grade B
    ceiling = server_graph.OPERATOR_SETTINGS["max_knowledge"]
    refused = call({"arguments": {"question": QUESTION}, "context": {"max_knowledge": ceiling + 3}})
    assert refused["isError"] is True and refused["content"][0]["text"] == "SettingsRefused"
    # Settings smuggled into the arguments are not input keys: the run ignores them.
    smuggled = output({"arguments": {"question": QUESTION, **operator, "configurable": operator}})
    assert judge_scores(smuggled) == judge_scores(clean)


def test_mcp_goes_through_the_http_guard(server: Server) -> None:
    listed = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    accept = {"Accept": "application/json"}
    rebound = httpx.post(
        f"{server.url}/mcp", json=listed, headers={**accept, "Host": "attacker.example"}
    )
    assert rebound.status_code == 400
    simple = httpx.post(
        f"{server.url}/mcp",
        content=json.dumps(listed).encode(),
        headers={**accept, "Content-Type": "text/plain"},
    )
    assert simple.status_code == 415


def test_mcp_is_stateless(server: Server) -> None:
    init = mcp_post(
        server,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    )
    assert init.status_code == 200 and "mcp-session-id" not in init.headers
    assert init.json()["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert (
        httpx.get(f"{server.url}/mcp", headers={"Accept": "text/event-stream"}).status_code == 405
    )
    assert httpx.delete(f"{server.url}/mcp").status_code == 404
    threads = server.client().threads.search(limit=1000)
    with_mcp(server, lambda c: c.call_tool("judged_rag", {"question": QUESTION}))
    assert len(server.client().threads.search(limit=1000)) == len(threads)  # no thread kept


# --- A2A ------------------------------------------------------------------------------


def assistant_id(server: Server, graph_id: str = "judged_rag") -> str:
    (assistant,) = server.client().assistants.search(graph_id=graph_id)
    return str(assistant["assistant_id"])


def data_part(values: dict[str, Any]) -> Part:
    data = struct_pb2.Value()
    data.struct_value.update(values)
    return Part(data=data)


def a2a_send(server: Server, *parts: Part, graph_id: str = "judged_rag") -> Task:
    """Send one user message with the official A2A client; the task it completes."""

    async def send() -> Task:
        async with httpx.AsyncClient(timeout=60) as http:
            config = ClientConfig(streaming=False, httpx_client=http)
            url = f"{server.url}/a2a/{assistant_id(server, graph_id)}"
            client = await create_client(url, config)
            message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=parts)
            tasks = [r.task async for r in client.send_message(SendMessageRequest(message=message))]
            await client.close()
        (task,) = tasks
        return task

    return asyncio.run(send())


def task_output(task: Task) -> dict[str, Any]:
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    (artifact,) = task.artifacts
    (part,) = artifact.parts
    return output_of(part.text)


def test_a2a_card_describes_judged_rag(server: Server) -> None:
    card = httpx.get(
        f"{server.url}/a2a/{assistant_id(server)}/.well-known/agent-card.json", timeout=10
    ).json()
    assert card["name"] == "judged_rag" and card["description"] == DESCRIPTION
    (skill,) = card["skills"]
    # The card offers text, but the graph takes structured input, not chat messages.
    assert "text/plain" in skill["inputModes"]
    assert skill["metadata"]["inputSchema"]["supportsA2A"] is False
    assert skill["metadata"]["inputSchema"]["required"] == ["question"]


def test_a2a_data_part_gets_the_answer_with_its_citations(server: Server) -> None:
    task = a2a_send(server, data_part({"question": QUESTION}))
    out = task_output(task)
    assert out["answer"] == server_graph.ANSWER and out["abstained"] is False
    assert [c["number"] for c in out["citations"]] == [1]
    # Unlike MCP, A2A keeps a thread per conversation (the task's context).
    assert server.client().threads.get(task.context_id)["thread_id"] == task.context_id


def test_a2a_caller_can_tell_an_abstention_from_an_answer(server: Server) -> None:
    task = a2a_send(
        server, data_part({"question": QUESTION}), graph_id=server_graph.ABSTAINING_NAME
    )
    out = task_output(task)
    assert out["abstained"] is True and out["reason"] == "model_declined"


def test_a2a_text_message_is_refused_with_a_clear_error(server: Server) -> None:
    with pytest.raises(InvalidParamsError, match="does not support A2A conversational messages"):
        a2a_send(server, Part(text=QUESTION))


def test_a2a_keeps_operator_settings_locked(server: Server) -> None:
    clean = task_output(a2a_send(server, data_part({"question": QUESTION})))
    smuggled = task_output(
        a2a_send(server, data_part({"question": QUESTION, "kb_reliability": "A"}))
    )
    assert judge_scores(smuggled) == judge_scores(clean) == [0.8, 0.8]
    ceiling = server_graph.OPERATOR_SETTINGS["max_knowledge"]
    raised = httpx.post(
        f"{server.url}/a2a/{assistant_id(server)}",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {
                "message": {
                    "role": "ROLE_USER",
                    "messageId": str(uuid.uuid4()),
                    "parts": [{"data": {"question": QUESTION}}],
                },
                "context": {"max_knowledge": ceiling + 3},
            },
        },
        headers={"Accept": "application/json"},
        timeout=60,
    )
    assert raised.status_code == 200
    status = raised.json()["result"]["task"]["status"]
    assert status["state"] == "TASK_STATE_FAILED"
    assert status["message"]["parts"] == [
        {"kind": "text", "text": "Error executing assistant: SettingsRefused"}
    ]
