"""The LangGraph API server (`langgraph dev`, what LangGraph Studio talks to), over loopback.

One server runs a graph on LangChain fakes (`server_graph.py`), so runs are deterministic
and need no model; another starts on the repository's own `langgraph.json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import SyncLangGraphClient

from tests.integration import server_graph
from tests.integration.servers import (
    ROOT,
    Server,
    dev_server,
    guarded_config,
    start_dev_server,
    stop_and_check,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

QUESTION = {"question": "What is the capital of France?"}
NODES = [
    "start",
    "gate",
    "parse",
    "retrieve",
    "judge",
    "judge",
    "assess",
    "combine",
    "integrate",
    "generate",
    "verify",
    "finish",
]


def test_repository_langgraph_json_loads(tmp_path: Path) -> None:
    # The in-memory runtime writes `.langgraph_api/` into its working directory, and graph
    # paths in langgraph.json are relative to it: run from a scratch folder that mirrors
    # the repository layout, with the repository's langgraph.json itself as --config.
    project = tmp_path / "project"
    project.mkdir()
    (project / "src").symlink_to(ROOT / "src", target_is_directory=True)
    server = start_dev_server(ROOT / "langgraph.json", project, tmp_path / "server.log")
    try:
        client = server.client()
        assistants = client.assistants.search(graph_id="judged_rag")
        assert [a["graph_id"] for a in assistants] == ["judged_rag"]
        described = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
        assert assistants[0]["description"] == described["graphs"]["judged_rag"]["description"]
        schemas: dict[str, Any] = dict(client.assistants.get_schemas(assistants[0]["assistant_id"]))
        assert "question" in schemas["input_schema"]["properties"]
        assert "max_knowledge" in schemas["context_schema"]["properties"]
    finally:
        stop_and_check(server)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("langgraph_server")
    project = base / "project"
    project.mkdir()
    config = project / "langgraph.json"
    graph_path = Path(server_graph.__file__).resolve()
    config.write_text(
        json.dumps({"dependencies": ["."], "graphs": {"judged_rag": f"{graph_path}:graph"}}),
        encoding="utf-8",
    )
    with dev_server(config, project, base / "server.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server: Server) -> SyncLangGraphClient:
    return server.client()


def run(client: SyncLangGraphClient, thread_id: str, **kw: Any) -> dict[str, Any]:
    result = client.runs.wait(thread_id, "judged_rag", input=QUESTION, **kw)
    assert isinstance(result, dict)
    return result


def test_a_run_completes(client: SyncLangGraphClient) -> None:
    thread = client.threads.create()
    out = run(client, thread["thread_id"])
    assert out["answer"] == server_graph.ANSWER
    assert [c["number"] for c in out["citations"]] == [1]
    assert out["abstained"] is False and out["basis"] == "combined"
    assert out["route"]["iterations"] == 1 and out["route"]["gate"] == "retrieve"
    assert set(out) <= {"answer", "citations", "abstained", "reason", "basis", "route"} | {
        "trace",
        "cost",
    }


def test_stream_sends_node_updates_and_answer_tokens_from_generate_only(
    client: SyncLangGraphClient,
) -> None:
    thread = client.threads.create()
    nodes: list[str] = []
    tokens: list[tuple[str, str]] = []
    for part in client.runs.stream(
        thread["thread_id"],
        "judged_rag",
        input=QUESTION,
        stream_mode=["updates", "messages-tuple"],
    ):
        if part.event == "updates":
            nodes += list(part.data)
        elif part.event == "messages":
            message, meta = part.data
            tokens.append((meta["langgraph_node"], message["content"]))
        elif part.event == "error":
            pytest.fail(f"run failed: {part.data}")
    assert nodes == NODES
    assert {node for node, _ in tokens} == {"generate"}
    assert len(tokens) > 3  # token by token
    assert "".join(text for _, text in tokens) == server_graph.ANSWER


def test_thread_state_and_a_second_run_resets_per_run_counters(
    client: SyncLangGraphClient,
) -> None:
    thread_id = client.threads.create()["thread_id"]
    first = run(client, thread_id)
    state = client.threads.get_state(thread_id)
    assert state["next"] == []
    values = state["values"]
    assert isinstance(values, dict)
    assert values["answer"] == server_graph.ANSWER
    assert len(values["judgments"]) == server_graph.DOCS_PER_RETRIEVAL

    second = run(client, thread_id)
    assert second["cost"]["llm_calls"] == first["cost"]["llm_calls"] == 6
    assert first["route"]["iterations"] == second["route"]["iterations"] == 1
    assert len(second["trace"]) == len(first["trace"])
    values = client.threads.get_state(thread_id)["values"]
    assert isinstance(values, dict)
    assert len(values["judgments"]) == server_graph.DOCS_PER_RETRIEVAL  # not accumulated
    assert values["iteration"] == 0 and values["regenerations"] == 0
    assert len(client.threads.get_history(thread_id, limit=100)) > len(NODES)


def test_settings_reach_the_run_as_context_or_configurable(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    assert run(client, thread_id)["route"]["knowledge"] == server_graph.DOCS_PER_RETRIEVAL
    # top_k: max_knowledge no longer cuts Highly Relevant documents (RJAG keeps them all).
    via_context = run(client, thread_id, context={"top_k": 1})
    via_config = run(client, thread_id, config={"configurable": {"top_k": 1}})
    assert via_context["route"]["knowledge"] == via_config["route"]["knowledge"] == 1


def test_invalid_input_fails_the_run_with_the_reason(client: SyncLangGraphClient) -> None:
    thread_id = client.threads.create()["thread_id"]
    with pytest.raises(Exception, match="question is empty"):
        client.runs.wait(thread_id, "judged_rag", input={"question": "  "})


def test_schemas_expose_the_settings_with_descriptions(client: SyncLangGraphClient) -> None:
    (assistant,) = client.assistants.search(graph_id="judged_rag")
    schemas: dict[str, Any] = dict(client.assistants.get_schemas(assistant["assistant_id"]))
    context = schemas["context_schema"]
    assert context is not None
    props = context["properties"]
    assert len(props) > 30
    assert all(p.get("description") for p in props.values())
    webs = ["auto", "offline_wikipedia", "tavily", "duckduckgo", "none"]
    assert props["web_search"]["enum"] == webs
    assert set(schemas["input_schema"]["properties"]) == {"question", "options", "task_type"}
    assert "answer" in schemas["output_schema"]["properties"]
    drawn = client.assistants.get_graph(assistant["assistant_id"])
    assert {"gate", "judge", "generate", "verify"} <= {n["id"] for n in drawn["nodes"]}


# --- the lock: what a remote client may set, and the HTTP guard of langgraph.json ---------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The fake-model graph behind the lock (`remote=True`), with the repository's `http`
    block of langgraph.json (guard app and CORS) pointed at the real module."""
    base = tmp_path_factory.mktemp("langgraph_served")
    project = base / "project"
    project.mkdir()
    graph_path = Path(server_graph.__file__).resolve()
    config = guarded_config(project, {"judged_rag": f"{graph_path}:served_graph"})
    with dev_server(config, project, base / "server.log") as srv:
        yield srv


