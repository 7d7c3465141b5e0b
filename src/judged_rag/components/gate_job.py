"""Start the process that writes an index's gate in the background, and be that process.

`start_gate_job` records a job (`judged_rag.indexing.gate_jobs`) and starts
``python -m judged_rag.components.gate_job`` detached from the caller (its own session,
no terminal, output to the job's log), so the caller can exit at once. The process makes
the chat model from its name (``local:...`` starts its own llama.cpp server, or uses the
one `judged-rag model serve` keeps for the same file) and writes the pseudo-queries the
index still lacks.

The process shares the CPU with whatever runs beside it: a question asked meanwhile with
a local model loads a second llama.cpp server (one per process, unless `judged-rag model
serve` keeps one for both), and on two cores each then runs several times slower.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from judged_rag.indexing import store
from judged_rag.indexing.gate_jobs import GateJob, new_job, pending, read_job, run_job, save_job

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


@dataclass(frozen=True)
class QueryModel:
    """How the job makes the chat model that writes pseudo-queries.

    Attributes:
        spec: The model's name, e.g. ``local:qwen2.5-coder-1.5b``.
        base_url: An OpenAI-compatible endpoint, if any.
        max_tokens: Cap on generated tokens per call.
        timeout: Seconds per call.
    """

    spec: str
    base_url: str | None = None
    max_tokens: int | None = None
    timeout: float = 120.0

    def arguments(self) -> list[str]:
        """The job's command-line arguments naming this model."""
        args = ["--model", self.spec, "--timeout", str(self.timeout)]
        if self.base_url:
            args += ["--base-url", self.base_url]
        if self.max_tokens is not None:
            args += ["--max-tokens", str(self.max_tokens)]
        return args


def start_gate_job(
    index_dir: Path, model: QueryModel, *, pseudo_queries: int, queries_per_chunk: int = 1
) -> GateJob | None:
    """Start a background job writing the gate's missing pseudo-queries into `index_dir`.

    Returns:
        The job's record, or None when the index needs no call (its gate is complete).

    Raises:
        IndexFormatError: The index cannot be read.
    """
    index_dir = Path(index_dir).resolve()
    total = pending(index_dir, pseudo_queries, queries_per_chunk)
    build = store.build_id(index_dir)
    if total == 0 or build is None:
        return None
    job = new_job(index_dir, build, total)
    command = [sys.executable, "-m", "judged_rag.components.gate_job", str(index_dir)]
    command += ["--job", job.job, "--build", build, *model.arguments()]
    command += ["--pseudo-queries", str(pseudo_queries)]
    command += ["--queries-per-chunk", str(queries_per_chunk)]
    with open(job.log, "ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # no Ctrl-C or hang-up of the caller's terminal
            close_fds=True,
        )
    started = replace(job, pid=process.pid)
    save_job(started)
    return started


def main(argv: Sequence[str] | None = None) -> int:
    """The job's process: write the pseudo-queries, report in the job's record."""
    parser = argparse.ArgumentParser(prog="python -m judged_rag.components.gate_job")
    parser.add_argument("index")
    parser.add_argument("--job", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url")
    parser.add_argument("--max-tokens", type=int)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--pseudo-queries", type=int, required=True)
    parser.add_argument("--queries-per-chunk", type=int, default=1)
    args = parser.parse_args(argv)
    # The log says what the job did; libraries speak only of problems.
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
    )
    logging.getLogger("judged_rag").setLevel(logging.INFO)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    job = read_job(Path(args.index))
    if job is None or job.job != args.job or job.build != args.build:
        logging.getLogger(__name__).warning("job %s is no longer the index's job", args.job)
        return 0
    model = QueryModel(args.model, args.base_url, args.max_tokens, args.timeout)
    return run_job(
        job,
        lambda: _load(model),
        pseudo_queries=args.pseudo_queries,
        queries_per_chunk=args.queries_per_chunk,
    )


def _load(model: QueryModel) -> BaseChatModel:
    from judged_rag.components.models import load_chat_model

    return load_chat_model(
        model.spec, base_url=model.base_url, timeout=model.timeout, max_tokens=model.max_tokens
    )


if __name__ == "__main__":
    sys.exit(main())
