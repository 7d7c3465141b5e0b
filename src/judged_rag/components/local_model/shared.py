"""A local model server that outlives one command: `judged-rag model serve`.

Every `judged-rag ask` otherwise loads the model into a server of its own (5 s for the
bundled 1.5B model on two cores) and frees it at exit. `serve` keeps one server per
model file running on 127.0.0.1 and writes a record of where it listens, with a random
API key, into `paths.home() / "servers"` (owner-only permissions). `find_shared` reads that
record and hands its address to the next process that asks for the same model file;
anything wrong with it (not loopback, a dead process, another file, no answer with the
key) means no shared server, and the caller starts its own as before.

The record is the only thing a caller trusts, and only as far as it checks it: the
address must be 127.0.0.1, the model file's path, size and modification time must be the
caller's, and the server must answer `/v1/models` with the key before it is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import signal
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from judged_rag.components.local_model.server import LocalModelServer
from judged_rag.errors import ComponentError
from judged_rag.paths import home, process_alive, write_record

logger = logging.getLogger(__name__)

RECORD_VERSION = 1
SHARED_ENV = "JUDGED_RAG_SHARED_MODEL"
"""Set to 0 to never use a shared server (each process then starts its own)."""
_MAX_RECORD_BYTES = 4096


@dataclass(frozen=True)
class SharedServer:
    """Where a shared server listens, and the key its requests must carry."""

    base_url: str
    api_key: str
    alias: str
    pid: int


def servers_dir() -> Path:
    """Where the records of running shared servers are kept."""
    return home() / "servers"


def _identity(model_path: Path) -> dict[str, Any]:
    stat = model_path.stat()
    return {"model_path": str(model_path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def record_path(model_path: str | os.PathLike[str]) -> Path:
    """The record of the shared server for one model file (named by its resolved path)."""
    key = hashlib.sha256(str(Path(model_path).resolve()).encode()).hexdigest()[:16]
    return servers_dir() / f"{key}.json"


def _loopback_base_url(value: Any) -> str | None:
    """`value` if it is `http://127.0.0.1:<port>/v1` and nothing else, else None."""
    if not isinstance(value, str):
        return None
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        return None
    ok = (
        parts.scheme == "http"
        and parts.hostname == "127.0.0.1"
        and port is not None
        and 0 < port < 65536
        and parts.path == "/v1"
        and not (parts.query or parts.fragment or parts.username or parts.password)
    )
    return f"http://127.0.0.1:{port}/v1" if ok else None


def read_record(path: Path, model_path: Path) -> SharedServer | None:
    """The record at `path` if it is well formed and names `model_path` as it is now.

    It does not check that the server answers (`find_shared` does).
    """
    data = _load(path)
    return None if data is None else _server_from(data, model_path)


def _load(path: Path) -> dict[str, Any] | None:
    """The record's JSON object, or None (unreadable, not an object, over 4 KB)."""
    try:
        if path.stat().st_size > _MAX_RECORD_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _server_from(data: dict[str, Any], model_path: Path) -> SharedServer | None:
    if data.get("version") != RECORD_VERSION:
        return None
    base_url = _loopback_base_url(data.get("base_url"))
    pid, key, alias = data.get("pid"), data.get("api_key"), data.get("alias")
    valid = (
        base_url is not None
        and isinstance(pid, int)
        and not isinstance(pid, bool)
        and pid > 0
        and isinstance(key, str)
        and len(key) >= 32
        and isinstance(alias, str)
        and alias != ""
    )
    if not valid:
        return None
    try:
        same_file = all(data.get(k) == v for k, v in _identity(model_path).items())
    except OSError:
        return None
    if not same_file:
        return None
    assert base_url is not None and isinstance(pid, int)  # for the type checker
    return SharedServer(base_url=base_url, api_key=str(key), alias=str(alias), pid=pid)


