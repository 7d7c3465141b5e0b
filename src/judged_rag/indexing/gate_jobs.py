"""The gate written after its index: a job in another process, and what it reports.

An index is usable as soon as its chunks, BM25 and dense indexes are written; the
Context Awareness Gate's pseudo-queries (one LLM call per sampled chunk, most of a build's
time on a CPU) can follow. `write_gate` is that job's work: it writes the pseudo-queries
the index still lacks for the build the job was started for, and adds them
(`store.add_gate`, a copy swapped in the way a build is) under the build lock, only if
the index is still that build. A rebuild meanwhile wins: the job sees the new build id
after its next batch of calls, or at the latest before it writes, and discards its work.

The job reports in a record of its own, ``<judged-rag home>/gates/<key>.json`` (key: a
hash of the index's resolved path), beside its log ``<key>.log``: the build it works
for, calls done of total, its process id, when it started and finished, and the error if
it failed. Only the job the record names writes it. `gate_progress` reads it for a
question's trace: the gate is "ready" (the index holds pseudo-queries), "building" (a
live job works for this very build), "failed" (the job for this build failed or died)
or "none".

Starting the process is left to the layer that can make a chat model from its name:
`judged_rag.components.gate_job`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from judged_rag.errors import IndexBuildError, IndexFormatError
from judged_rag.indexing import store
from judged_rag.indexing.builder import IndexStats, gate_entries, pending_pseudo_queries
from judged_rag.indexing.embeddings import MODEL_NAME, local_embeddings
from judged_rag.indexing.store import IndexStore
from judged_rag.paths import home, process_alive, write_record

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

logger = logging.getLogger(__name__)

GateTiming = Literal["now", "background", "off"]
"""When an index's gate is written: during the build, by a job after it, or never."""
GATE_TIMINGS: tuple[GateTiming, ...] = get_args(GateTiming)
JobState = Literal["building", "done", "failed", "discarded"]
GateState = Literal["ready", "building", "failed", "none"]
LOCK_WAIT = 60.0
"""Seconds a job waits for a build holding the index's lock before it gives up."""


class IndexChangedError(IndexBuildError):
    """The index was rebuilt (or removed) while its gate was being written."""


@dataclass(frozen=True)
class GateJob:
    """The record of one background gate job.

    Attributes:
        job: A random id: only the job it names writes the record.
        index: The index's resolved path.
        build: The build id of the index the job writes the gate for.
        state: "building", then "done", "failed" or "discarded" (the index changed).
        done: Pseudo-query calls made.
        total: Calls to make (chunks still without a pseudo-query).
        pid: The job's process id (0 until it is known).
        started: When it was started (UTC, ISO 8601).
        finished: When it ended, if it has.
        error: Why it failed, if it did.
        log: Where it logs.
    """

    job: str
    index: str
    build: str
    state: JobState
    done: int
    total: int
    pid: int
    started: str
    finished: str | None = None
    error: str | None = None
    log: str = ""


@dataclass(frozen=True)
class GateProgress:
    """How far an index's gate is, as a question's trace and the command line say it.

    Attributes:
        state: "ready", "building", "failed" or "none" (see the module docstring).
        done: Calls made by the job (building, failed).
        total: Calls the job has to make (building, failed).
        error: Why the job failed.
        log: The job's log.
    """

    state: GateState
    done: int = 0
    total: int = 0
    error: str | None = None
    log: str | None = None


def job_paths(index_dir: Path) -> tuple[Path, Path]:
    """The job record and the log of an index's gate (in judged-rag's home)."""
    key = hashlib.sha256(str(Path(index_dir).resolve()).encode()).hexdigest()[:16]
    folder = home() / "gates"
    return folder / f"{key}.json", folder / f"{key}.log"


def read_job(index_dir: Path) -> GateJob | None:
    """The record of the index's last gate job, or None (none, or not one judged-rag wrote)."""
    record, _ = job_paths(index_dir)
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        job = GateJob(**{f.name: data[f.name] for f in fields(GateJob) if f.name in data})
    except (OSError, ValueError, TypeError):
        return None
    kinds = (job.job, job.index, job.build, job.started, job.log)
    if not all(isinstance(v, str) for v in kinds) or job.state not in get_args(JobState):
        return None
    if not all(isinstance(v, int) for v in (job.done, job.total, job.pid)):
        return None
    return job


def new_job(index_dir: Path, build: str, total: int) -> GateJob:
    """Record a job about to start for `build` (its pid follows with `save_job`), fresh log."""
    record, log = job_paths(index_dir)
    job = GateJob(
        job=secrets.token_hex(8),
        index=str(Path(index_dir).resolve()),
        build=build,
        state="building",
        done=0,
        total=total,
        pid=0,
        started=_now(),
        log=str(log),
    )
    record.parent.mkdir(parents=True, exist_ok=True)
    # A job still running for an earlier build keeps writing to the old, unlinked file.
    log.unlink(missing_ok=True)
    log.touch()
    write_record(record, asdict(job))
    return job


def save_job(job: GateJob) -> bool:
    """Write `job` as the record, unless another job has taken the record over since."""
    current = read_job(Path(job.index))
    if current is not None and current.job != job.job:
        return False
    write_record(job_paths(Path(job.index))[0], asdict(job))
    return True


def running(job: GateJob | None) -> bool:
    """Whether the job is still at work (its record says so and its process lives)."""
    return job is not None and job.state == "building" and process_alive(job.pid)


def building(index_dir: Path, build: object) -> bool:
    """Whether a live job writes the gate of this build of the index."""
    job = read_job(index_dir)
    return job is not None and job.build == build and running(job)


