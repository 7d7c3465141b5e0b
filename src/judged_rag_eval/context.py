"""What the tasks of one run share: its options, its components, graphs and values.

`EvalOptions` says what to run. A `RunContext` holds what every task of the run shares:
one `Components` (one model, one retriever, one judge-concurrency cap), the graphs
compiled once per system kind, the node dependencies with the run's retry policy, and
values made once per run (`RunContext.memo`: the judge suite's retrieved documents, the
injection suite's hostile documents), the same for every system.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from judged_rag.components import Components
from judged_rag.components.llm import Retries
from judged_rag.configuration import Configuration, RunSettings
from judged_rag.graph.builder import Graph, build_graph
from judged_rag.nodes.step import NodeDeps
from judged_rag_eval.baselines import BaselineName, build_baseline
from judged_rag_eval.datasets.fanoutqa import DEFAULT_KB_TOPICS
from judged_rag_eval.datasets.hostile import HostPage
from judged_rag_eval.systems import SuiteName

ATTEMPTS = 3
"""Attempts per LLM call made outside a graph (as inside one)."""


@dataclass
class EvalOptions:
    """What to run.

    Attributes:
        suite: The suite (`systems.SUITES`).
        out_dir: The run directory.
        systems: System labels (``name`` or ``name@model``); empty: the suite's defaults.
        settings: The run's ``preset`` and ``--set`` values, shared by every system.
        limit: Questions per variant (open, multiple choice, unanswerable); None: all.
        variants: Only these variants (``open``, ``mc``, ``unanswerable``); empty: all.
        seed: Seed of the question order, distractors and samples.
        workers: Questions in flight at once.
        k: Retrieval depth of the retrieval suite (recall@1..k).
        kb_topics: Corpus topics of the gate suite's knowledge base.
        kb_description: How the LLM router is told what the knowledge base holds.
        pseudo_queries: Chunks sampled for the gate's distribution when the gate suite's
            index is built.
        data: A user JSON-lines data set instead of FanOutQA.
        contexts: The noise suite's contexts file (default: ``contexts.jsonl`` beside
            `data`).
        progress: Show a progress bar on stderr.
        retry_errors: Run again the questions whose earlier attempt raised an error.
        retry_interval: Seconds before an LLM node's first retry (0 in tests).
        command: The command line, recorded in run.json.
    """

    suite: SuiteName
    out_dir: Path
    systems: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    variants: tuple[str, ...] = ()
    seed: int = 0
    workers: int = 1
    k: int = 10
    kb_topics: tuple[str, ...] = DEFAULT_KB_TOPICS
    kb_description: str | None = None
    pseudo_queries: int = 200
    data: Path | None = None
    contexts: Path | None = None
    progress: bool = True
    retry_errors: bool = False
    retry_interval: float = 0.5
    command: str = ""


T = TypeVar("T")


class RunContext:
    """What the tasks of one run share: components, compiled graphs, values made once.

    Attributes:
        options: What the run runs.
        components: Models, retriever, web search and gate index of every system.
        hosts: The injection suite's host pages when the caller gives them (None: the
            suite takes them from the run's data).
    """

    def __init__(
        self,
        options: EvalOptions,
        components: Components,
        hosts: Sequence[HostPage] | None = None,
    ) -> None:
        self.options = options
        self.components = components
        self.hosts = list(hosts) if hosts is not None else None
        self._lock = threading.Lock()
        self._graphs: dict[str, Graph] = {}
        self._values: dict[str, Any] = {}
        self._key_locks: dict[str, threading.Lock] = {}

    def graph(self, kind: str) -> Graph:
        """The graph of a system kind, compiled once per run."""
        with self._lock:
            if kind not in self._graphs:
                self._graphs[kind] = compile_graph(
                    kind, self.components, self.options.retry_interval
                )
            return self._graphs[kind]

    def deps(self, cfg: Configuration) -> NodeDeps:
        """What a node needs to run outside a graph with a system's settings."""
        return NodeDeps(
            components=self.components,
            settings=RunSettings(base=asdict(cfg)),
            retries=Retries(attempts=ATTEMPTS, interval=self.options.retry_interval),
        )

    def memo(self, key: str, make: Callable[[], T]) -> T:
        """`make()`'s value for `key`, made once per run; other keys are made meanwhile."""
        with self._lock:
            lock = self._key_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                self._values[key] = make()
            return cast(T, self._values[key])


def compile_graph(kind: str, components: Components, retry_interval: float) -> Graph:
    """The graph of a system kind: judged-rag's own, or a baseline's."""
    if kind == "judged":
        return build_graph(components, retry_interval=retry_interval)
    name: BaselineName
    if kind == "no_retrieval":
        name = "no_retrieval"
    elif kind == "plain_rag":
        name = "plain_rag"
    elif kind == "crag":
        name = "crag"
    else:
        raise ValueError(f"no graph for system kind {kind!r}")
    return build_baseline(name, components, retry_interval=retry_interval)
