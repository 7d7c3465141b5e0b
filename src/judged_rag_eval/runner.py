"""Run one suite for some systems: resumable, optionally parallel, with a progress bar.

`run_eval` runs in steps: `_start` (the systems, the questions and the components;
``run.json`` written before any work, so that a directory holding the suite with
other settings is refused first), `plan` (the (system, question) tasks not done yet)
and `_run_tasks` (a bounded thread pool appending each task's record to
``results.jsonl`` as soon as it is done; `results`). A rerun with the same settings
skips every key already in the file, so an interrupted run resumes and a larger
``--limit`` extends a run. A rerun with different settings (seed, ``--set`` values,
data) into the same directory is refused: results of different runs must not mix.

Questions run on a bounded thread pool (``workers``, default 1: local llama.cpp servers
have few slots); every system of a run shares one `Components`, so one model, one
retriever and one judge-concurrency cap. What a suite does with a question, and which
questions and index it takes, is in its module under `suites`.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag_eval.context import EvalOptions, RunContext
from judged_rag_eval.datasets.fanoutqa import derive_suites
from judged_rag_eval.datasets.hostile import HostPage
from judged_rag_eval.items import (
    EvalItem,
    load_user_items,
    question_variant,
    require,
    seeded_order,
    take_turns,
)
from judged_rag_eval.results import (
    RESULTS_FILE,
    ResultsWriter,
    base_fingerprint,
    read_results,
    recorded_configurations,
    update_run_file,
)
from judged_rag_eval.suite import Task
from judged_rag_eval.suites import REGISTRY
from judged_rag_eval.systems import SEARCHES_WEB, System, configure, parse_system_names

logger = logging.getLogger(__name__)

Planned = tuple[str, System, EvalItem]
"""A task of the run: its results key, the system, the question."""


@dataclass
class RunSummary:
    """What a call to `run_eval` did.

    Attributes:
        out_dir: The run directory.
        results: The results file.
        planned: Tasks (system x question) of this run.
        skipped: Tasks already done in an earlier run.
        ran: Tasks run now.
        errors: Tasks run now that raised an error.
        seconds: Wall time.
    """

    out_dir: Path
    results: Path
    planned: int
    skipped: int
    ran: int
    errors: int
    seconds: float


# --------------------------------------------------------------------------- items


def load_items(options: EvalOptions) -> tuple[list[EvalItem], dict[str, int]]:
    """The questions of the suite, in seeded order, `limit` per variant, and data counts.

    The variants take turns (`items.take_turns`), so a run stopped early has about as many
    questions of each.

    Raises:
        ValueError: A suite without FanOutQA questions run without ``--data``.
    """
    suite = REGISTRY[options.suite]
    if suite.items is not None:
        items, counts = suite.items(options)
    elif options.data is not None:
        items = require(load_user_items(options.data), options.suite)
        counts = {"user_items": len(items)}
    elif suite.fanoutqa is not None:
        suites = derive_suites(seed=options.seed, kb_topics=options.kb_topics)
        return _in_turns(suite.fanoutqa(suites), options), dict(suites.counts)
    else:
        raise ValueError(f"the {options.suite} suite needs --data")
    return _in_turns(_group(items), options), counts


def _in_turns(groups: Mapping[str, Sequence[EvalItem]], options: EvalOptions) -> list[EvalItem]:
    ordered = {name: seeded_order(group, options.seed) for name, group in groups.items()}
    return _limit(take_turns(ordered), options)


def _group(items: Iterable[EvalItem]) -> dict[str, list[EvalItem]]:
    groups: dict[str, list[EvalItem]] = {}
    for item in items:
        groups.setdefault(question_variant(item), []).append(item)
    return groups


def _limit(items: list[EvalItem], options: EvalOptions) -> list[EvalItem]:
    """The first `limit` questions of each variant (of `variants` when given), order kept.

    An item made from a question (the noise suite's question x setting) counts as its
    question and has the question's variant.
    """
    taken: dict[str, set[str]] = {}
    out: list[EvalItem] = []
    for item in items:
        variant = question_variant(item)
        question = str(item.extra.get("question_id", item.id))
        if options.variants and variant not in options.variants:
            continue
        seen = taken.setdefault(variant, set())
        if options.limit is not None and question not in seen and len(seen) >= options.limit:
            continue
        seen.add(question)
        out.append(item)
    return out


# --------------------------------------------------------------------------- components


def default_components(
    options: EvalOptions, base: Configuration, systems: Sequence[System] = ()
) -> Components:
    """The components of a run when none are given.

    FanOutQA suites: the index the suite runs on (`suite.Suite.index`: the whole-corpus
    eval index, or the gate suite's topic knowledge base with its gate distribution),
    built at first use; the noise suite: the embeddings only. User data: the index named
    by ``index_dir`` (required). A run whose systems all answer without retrieval
    (``no_retrieval``) needs no index.

    Raises:
        ValueError: User data without an index.
    """
    from judged_rag.indexing import open_index

    parts = Components()
    if systems and all(s.spec.kind == "no_retrieval" for s in systems):
        return parts
    suite = REGISTRY[options.suite]
    if suite.index is None:
        # Every system reads the items' fixed contexts; only the embeddings are shared.
        from judged_rag.indexing.embeddings import local_embeddings

        parts.embeddings = local_embeddings()
        return parts
    if options.data is not None:
        if not base.index_dir:
            raise ValueError("--data needs the index of those documents: --index DIR")
        return parts
    parts.retriever = open_index(suite.index(options, parts, base), k=max(options.k, base.top_k))
    return parts


# --------------------------------------------------------------------------- run


def run_eval(
    options: EvalOptions,
    *,
    components: Components | None = None,
    items: Sequence[EvalItem] | None = None,
    hosts: Sequence[HostPage] | None = None,
) -> RunSummary:
    """Run a suite and append its results to ``<out_dir>/results.jsonl``.

    Args:
        options: What to run.
        components: Models, retriever, web search and gate index shared by every system;
            default: `default_components`.
        items: The questions (tests, embedding code); default: `load_items(options)`,
            with `options.limit` per variant.
        hosts: Pages the injection suite makes hostile documents from; default:
            `suites.injection.default_hosts(options)`.

    Raises:
        ValueError: Unknown systems, invalid settings, or a run directory holding a run
            with other settings.
    """
    started = time.perf_counter()
    if options.workers < 1:
        raise ValueError("workers must be at least 1")
    todo, skipped, parts = _start(options, components, items)
    results_path = options.out_dir / RESULTS_FILE
    errors = _run_tasks(RunContext(options, parts, hosts), todo, skipped, results_path)
    return RunSummary(
        out_dir=options.out_dir,
        results=results_path,
        planned=len(todo) + skipped,
        skipped=skipped,
        ran=len(todo),
        errors=errors,
        seconds=round(time.perf_counter() - started, 2),
    )


def _start(
    options: EvalOptions, components: Components | None, items: Sequence[EvalItem] | None
) -> tuple[list[Planned], int, Components]:
    """The run's tasks (`plan`), how many are done already, and its components.

    The systems and counts are recorded in ``run.json``, which is written before the
    components are made (they may build an index), so that a directory holding the
    suite with other settings is refused first.
    """
    suite = REGISTRY[options.suite]
    labels = parse_system_names(options.systems, options.suite)
    systems = [configure(label, options.settings) for label in labels]
    if items is None:
        chosen, counts = load_items(options)
    else:
        chosen = _limit(list(items), options)
        counts = {"given_items": len(chosen)}
    base = Configuration.from_mapping(options.settings, strict=True)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = suite.fingerprint(options, base_fingerprint(options))
    earlier = recorded_configurations(options)
    # Refuse mixing runs first; a system recorded earlier keeps its record until resolved.
    new = [s for s in systems if s.label not in earlier]
    update_run_file(options, new, counts, {}, fingerprint)
    parts = components if components is not None else default_components(options, base, systems)
    # The web each system searches, as the run resolves "auto" (recorded by name).
    systems = [
        replace(s, config=s.config.replace(web_search=parts.web_kind(s.config))) for s in systems
    ]
    todo, skipped = plan(options, systems, chosen, read_results(options.out_dir / RESULTS_FILE))
    pending = {system.label for _, system, _ in todo}
    _refuse_another_web(options, [s for s in systems if s.label in pending], earlier)
    update_run_file(options, systems, counts, suite.run_meta(parts, systems), fingerprint)
    return todo, skipped, parts


def _refuse_another_web(
    options: EvalOptions, systems: Sequence[System], earlier: Mapping[str, Mapping[str, Any]]
) -> None:
    """Refuse to resume a system's results with another web than they were run with.

    Only systems that search the web are held to it (`SEARCHES_WEB`: a retriever's or a
    judge's results do not depend on one), and only those with questions left to run
    (`systems`: a rerun of finished results only reports them).

    The fingerprint holds the settings as given; `web_search="auto"` resolves by the
    knowledge base (and resolved to the offline Wikipedia everywhere before "auto"
    existed), so the same settings can search another web on resume.

    Raises:
        ValueError: A system recorded with one web would now search another.
    """
    for system in (s for s in systems if s.spec.kind in SEARCHES_WEB):
        before = earlier.get(system.label, {}).get("web_search")
        now = system.config.web_search
        if before not in (None, "auto") and before != now:
            raise ValueError(
                f"{options.out_dir} holds {system.label} results that searched "
                f'web_search={before!r}; this run would search {now!r} ("auto" resolves '
                "by the knowledge base). Use another --out to keep results apart"
            )


def plan(
    options: EvalOptions,
    systems: Sequence[System],
    items: Sequence[EvalItem],
    done: Mapping[str, Mapping[str, Any]],
) -> tuple[list[Planned], int]:
    """The tasks to run now, and how many `done` holds already (skipped).

    A task whose key is in `done` is skipped, unless it failed and `retry_errors` is set.
    """
    todo: list[Planned] = []
    skipped = 0
    for index, item in enumerate(items):
        # Every system runs on a question before the next question. The order rotates,
        # so that each system goes first as often as the others: a later one reuses the
        # prompt prefixes (question, documents) an earlier one left in a local server's
        # cache, and would otherwise always look faster.
        shift = index % len(systems) if systems else 0
        for system in [*systems[shift:], *systems[:shift]]:
            key = f"{options.suite}|{system.label}|{item.id}"
            earlier = done.get(key)
            if earlier is not None and not (options.retry_errors and earlier.get("error")):
                skipped += 1
                continue
            todo.append((key, system, item))
    return todo, skipped


def _run_tasks(ctx: RunContext, todo: Sequence[Planned], skipped: int, results: Path) -> int:
    """Run `todo` on ``workers`` threads, appending each record when done; the errors."""
    options = ctx.options
    logger.info(
        "%s: %d tasks (%d done earlier, %d to run) with %d worker(s)",
        options.suite,
        len(todo) + skipped,
        skipped,
        len(todo),
        options.workers,
    )
    task = REGISTRY[options.suite].task
    writer = ResultsWriter(results)
    errors = 0
    bar = tqdm(
        total=len(todo),
        desc=f"eval {options.suite}",
        unit="q",
        file=sys.stderr,
        disable=not options.progress,
    )

    def run_one(key: str, system: System, item: EvalItem) -> dict[str, Any]:
        record = _task_record(ctx, task, key, system, item)
        writer.write(record)
        return record

    try:
        with ThreadPoolExecutor(max_workers=options.workers) as pool:
            pending: set[Future[dict[str, Any]]] = set()
            queue = iter(todo)
            for planned in queue:
                pending.add(pool.submit(run_one, *planned))
                if len(pending) >= options.workers * 2:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    errors += _drain(finished, bar)
            finished, _ = wait(pending)
            errors += _drain(finished, bar)
    finally:
        bar.close()
        writer.close()
    return errors


def _task_record(
    ctx: RunContext,
    task: Task,
    key: str,
    system: System,
    item: EvalItem,
) -> dict[str, Any]:
    """What the task asked, and what the suite's task made of it (or the error it raised)."""
    record: dict[str, Any] = {
        "key": key,
        "suite": ctx.options.suite,
        "system": system.label,
        "item_id": item.id,
        "variant": item.variant,
        "kind": item.kind,
        "category": item.category,
        "error": None,
    }
    try:
        record.update(task(ctx, system, item))
    except Exception as exc:  # one failed question must not end the run
        logger.warning("%s failed: %s: %s", key, type(exc).__name__, exc)
        record["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
    record["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    return record


def _drain(finished: Iterable[Future[dict[str, Any]]], bar: Any) -> int:
    errors = 0
    for future in finished:
        record = future.result()
        errors += 1 if record.get("error") else 0
        bar.update(1)
    return errors
