"""Fixtures shared across the test suites."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# A shared model server the developer keeps running (`judged-rag model serve`) must not
# answer for the tests; the tests of that feature turn it back on where they need it.
os.environ.setdefault("JUDGED_RAG_SHARED_MODEL", "0")


@pytest.fixture
def judged_rag_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh `$JUDGED_RAG_HOME` for one test: models, indexes and caches land there."""
    home = tmp_path / "home"
    monkeypatch.setenv("JUDGED_RAG_HOME", str(home))
    return home


@pytest.fixture
def no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OpenAI key or endpoint from the developer's shell leaks into a test."""
    for var in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
