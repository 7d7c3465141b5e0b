"""llama.cpp's OpenAI-compatible server (xllamacpp) on 127.0.0.1, in this process.

Servers are shared per model file (`get_server`), started on demand and stopped at
interpreter exit (`stop_all_servers`), waiting for requests in flight: xllamacpp's
destructor would otherwise block the whole process.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from judged_rag.errors import ComponentError

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

_DRAIN_POLL_S = 2.0


def _auth(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _http_get(url: str, timeout: float, api_key: str | None = None) -> int:
    # Loopback traffic must never go through a proxy from the environment.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(
            urllib.request.Request(url, headers=_auth(api_key)), timeout=timeout
        ) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (urllib.error.URLError, OSError):
        return 0


def _requests_in_flight(address: str, api_key: str | None = None) -> int | None:
    """Requests the server is processing or has deferred; None if it does not answer."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(address + "/metrics", headers=_auth(api_key))
    try:
        with opener.open(request, timeout=2.0) as resp:
            text = resp.read().decode()
    except (urllib.error.URLError, OSError):
        return None
    busy = 0
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("llamacpp:requests_processing", "llamacpp:requests_deferred"):
            busy += int(float(value))
    return busy


def _leak(server: object) -> None:
    """Keep a native server alive until the process exits, never running its destructor.

    Its destructor can block forever with the GIL held (a request in flight, or a loop
    not yet started); an extra reference keeps even interpreter shutdown from calling it.
    A last resort: the process may then crash at exit if the server is still decoding.
    """
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(server))