def _answers(server: SharedServer, timeout: float = 2.0) -> bool:
    """Whether the server lists its model when asked with the key (loopback, no proxy)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(
        server.base_url + "/models", headers={"Authorization": f"Bearer {server.api_key}"}
    )
    try:
        with opener.open(request, timeout=timeout) as resp:
            body = resp.read(65536)
    except (urllib.error.URLError, OSError, ValueError):
        return False
    try:
        listed = json.loads(body).get("data") or []
    except (ValueError, AttributeError):
        return False
    return any(isinstance(m, dict) and m.get("id") == server.alias for m in listed)


def find_shared(model_path: str | os.PathLike[str]) -> SharedServer | None:
    """The running shared server for `model_path`, or None (then start one of your own).

    None too when `JUDGED_RAG_SHARED_MODEL=0`.
    """
    if os.environ.get(SHARED_ENV, "1").strip() == "0":
        return None
    path = Path(model_path).resolve()
    record = record_path(path)
    if not record.is_file():
        return None
    found = read_record(record, path)
    if found is None:
        logger.info("ignoring the shared-server record %s: malformed or for another file", record)
        return None
    if not process_alive(found.pid) or not _answers(found):
        logger.info("the shared server recorded in %s does not answer; starting one here", record)
        return None
    logger.info("using the shared local model server at %s (pid %d)", found.base_url, found.pid)
    return found


def _remove_own_record(path: Path, pid: int, key: str) -> None:
    """Remove the record only if it is still the one this process wrote."""
    data = _load(path)
    if data is not None and data.get("pid") == pid and data.get("api_key") == key:
        with contextlib.suppress(OSError):
            path.unlink()


def serve(
    model_path: str | os.PathLike[str],
    *,
    n_parallel: int = 4,
    ready: threading.Event | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Serve `model_path` for other processes until SIGINT/SIGTERM (or `stop` is set).

    Refuses to start when a shared server for the file is already running.

    Raises:
        ComponentError: Another shared server serves this file, or the server cannot start.
    """
    path = Path(model_path).resolve()
    record = record_path(path)
    running = read_record(record, path) if record.is_file() else None
    if running is not None and process_alive(running.pid) and _answers(running):
        raise ComponentError(
            f"a shared server for {path.name} already runs (pid {running.pid}, "
            f"{running.base_url}); stop it first"
        )
    key = secrets.token_urlsafe(32)
    server = LocalModelServer(path, n_parallel=n_parallel, api_key=key).start()
    done = stop or threading.Event()
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: done.set())
    pid = os.getpid()
    try:
        write_record(
            record,
            {
                "version": RECORD_VERSION,
                "pid": pid,
                "base_url": server.base_url,
                "api_key": key,
                "alias": server.alias,
                "n_parallel": n_parallel,
                "started": datetime.now(UTC).isoformat(timespec="seconds"),
                **_identity(path),
            },
        )
        logger.warning(
            "serving %s at %s for other judged-rag commands (record %s); Ctrl-C stops it",
            path.name,
            server.base_url,
            record,
        )
        if ready is not None:
            ready.set()
        while not done.wait(0.5):
            pass
    finally:
        _remove_own_record(record, pid, key)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        started = time.perf_counter()
        server.stop(drain_timeout=server.client_timeout + 5.0)
        logger.info("shared server stopped in %.1f s", time.perf_counter() - started)


def status() -> list[dict[str, Any]]:
    """Every shared-server record: its model file, address, pid and whether it answers."""
    out: list[dict[str, Any]] = []
    directory = servers_dir()
    if not directory.is_dir():
        return out
    for record in sorted(directory.glob("*.json")):
        data = _load(record)
        if data is None:
            out.append({"record": str(record), "state": "unreadable"})
            continue
        model = Path(str(data.get("model_path", "")))
        found = _server_from(data, model) if model.is_file() else None
        if found is None:
            state = "stale (model file changed or record malformed)"
        elif not process_alive(found.pid):
            state = "stale (process gone)"
        else:
            state = "running" if _answers(found) else "not answering"
        out.append(
            {
                "record": str(record),
                "model": str(model),
                "base_url": data.get("base_url"),
                "pid": data.get("pid"),
                "started": data.get("started"),
                "state": state,
            }
        )
    return out
