"""The shared model server's record: what a caller accepts from it, and what it refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judged_rag.components.local_model import shared
from judged_rag.components.local_model.shared import (
    _remove_own_record,
    find_shared,
    read_record,
    record_path,
)

KEY = "k" * 43


@pytest.fixture
def model(judged_rag_home: Path) -> Path:
    path = judged_rag_home / "m.gguf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"GGUF" + b"\0" * 60)
    return path


def _record(model: Path, **changes: Any) -> dict[str, Any]:
    stat = model.stat()
    data: dict[str, Any] = {
        "version": 1,
        "pid": os.getpid(),
        "base_url": "http://127.0.0.1:40123/v1",
        "api_key": KEY,
        "alias": "m",
        "model_path": str(model.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }
    data.update(changes)
    return data


def _write(model: Path, data: Any) -> Path:
    path = record_path(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_a_well_formed_record_for_this_file_is_read(model: Path) -> None:
    found = read_record(_write(model, _record(model)), model.resolve())
    assert found is not None
    assert (found.base_url, found.api_key, found.alias, found.pid) == (
        "http://127.0.0.1:40123/v1",
        KEY,
        "m",
        os.getpid(),
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"base_url": "http://10.0.0.7:40123/v1"},  # not loopback
        {"base_url": "http://localhost:40123/v1"},  # a name resolves elsewhere
        {"base_url": "https://127.0.0.1:40123/v1"},
        {"base_url": "http://127.0.0.1:40123/v1?next=http://evil"},
        {"base_url": "http://user:pw@127.0.0.1:40123/v1"},
        {"base_url": "http://127.0.0.1:99999/v1"},
        {"base_url": "http://127.0.0.1/v1"},
        {"base_url": "http://127.0.0.1:40123/admin"},
        {"pid": True},
        {"pid": -1},
        {"pid": "123"},
        {"api_key": "short"},
        {"alias": ""},
        {"version": 2},
        {"size": 1},  # the model file changed since the server loaded it
        {"model_path": "/elsewhere/m.gguf"},
    ],
)
def test_a_record_that_fails_a_check_is_refused(model: Path, changes: dict[str, Any]) -> None:
    assert read_record(_write(model, _record(model, **changes)), model.resolve()) is None


@pytest.mark.parametrize("content", ["not json", "[]", "null", "x" * 5000])
def test_an_unreadable_record_is_refused(model: Path, content: str) -> None:
    path = record_path(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    assert read_record(path, model.resolve()) is None


def test_no_shared_server_when_turned_off(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(model, _record(model))
    monkeypatch.setattr(shared, "_answers", lambda server, timeout=2.0: True)
    monkeypatch.setenv("JUDGED_RAG_SHARED_MODEL", "1")
    assert find_shared(model) is not None
    monkeypatch.setenv("JUDGED_RAG_SHARED_MODEL", "0")
    assert find_shared(model) is None


def test_a_record_of_a_finished_process_is_not_used(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    _write(model, _record(model, pid=int(done.stdout)))
    monkeypatch.setattr(shared, "_answers", lambda server, timeout=2.0: True)
    monkeypatch.setenv("JUDGED_RAG_SHARED_MODEL", "1")
    assert find_shared(model) is None


def test_a_server_that_does_not_answer_with_the_key_is_not_used(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A live pid, a loopback port nobody listens on.
    _write(model, _record(model, base_url="http://127.0.0.1:9/v1"))
    monkeypatch.setenv("JUDGED_RAG_SHARED_MODEL", "1")
    assert find_shared(model) is None


def test_only_the_writer_removes_its_record(model: Path) -> None:
    path = _write(model, _record(model, pid=12345))
    _remove_own_record(path, os.getpid(), KEY)
    assert path.exists()  # another process's record stays
    _remove_own_record(path, 12345, KEY)
    assert not path.exists()
