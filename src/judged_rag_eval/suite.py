"""What a suite is: the parts the runner and the report take from each module of `suites`.

A suite module defines one `Suite`: the task a system runs on one question, the summary
of the suite's records, its section of the report and its plots, together with how the
suite differs when a run starts: which questions it asks, which index it runs on, what
its results depend on (``run.json``'s fingerprint) and what else ``run.json`` records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag_eval.context import EvalOptions, RunContext
from judged_rag_eval.datasets.fanoutqa import Suites
from judged_rag_eval.indexes import ensure_wiki_eval_index
from judged_rag_eval.items import EvalItem
from judged_rag_eval.systems import SuiteName, System

Summary = dict[str, Any]
"""A suite's summary: plain JSON (``summary.json``)."""
Record = Mapping[str, Any]
"""One line of ``results.jsonl``."""
Task = Callable[[RunContext, System, EvalItem], dict[str, Any]]
"""What a system does with a question; returns the record's suite-specific fields."""
Groups = dict[str, list[EvalItem]]
"""Questions by variant (``open``, ``mc``, ``unanswerable``)."""


def wiki_eval_index(options: EvalOptions, components: Components, base: Configuration) -> Path:
    """The whole-corpus eval index of the FanOutQA suites, built at first use."""
    return ensure_wiki_eval_index(progress=options.progress)


def no_plots(data: Summary, records: Sequence[Record], out_dir: Path) -> dict[str, Path]:
    """A suite without plots."""
    return {}


def same_fingerprint(options: EvalOptions, fingerprint: dict[str, Any]) -> dict[str, Any]:
    """A suite whose results depend on nothing beyond the run's seed, settings and data."""
    return fingerprint


def no_run_meta(components: Components, systems: Sequence[System]) -> dict[str, Any]:
    """A suite that records nothing more in ``run.json``."""
    return {}


@dataclass(frozen=True)
class Suite:
    """One suite's parts.

    Attributes:
        name: The suite's name (``--suite``).
        task: What one system does with one question (run on the run's thread pool).
        summarize: The summary of the suite's records, given its ``run.json`` entry.
        markdown: The report section's lines after the systems table, given the summary
            and the ``run.json`` entry.
        fanoutqa: The suite's questions among the FanOutQA-derived ones, by variant
            (None: the suite needs ``--data``).
        items: The suite's own questions and data counts, instead of FanOutQA or the
            user's JSON lines (None: those).
        index: The index a FanOutQA run retrieves from, built at first use (None: the
            systems read fixed contexts and share only the embeddings).
        plots: Draws the suite's plots into the run directory, by name.
        fingerprint: Adds what else the suite's results depend on to the run's
            fingerprint.
        run_meta: What else ``run.json`` records, once the components are made.
    """

    name: SuiteName
    task: Task
    summarize: Callable[[Sequence[Record], Mapping[str, Any]], Summary]
    markdown: Callable[[Summary, Mapping[str, Any]], list[str]]
    fanoutqa: Callable[[Suites], Groups] | None = None
    items: Callable[[EvalOptions], tuple[list[EvalItem], dict[str, int]]] | None = None
    index: Callable[[EvalOptions, Components, Configuration], Path] | None = wiki_eval_index
    plots: Callable[[Summary, Sequence[Record], Path], dict[str, Path]] = no_plots
    fingerprint: Callable[[EvalOptions, dict[str, Any]], dict[str, Any]] = same_fingerprint
    run_meta: Callable[[Components, Sequence[System]], dict[str, Any]] = no_run_meta