OTHER_VALUES: dict[str, Any] = {
    "index_dir": "/etc",
    "database_url": "postgresql+psycopg://attacker.example:5432/db",
    "store": "postgres",
    "collection": "other_team",
    "model": "openai:gpt-4o",
    "base_url": "http://127.0.0.1:9/v1",
    "web_search": "tavily",
}


@pytest.mark.parametrize("name", sorted(OTHER_VALUES))
def test_served_graph_refuses_operator_settings_in_configurable(served: Server, name: str) -> None:
    client = served.client()
    thread_id = client.threads.create()["thread_id"]
    with pytest.raises(Exception, match=f"{name} is fixed by the server"):
        client.runs.wait(
            thread_id,
            "judged_rag",
            input=QUESTION,
            config={"configurable": {name: OTHER_VALUES[name]}},
            raise_error=True,
        )


def test_served_graph_ignores_operator_settings_in_context(served: Server) -> None:
    # The server keeps only the context schema's fields (the client settings): an
    # operator setting sent as context never reaches the run.
    client = served.client()
    thread_id = client.threads.create()["thread_id"]
    clean = run(client, thread_id)
    plain = client.threads.get_state(thread_id)["values"]
    sent = run(client, thread_id, context={"kb_reliability": "A", "index_dir": "/etc"})
    values = client.threads.get_state(thread_id)["values"]
    assert isinstance(plain, dict) and isinstance(values, dict)
    assert sent["answer"] == clean["answer"]
    scores = [j["composite_score"] for j in values["judgments"]]
    assert scores == [j["composite_score"] for j in plain["judgments"]]  # still grade B


