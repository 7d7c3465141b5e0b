"""The gate written in the background by a real process, with the bundled SmolLM2."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judged_rag.cli import report_gate
from judged_rag.configuration import Configuration
from judged_rag.indexing import open_index
from judged_rag.indexing.gate_jobs import GateJob, read_job
from tests.integration.servers import env_with_repo_on_path

pytestmark = pytest.mark.slow

MODEL = "local:smollm2-135m"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "tea.md").write_text(
        "# Tea\n\nGreen tea is brewed from steamed leaves. Oolong is partly oxidised.\n"
    )
    (root / "mars.md").write_text(
        "# Mars\n\nMars is the fourth planet from the Sun. Olympus Mons is a volcano on it.\n"
    )
    (root / "moon.md").write_text("# Moon\n\nThe Moon is Earth's only natural satellite.\n")
    return root


def judged_rag(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = env_with_repo_on_path(JUDGED_RAG_HOME=str(tmp_path / "home"))
    return subprocess.run(
        [sys.executable, "-m", "judged_rag.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def finished(tmp_path: Path, index: Path, monkeypatch: pytest.MonkeyPatch) -> GateJob:
    """The job's record once it has ended (waiting for it, for at most ten minutes)."""
    monkeypatch.setenv("JUDGED_RAG_HOME", str(tmp_path / "home"))
    deadline = time.monotonic() + 600
    while True:
        job = read_job(index)
        assert job is not None
        if job.state != "building" or time.monotonic() > deadline:
            return job
        time.sleep(0.5)


def test_the_index_is_usable_at_once_and_the_job_adds_the_gate(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    args = ["index", str(docs), "--index", str(index), "--quiet"]
    done = judged_rag(tmp_path, *args, "--pseudo-queries", "5", "--model", MODEL)
    assert done.returncode == 0, done.stderr
    assert "the index is usable now" in done.stderr
    assert "3 pseudo-queries to write" in done.stderr  # three chunks: three calls
    # What the command left behind: a whole index without the gate, answering queries.
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["pseudo_queries"] == 0 and manifest["pseudo_query_prompt"] is None
    top = open_index(index).invoke("Which planet is fourth from the Sun?", k=1)
    assert top and top[0].metadata["title"] == "Mars"

    job = finished(tmp_path, index, monkeypatch)
    assert job.state == "done", Path(job.log).read_text()
    assert (job.done, job.total) == (3, 3)
    retriever = open_index(index)
    assert len(retriever.gate_similarities or []) == 3
    assert retriever.gate_progress().state == "ready"
    status = judged_rag(tmp_path, "status", "--index", str(index), "--json")
    assert json.loads(status.stdout)["gate"] == "ready", status.stderr


def test_a_rebuild_while_the_job_runs_is_never_overwritten_by_it(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    args = ["index", str(docs), "--index", str(index), "--quiet"]
    first = judged_rag(tmp_path, *args, "--pseudo-queries", "5", "--model", MODEL)
    assert first.returncode == 0, first.stderr
    (docs / "tea.md").write_text("# Tea\n\nPu-erh is a fermented tea from Yunnan.\n")
    second = judged_rag(tmp_path, *args, "--gate", "off")
    assert second.returncode == 0, second.stderr

    job = finished(tmp_path, index, monkeypatch)
    # Done before the rebuild swapped in, or discarded after: either way the rebuild's
    # index is what stays, without a gate (it was built with --gate off).
    assert job.state in ("done", "discarded"), Path(job.log).read_text()
    retriever = open_index(index)
    assert any("Pu-erh" in c.text for c in retriever.store.chunks)
    assert retriever.gate_similarities is None
    assert not (index / "gate.json").exists()


def test_ask_starts_the_sample_gate_once_and_reports_it(
    docs: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An index standing in for the sample (the real one takes minutes to build).
    index = tmp_path / "index"
    built = judged_rag(tmp_path, "index", str(docs), "--index", str(index), "--gate", "off")
    assert built.returncode == 0, built.stderr
    monkeypatch.setenv("JUDGED_RAG_HOME", str(tmp_path / "home"))
    cfg = Configuration(model=MODEL)

    report_gate(open_index(index), cfg, sample=True)
    assert "is now being built in the background (3 of 3" in capsys.readouterr().err
    started = read_job(index)
    assert started is not None
    report_gate(open_index(index), cfg, sample=True)  # a second question: no second job
    said = capsys.readouterr().err
    job = read_job(index)
    assert job is not None and job.job == started.job
    assert "is now being built" not in said

    job = finished(tmp_path, index, monkeypatch)
    assert job.state == "done", Path(job.log).read_text()
    report_gate(open_index(index), cfg, sample=True)
    assert capsys.readouterr().err == ""
