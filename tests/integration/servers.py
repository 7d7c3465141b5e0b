"""Start and stop the servers the integration tests talk to, on loopback, bounded in time.

Each server runs in its own process group (`start_new_session=True`), so stopping it
ends everything it started, and `stop` checks that nothing of the group is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    for _ in range(20):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if not listening(port):
            return port
    raise RuntimeError("no free loopback port found")


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def env_with_repo_on_path(**extra: str) -> dict[str, str]:
    """The environment for a server that imports `tests.*` (the fakes)."""
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("LANGSMITH_TRACING", "false")
    return env


def start(
    cmd: Sequence[str], *, cwd: Path, log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a server in a new process group, its output going to `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            list(cmd),
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def wait_ready(
    proc: subprocess.Popen[bytes],
    url: str,
    *,
    log: Path,
    timeout: float = 90.0,
    headers: dict[str, str] | None = None,
) -> None:
    """Poll `url` until it answers 200; fail early if the server exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2.0, headers=headers).status_code == 200:
                return
        time.sleep(0.25)
    raise TimeoutError(f"{url} not ready after {timeout:.0f} s:\n{tail(log)}")


def stop(proc: subprocess.Popen[bytes], *, timeout: float = 20.0) -> None:
    """End the server's whole process group and check nothing of it is left."""
    pgid = proc.pid  # the leader of its own session and group
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        proc.wait(timeout=timeout)
    deadline = time.monotonic() + timeout
    while group_alive(pgid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            time.sleep(0.5)
            raise AssertionError(f"processes of group {pgid} outlived the server")
        time.sleep(0.1)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still exists."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def tail(log: Path, lines: int = 40) -> str:
    """The end of a log, for failure messages."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


PYTHON = sys.executable
LANGGRAPH = str(Path(sys.executable).parent / "langgraph")


class Server:
    """A `langgraph dev` server started by a test, and its client."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.url = f"http://127.0.0.1:{port}"

    def client(self) -> SyncLangGraphClient:
        return get_sync_client(url=self.url, api_key=None, timeout=60)


def start_dev_server(config: Path, cwd: Path, log: Path, **env: str) -> Server:
    """`langgraph dev` on a free loopback port; the log lives outside the project folder.

    `env`: extra environment variables for the server process.
    """
    port = free_port()
    cmd = [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--config", str(config)]
    proc = start(cmd, cwd=cwd, log=log, env=env_with_repo_on_path(**env))
    server = Server(proc, port, log)
    try:
        wait_ready(proc, f"{server.url}/ok", log=log)
        # The server moves to another port when its own is taken: make sure it is ours.
        ports = {int(p) for p in re.findall(r"API: \S*?127\.0\.0\.1:(\d+)", tail(log, 200))}
        assert ports == {port}, f"server announced {ports}, expected {port}"
    except BaseException:
        stop(proc)
        raise
    return server


def stop_and_check(server: Server) -> None:
    stop(server.proc)
    assert server.proc.returncode is not None
    assert not listening(server.port)


def guarded_config(project: Path, graphs: dict[str, Any]) -> Path:
    """A langgraph.json in `project` serving `graphs` behind the repository's `http` block
    (the guard app, pointed at the real module, and the CORS policy)."""
    http = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))["http"]
    http["app"] = f"{ROOT / 'src' / 'judged_rag' / 'http_guard.py'}:app"
    config = project / "langgraph.json"
    config.write_text(
        json.dumps({"dependencies": ["."], "graphs": graphs, "http": http}), encoding="utf-8"
    )
    return config


@contextlib.contextmanager
def dev_server(config: Path, cwd: Path, log: Path, **env: str) -> Iterator[Server]:
    """`start_dev_server` for the length of a `with` block, then `stop_and_check`."""
    server = start_dev_server(config, cwd, log, **env)
    try:
        yield server
    finally:
        stop_and_check(server)