class LocalModelServer:
    """llama.cpp's OpenAI-compatible server (xllamacpp) on 127.0.0.1, in this process.

    The server runs on native threads of this process: no subprocess. Its constructor
    holds the GIL while the model loads (1-5 s here), so other Python threads pause.

    Args:
        model_path: The GGUF file.
        n_parallel: Request slots decoded together (continuous batching).
        ctx_per_slot: Context tokens per slot; the server's context is this times
            `n_parallel`.
        n_threads: CPU threads (default: the cores this process may use).
        startup_timeout: Seconds to wait for the server to answer after loading.
        alias: Model name the server reports (default: the file's stem).
        api_key: A key every request must carry (`Authorization: Bearer`); None: none,
            for a server only this process knows the port of.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        n_parallel: int = 4,
        ctx_per_slot: int = 2048,
        n_threads: int | None = None,
        startup_timeout: float = 60.0,
        alias: str | None = None,
        api_key: str | None = None,
    ) -> None:
        if n_parallel < 1 or ctx_per_slot < 256:
            raise ValueError("n_parallel must be >= 1 and ctx_per_slot >= 256")
        self.model_path = Path(model_path)
        self.n_parallel = n_parallel
        self.ctx_per_slot = ctx_per_slot
        self.n_threads = n_threads or len(os.sched_getaffinity(0)) or 1
        self.startup_timeout = startup_timeout
        self.alias = alias or self.model_path.stem
        self.api_key = api_key
        self.start_seconds: float | None = None
        self.client_timeout = 30.0
        """Longest request timeout of the clients built by `local_chat_model`."""
        self._lock = threading.RLock()
        self._server: Any = None
        self._address: str | None = None
        self._clients: tuple[httpx.Client, httpx.AsyncClient] | None = None

    def __repr__(self) -> str:
        state = self._address or "stopped"
        return f"LocalModelServer({self.model_path.name!r}, n_parallel={self.n_parallel}, {state})"

    @property
    def running(self) -> bool:
        """Whether the server is up."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL (`http://127.0.0.1:<port>/v1`).

        Raises:
            ComponentError: The server is not running.
        """
        address = self._address
        if address is None:
            raise ComponentError(f"{self!r} is not running; call start() first.")
        return f"{address}/v1"

    def start(self) -> LocalModelServer:
        """Load the model and serve it; a no-op when already running.

        Raises:
            ComponentError: xllamacpp is missing, the model does not load, or the server
                does not answer within `startup_timeout`.
        """
        with self._lock:
            if self._server is not None:
                return self
            try:
                import xllamacpp
            except ImportError as exc:
                raise ComponentError("Local models need xllamacpp: pip install xllamacpp") from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(self.model_path)
            params.model_alias = {self.alias}
            params.hostnames = ["127.0.0.1"]
            # Port 0: the kernel binds a free port atomically (no probe-then-bind race);
            # the real port is read back from listening_address and checked below.
            params.port = 0
            params.n_parallel = self.n_parallel
            params.cont_batching = True
            params.n_ctx = self.ctx_per_slot * self.n_parallel
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.endpoint_metrics = True  # /metrics is the readiness probe, see below
            if self.api_key:
                params.api_keys = [self.api_key]
            # llama.cpp logs straight to stderr: errors only unless we debug.
            params.verbosity = 3 if logger.isEnabledFor(logging.DEBUG) else 1
            started = time.perf_counter()
            try:
                server = xllamacpp.Server(params)
            except (RuntimeError, ValueError) as exc:
                raise ComponentError(f"xllamacpp could not load {self.model_path}: {exc}") from exc
            address = str(server.listening_address).rstrip("/")
            parts = urlsplit(address)
            if parts.hostname != "127.0.0.1" or not parts.port:
                _leak(server)
                raise ComponentError(f"xllamacpp listens on {address!r}, not 127.0.0.1")
            # /health answers once the HTTP side is up; /metrics goes through the task
            # loop, so its answer proves the loop runs. Only then is the server safe to
            # destroy: a destructor racing the loop's start never returns, and it holds
            # the GIL, freezing the whole process (seen with xllamacpp 2026.10.11549).
            deadline = started + self.startup_timeout
            for probe in ("/health", "/metrics"):
                while _http_get(address + probe, timeout=2.0, api_key=self.api_key) != 200:
                    if time.perf_counter() > deadline:
                        _leak(server)
                        raise ComponentError(
                            f"Local model server at {address} did not answer {probe} "
                            f"within {self.startup_timeout:.0f} s"
                        )
                    time.sleep(0.05)
            self._server = server
            self._address = address
            self.start_seconds = time.perf_counter() - started
            _RUNNING.add(self)
            logger.info(
                "local model server %s for %s started in %.1f s (%d slots x %d ctx, %d threads)",
                address,
                self.model_path.name,
                self.start_seconds,
                self.n_parallel,
                self.ctx_per_slot,
                self.n_threads,
            )
            return self

    def stop(self, drain_timeout: float = 30.0) -> bool:
        """Stop serving and free the model, once the requests in flight are done.

        Waits up to `drain_timeout` seconds for requests in flight, because xllamacpp's
        destructor would wait forever for one while holding the GIL, freezing the whole
        process. If they do not finish, the server keeps running and this returns False.
        Do not send new requests while stopping. `ChatOpenAI` objects built for this
        server keep its old URL: build new ones after a restart.

        Returns:
            True when the server is stopped (or was not running).
        """
        with self._lock:
            address = self._address
            if self._server is None or address is None:
                return True
            started = time.perf_counter()
            busy = _requests_in_flight(address, self.api_key)
            # None (no answer to the probe) counts as busy: destroying is only safe idle.
            # Poll slowly: llama.cpp notices a client that went away (and cancels its
            # request) only after 1 s without results, and each probe is a result.
            while busy != 0 and (left := drain_timeout - (time.perf_counter() - started)) > 0:
                time.sleep(min(_DRAIN_POLL_S, left))
                busy = _requests_in_flight(address, self.api_key)
            if busy != 0:
                logger.warning(
                    "local model server %s still has %s request(s) in flight after %.0f s; "
                    "not stopping it",
                    address,
                    busy,
                    drain_timeout,
                )
                return False
            server, self._server = self._server, None
            clients, self._clients = self._clients, None
            self._address = None
            _RUNNING.discard(self)
            # xllamacpp has no stop(): dropping the last reference runs the C++
            # destructor, which ends the loop and joins the HTTP and loop threads.
            del server
            if clients is not None:
                clients[0].close()
            logger.info(
                "local model server %s stopped in %.2f s", address, time.perf_counter() - started
            )
            return True

    def http_clients(self) -> tuple[httpx.Client, httpx.AsyncClient]:
        """HTTP clients for this server that ignore proxy settings from the environment."""
        import httpx

        with self._lock:
            if self._clients is None:
                self._clients = (httpx.Client(trust_env=False), httpx.AsyncClient(trust_env=False))
            return self._clients

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


_RUNNING: set[LocalModelServer] = set()
_REGISTRY: dict[Path, LocalModelServer] = {}
_REGISTRY_LOCK = threading.Lock()


def get_server(model_path: str | os.PathLike[str], *, n_parallel: int = 4) -> LocalModelServer:
    """The process's shared, running server for a model file (started on demand).

    The first caller's `n_parallel` wins; later callers share that server.
    """
    key = Path(model_path).resolve()
    with _REGISTRY_LOCK:
        server = _REGISTRY.get(key)
        if server is None:
            server = _REGISTRY[key] = LocalModelServer(key, n_parallel=n_parallel)
        elif server.n_parallel != n_parallel:
            logger.info(
                "sharing the %d-slot server for %s (asked for %d)",
                server.n_parallel,
                key.name,
                n_parallel,
            )
    return server.start()


def stop_all_servers(drain_timeout: float | None = None) -> None:
    """Stop every running local model server of this process (runs at exit).

    Args:
        drain_timeout: Seconds to wait for requests in flight; by default each server's
            longest client timeout plus 5 s (clients close timed-out requests, which
            the server then cancels). A server still busy after that is left to the end
            of the process (see `_leak`).
    """
    for server in list(_RUNNING):
        wait = drain_timeout if drain_timeout is not None else server.client_timeout + 5.0
        try:
            if not server.stop(wait):
                _leak(server._server)
        except Exception:  # exit must go on
            logger.exception("stopping %r failed", server)


atexit.register(stop_all_servers)