def test_served_graph_budgets_are_ceilings(served: Server) -> None:
    client = served.client()
    thread_id = client.threads.create()["thread_id"]
    ceiling = server_graph.OPERATOR_SETTINGS["max_knowledge"]
    with pytest.raises(
        Exception, match=f"max_knowledge=5 is above the server's limit \\({ceiling}\\)"
    ):
        client.runs.wait(
            thread_id, "judged_rag", input=QUESTION, context={"max_knowledge": 5}, raise_error=True
        )
    with pytest.raises(Exception, match="max_llm_calls=1000"):
        client.runs.wait(
            thread_id,
            "judged_rag",
            input=QUESTION,
            config={"configurable": {"max_llm_calls": 1000}},
            raise_error=True,
        )
    lowered = run(client, thread_id, context={"top_k": 1})
    assert lowered["route"]["knowledge"] == 1


def test_served_graph_schema_offers_only_client_settings(served: Server) -> None:
    client = served.client()
    (assistant,) = client.assistants.search(graph_id="judged_rag")
    schemas: dict[str, Any] = dict(client.assistants.get_schemas(assistant["assistant_id"]))
    props = set(schemas["context_schema"]["properties"])
    assert "top_k" in props and "judge" in props
    assert props.isdisjoint(OTHER_VALUES)


def test_guard_refuses_foreign_hosts_plain_text_and_oversized_bodies(served: Server) -> None:
    url = f"{served.url}/assistants/search"
    logged = len(served.log.read_bytes())
    ok = httpx.post(url, json={"limit": 1}, timeout=10)
    assert ok.status_code == 200
    rebound = httpx.post(url, json={"limit": 1}, headers={"Host": "attacker.example"}, timeout=10)
    assert rebound.status_code == 400
    simple = httpx.post(
        url, content=b'{"limit": 1}', headers={"Content-Type": "text/plain"}, timeout=10
    )
    assert simple.status_code == 415
    big = httpx.post(url, json={"metadata": {"x": "a" * (2 << 20)}}, timeout=30)
    assert big.status_code == 413

    def chunks() -> Iterator[bytes]:
        yield b'{"metadata": {"x": "'
        for _ in range(40):
            yield b"a" * 65536
        yield b'"}}'

    streamed = httpx.post(
        url, content=chunks(), headers={"Content-Type": "application/json"}, timeout=30
    )
    assert streamed.status_code == 413
    assert b"Traceback" not in served.log.read_bytes()[logged:]


def test_cors_answers_only_the_studio_origin(served: Server) -> None:
    def preflight(origin: str) -> httpx.Response:
        return httpx.options(
            f"{served.url}/runs/wait",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
            timeout=10,
        )

    studio = preflight("https://smith.langchain.com")
    assert studio.headers.get("access-control-allow-origin") == "https://smith.langchain.com"
    other = preflight("https://attacker.example")
    assert "access-control-allow-origin" not in other.headers
