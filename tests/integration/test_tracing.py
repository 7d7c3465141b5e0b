"""LangSmith tracing: with the usual environment variables set, every node and every
internal LLM step reaches the tracing endpoint under its name.

The endpoint is a small capture server on loopback (LangSmith's own client posts to
it); the run happens in a subprocess so the tracing environment stays out of the rest
of the test session.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUN = """
from langchain_core.tracers.langchain import wait_for_all_tracers
from tests.unit.test_routes import (
    APOLLO, Components, components, generator, judge_model, label, run, scripted_retriever, verdict,
)
parts = Components(
    chat_model=generator("On 20 July 1969 [1]."),
    judge_model=judge_model(
        components("Apollo 11"), label("highly_relevant", "Apollo 11"), verdict()
    ),
    retriever=scripted_retriever([APOLLO]),
)
out = run(parts)
wait_for_all_tracers()
print(out["answer"])
"""


@pytest.fixture
def capture() -> Iterator[tuple[str, list[bytes]]]:
    bodies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers.get("content-length", 0))))
            self._ok()

        def do_GET(self) -> None:
            self._ok()

        def _ok(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", bodies
    finally:
        server.shutdown()
        thread.join(timeout=10)


def _names(blob: bytes) -> set[str]:
    return {m.decode() for m in re.findall(rb'"name":\s*"([^"]+)"', blob)}


def test_nodes_and_internal_calls_are_traced(capture: tuple[str, list[bytes]]) -> None:
    endpoint, bodies = capture
    env = {
        **os.environ,
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_ENDPOINT": endpoint,
        "LANGSMITH_API_KEY": "test-key",
        "LANGSMITH_PROJECT": "judged-rag-tests",
    }
    done = subprocess.run(
        [sys.executable, "-c", RUN],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("On 20 July 1969 [1].")
    names = _names(b"".join(bodies))
    assert {
        "judged_rag",
        "gate",
        "parse",
        "retrieve",
        "judge",
        "assess",
        "combine",
        "generate",
        "verify",
    } <= names
    assert {
        "judged_rag.parse",
        "judged_rag.judge",
        "judged_rag.verify",
    } <= names  # the internal LLM steps
    assert b"nostream" in b"".join(
        bodies
    )  # and their tag, which keeps them out of the token stream
