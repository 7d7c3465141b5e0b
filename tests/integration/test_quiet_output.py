"""What the command line prints: results, not the libraries' chatter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.servers import env_with_repo_on_path

pytestmark = pytest.mark.slow


def run_index(
    tmp_path: Path, *, verbose: bool = False, quiet: bool = True
) -> subprocess.CompletedProcess[str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tea.md").write_text(
        "# Tea\n\nGreen tea is brewed from steamed leaves. Oolong is partly oxidised.\n",
        encoding="utf-8",
    )
    cmd = [sys.executable, "-m", "judged_rag.cli", *(["-v"] if verbose else []), "index"]
    cmd += [str(docs), "--index", str(tmp_path / "index"), "--pseudo-queries", "0"]
    cmd += ["--quiet"] if quiet else []
    env = env_with_repo_on_path(JUDGED_RAG_HOME=str(tmp_path / "home"))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)


def test_a_quiet_build_prints_one_summary_line_on_stderr(tmp_path: Path) -> None:
    done = run_index(tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("judged-rag: indexed 1 files"), lines
    assert "Loading weights" not in done.stderr and "bm25s" not in done.stderr


def test_a_build_with_progress_shows_its_own_bars_and_not_bm25s(tmp_path: Path) -> None:
    # bm25s's bars opened at 0 % and vanished: noise on a user's first build.
    done = run_index(tmp_path, quiet=False)
    assert done.returncode == 0, done.stderr
    assert "embedding chunks" in done.stderr
    assert "BM25S" not in done.stderr and "Split strings" not in done.stderr


def test_verbose_shows_the_libraries_again(tmp_path: Path) -> None:
    done = run_index(tmp_path, verbose=True)
    assert done.returncode == 0, done.stderr
    assert "bm25s" in done.stderr