def gate_progress(index_dir: Path, build: object, samples: int) -> GateProgress:
    """The gate's state for an index of `build` holding `samples` pseudo-queries."""
    if samples:
        return GateProgress("ready")
    job = read_job(index_dir)
    if job is None or job.build != build or job.state in ("done", "discarded"):
        return GateProgress("none")
    if running(job):
        return GateProgress("building", job.done, job.total, log=job.log)
    error = job.error if job.state == "failed" else "the job stopped before it finished"
    return GateProgress("failed", job.done, job.total, error=error, log=job.log)


def pending(index_dir: Path, pseudo_queries: int, queries_per_chunk: int = 1) -> int:
    """Pseudo-query calls the index still needs for a gate of `pseudo_queries` chunks."""
    index = IndexStore.load(index_dir)
    return pending_pseudo_queries(index.chunks, index.gate, pseudo_queries, queries_per_chunk)


def write_gate(
    index_dir: Path,
    query_model: BaseChatModel,
    *,
    build: str,
    pseudo_queries: int,
    queries_per_chunk: int = 1,
    embeddings: Embeddings | None = None,
    on_calls: Callable[[int], None] | None = None,
    wait: float = LOCK_WAIT,
) -> IndexStats:
    """Write the gate's missing pseudo-queries into the index, if it is still `build`.

    Args:
        index_dir: The index.
        query_model: The chat model writing the pseudo-queries.
        build: The build id the gate is for.
        pseudo_queries: Chunks sampled for pseudo-queries (those the index holds count).
        queries_per_chunk: Pseudo-queries per sampled chunk.
        embeddings: The index's embeddings; default: the bundled MiniLM, when it built it.
        on_calls: Hears the calls made after each batch.
        wait: Seconds to wait for a build holding the index's lock.

    Returns:
        What was done: pseudo-queries in the gate and failed calls.

    Raises:
        IndexChangedError: The index is no longer `build`; nothing was written.
        IndexLockedError: A build held the lock for `wait` seconds.
        IndexFormatError: The index is unreadable, or its embeddings are not at hand.
    """
    index_dir = Path(index_dir).resolve()
    index = IndexStore.load(index_dir)
    _check_build(index.manifest.get("build"), build)
    embedder = embeddings or _index_embeddings(index)
    stats = IndexStats(chunks=len(index.chunks))

    def heard(calls: int) -> None:
        if on_calls is not None:
            on_calls(calls)
        _check_build(store.build_id(index_dir), build)

    gate = gate_entries(
        index.chunks,
        index.all_vectors(),
        index.gate,
        query_model,
        embedder,
        pseudo_queries,
        False,
        stats,
        queries_per_chunk,
        heard,
    )
    stats.pseudo_queries = len(gate["entries"]) if gate else 0
    if gate is None:
        return stats
    with store.build_lock(index_dir, wait=wait):
        store.recover(index_dir)
        manifest = store.read_manifest(index_dir)
        _check_build(manifest.get("build"), build)
        updated = {
            **manifest,
            "pseudo_queries": stats.pseudo_queries,
            "pseudo_query_prompt": gate["prompt"],
        }
        store.add_gate(index_dir, gate, updated)
    logger.info("wrote the gate's %d pseudo-queries into %s", stats.pseudo_queries, index_dir)
    return stats


def run_job(
    job: GateJob,
    query_model: Callable[[], BaseChatModel],
    *,
    pseudo_queries: int,
    queries_per_chunk: int = 1,
    embeddings: Embeddings | None = None,
) -> int:
    """The job's whole life, reported in its record: 0 when done or discarded, 1 if failed.

    `query_model` is called in the job (loading a local model takes seconds), and a
    failure to make it is the job's failure too.
    """
    job = replace(job, pid=os.getpid())
    save_job(job)

    def heard(calls: int) -> None:
        nonlocal job
        job = replace(job, done=calls)
        logger.info("pseudo-queries: %d of %d calls made", calls, job.total)
        if not save_job(job):  # another job took the record over: this one is stale
            raise IndexChangedError(f"another gate job took over {job.index}")

    try:
        stats = write_gate(
            Path(job.index),
            query_model(),
            build=job.build,
            pseudo_queries=pseudo_queries,
            queries_per_chunk=queries_per_chunk,
            embeddings=embeddings,
            on_calls=heard,
        )
    except IndexChangedError as exc:
        logger.warning("discarded the gate's pseudo-queries: %s", exc)
        save_job(replace(job, state="discarded", finished=_now(), error=str(exc)))
        return 0
    except Exception as exc:  # anything: the record must say the job failed, and why
        logger.exception("the gate job failed")
        save_job(replace(job, state="failed", finished=_now(), error=_describe(exc)))
        return 1
    state: JobState = "done" if stats.pseudo_queries else "failed"
    error = None if stats.pseudo_queries else "no pseudo-query call gave a question"
    save_job(replace(job, state=state, finished=_now(), error=error))
    return 0 if state == "done" else 1


def _check_build(found: object, build: str) -> None:
    if found != build:
        raise IndexChangedError(
            f"the index was rebuilt (build {found}, not {build}) while its gate was written"
        )


def _index_embeddings(index: IndexStore) -> Embeddings:
    if index.embedding_model != MODEL_NAME:
        raise IndexFormatError(
            f"the index at {index.directory} was built with {index.embedding_model!r}; "
            "its gate can be written in the background only for the bundled embeddings: "
            "build it with the gate now"
        )
    return local_embeddings()


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
