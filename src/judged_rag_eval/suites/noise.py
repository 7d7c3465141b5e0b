"""The noise suite: every system answers from the same fixed contexts, not from retrieval.

For each answerable question of a data set (``eval-data-rdq.jsonl``) the contexts file
(``contexts.jsonl``, written beside it by ``judged-rag eval-data build``) holds its
documents at each noise ratio: the evidence page alone (0.0), with one distractor
(0.5), with four (0.8), and five distractors without the evidence (1.0, where abstaining
is right); for renamed people also ``conflict``: the evidence page beside a copy of it
that states another year (``conflict_answer``), where nothing in the documents says
which is right (its records say which side the answer took, `metrics.conflict_outcome`).
A contexts file built from RGB's counterfactual set (``judged-rag eval-data build-rgb``,
`judged_rag_eval.datasets.rgb`) holds the settings ``mixed`` (true snippets beside their
counterfactual copies: which side the answer took, as for ``conflict``) and
``counterfactual`` (the copies alone: RGB's error detection, `metrics.error_detected`,
and error correction, the true answer stated). Each (question, setting) pair is one
item, id ``<question id>@<setting>``.

A system's retriever is replaced by `ContextRetriever`, which returns the context's
documents whatever the query, ranked by their cosine to the query under the knowledge
base's embedding model (so the judge's score mixes in the same similarity as it does
after real retrieval). Because the documents are fixed, the suite pins `NOISE_PINNED`
for every system: no gate (the context is always used), no web search (nothing from
outside the context), one retrieve-judge round (a rewrite would fetch the same
documents).

Reported per system: accuracy and abstention at each noise setting, the outcomes of the
constructed conflicts, the rates of RGB's settings with Wilson intervals, trust and
paired tests over the noise settings, and a plot of correct answers and abstentions
against the noise ratio.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from judged_rag.configuration import Configuration
from judged_rag_eval.answers import answer_record, paired_tests, run_costs, trust_md, trust_summary
from judged_rag_eval.context import EvalOptions, RunContext, compile_graph
from judged_rag_eval.datasets.contexts import (
    COUNTERFACTUAL,
    MIXED,
    RGB_SETTINGS,
    Context,
    default_contexts_path,
    read_contexts,
)
from judged_rag_eval.items import DataError, EvalItem, load_user_items
from judged_rag_eval.metrics import CONFLICT_OUTCOMES, conflict_outcome, error_detected, rate
from judged_rag_eval.plots import pyplot, save, share_axis
from judged_rag_eval.results import by_system, ok_records
from judged_rag_eval.suite import Record, Suite, Summary
from judged_rag_eval.systems import System
from judged_rag_eval.tables import num, pct, table

NOISE_PINNED: dict[str, Any] = {"gate": False, "web_search": "none", "max_iterations": 1}
"""Settings every system of the noise suite runs with (see the module docstring)."""

NOISE_SETTINGS: tuple[str, ...] = ("noise-0.0", "noise-0.5", "noise-0.8", "noise-1.0")
"""The settings with a noise ratio (the curve)."""

CONFLICT = "conflict"
"""The setting with a constructed conflicting copy of the evidence."""

SETTINGS: tuple[str, ...] = (*NOISE_SETTINGS, CONFLICT, *RGB_SETTINGS)
"""The settings the suite runs (those its contexts file holds)."""


class ContextRetriever(BaseRetriever):
    """A fixed list of documents, ranked by cosine to the query when embeddings are given.

    Attributes:
        documents: The context's documents.
        embeddings: The embedding model whose cosine the retriever reports as
            ``similarity`` (None: no similarity, the context's order).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    documents: list[Document]
    embeddings: Embeddings | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.embeddings is None or not self.documents:
            return [Document(page_content=d.page_content, metadata=dict(d.metadata), id=d.id)
                    for d in self.documents]  # fmt: skip
        vectors = np.asarray(
            self.embeddings.embed_documents([d.page_content for d in self.documents]),
            dtype=np.float64,
        )
        asked = np.asarray(self.embeddings.embed_query(query), dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1) * max(float(np.linalg.norm(asked)), 1e-12)
        cosines = vectors @ asked / np.maximum(norms, 1e-12)
        ranked = sorted(range(len(self.documents)), key=lambda i: (-cosines[i], i))
        out = []
        for i in ranked:
            doc = self.documents[i]
            similarity = min(1.0, max(0.0, float(cosines[i])))
            out.append(
                Document(
                    page_content=doc.page_content,
                    metadata={**doc.metadata, "similarity": similarity},
                    id=doc.id,
                )
            )
        return out


def noise_items(
    questions: Sequence[EvalItem], contexts: Iterable[Context], settings: Sequence[str] = SETTINGS
) -> list[EvalItem]:
    """One item per (question, setting); its documents go in ``extra["documents"]``.

    A question's multiple-choice variant (id ``<id>:mc``) uses the open row's contexts.
    Where the context holds no evidence, the item has no answer (abstaining is right)
    and keeps the gold answers in ``extra["gold"]``. Items follow the questions' order,
    the settings of one question together.

    Raises:
        DataError: If no question has a context at those settings.
    """
    by_row: dict[str, list[Context]] = {}
    for context in contexts:
        if context.setting in settings:
            by_row.setdefault(context.item_id, []).append(context)
    items: list[EvalItem] = []
    for question in questions:
        if question.must_abstain:
            continue
        row = question.id.removesuffix(":mc")
        for context in sorted(by_row.get(row, []), key=lambda c: settings.index(c.setting)):
            documents = [
                {"id": d.id, "title": d.title, "text": d.text, "role": d.role} for d in context.docs
            ]
            extra = {
                "setting": context.setting,
                "noise": context.noise,
                "conflict_answer": context.conflict_answer,
                "documents": documents,
                "gold": list(question.answers),
                "question_id": question.id,
                "question_variant": question.variant,
            }
            items.append(
                EvalItem(
                    id=f"{question.id}@{context.setting}",
                    question=question.question,
                    answers=question.answers if context.has_evidence else (),
                    options=question.options,
                    correct_option=question.correct_option if context.has_evidence else None,
                    evidence=tuple(d.title for d in context.docs if d.role == "evidence"),
                    variant=question.variant if context.has_evidence else "unanswerable",
                    kind=question.kind,
                    source=question.source,
                    category=question.category,
                    extra=extra,
                )
            )
    if not items:
        raise DataError(f"no question of the data set has a context at {', '.join(settings)}")
    return items


def load_noise_items(data: Path, contexts: Path | None = None) -> list[EvalItem]:
    """The noise suite's items of a data set and its contexts file (default: beside it)."""
    path = contexts if contexts is not None else default_contexts_path(data)
    if not path.is_file():
        raise FileNotFoundError(
            f"no contexts file {path}: the noise suite reads the contexts that "
            "`judged-rag eval-data build` writes beside the data set (or give --contexts)"
        )
    return noise_items(load_user_items(data), read_contexts(path))


def context_documents(item: EvalItem) -> list[Document]:
    """The item's context as documents (what `ContextRetriever` serves)."""
    docs = item.extra.get("documents") or []
    return [
        Document(
            page_content=d["text"],
            metadata={"title": d["title"], "source": f"context:{d['id']}", "role": d["role"]},
            id=f"{d['id']}",
        )
        for d in docs
    ]


def _noise_task(ctx: RunContext, system: System, item: EvalItem) -> dict[str, Any]:
    """The system's graph run on the item's fixed context (`noise.NOISE_PINNED` pinned)."""
    cfg = Configuration.from_mapping({**vars(system.config), **NOISE_PINNED}, strict=True)
    base = ctx.components
    retriever = ContextRetriever(documents=context_documents(item), embeddings=base.embedder(cfg))
    # A copy that shares the models, their caches and the judge slots.
    parts = replace(base, retriever=retriever, gate_index=None, web_search=None)
    graph = compile_graph(system.spec.kind, parts, ctx.options.retry_interval)
    started = time.perf_counter()
    out: dict[str, Any] = graph.invoke(item.inputs(), context=cfg)
    record = answer_record(item, out, time.perf_counter() - started)
    record = {**record, "setting": item.extra.get("setting"), "noise": item.extra.get("noise")}
    conflicting = item.extra.get("conflict_answer")
    if conflicting:
        # The gold, also where no document states it (RGB's counterfactual setting).
        golds = item.extra.get("gold") or item.answers
        outcome = conflict_outcome(
            record["answer"], golds, str(conflicting), bool(record["abstained"])
        )
        record["conflict_answer"] = conflicting
        record["conflict_outcome"] = outcome
        if record["setting"] == COUNTERFACTUAL:
            record["error_detected"] = error_detected(record["answer"], outcome)
            record["error_corrected"] = outcome in ("both", "evidence")
    return record


def summarize_noise(records: Sequence[Mapping[str, Any]]) -> Summary:
    """Per system: accuracy and abstention at each setting, conflict outcomes, trust, cost.

    Trust (hallucination, selective accuracy) reads the noise settings only: in a
    constructed conflict the documents cannot say which value is right, so "correct"
    there (the evidence's value stated) is not a trust signal; its outcomes are counted.
    """
    out: Summary = {}
    for system, rows in by_system(records).items():
        ok = ok_records(rows)
        settings: Summary = {}
        for setting in sorted({str(r.get("setting")) for r in ok}):
            part = [r for r in ok if str(r.get("setting")) == setting]
            settings[setting] = {
                "n": len(part),
                "noise": part[0].get("noise"),
                "must_abstain": all(r.get("must_abstain") for r in part),
                "accuracy": rate(sum(1 for r in part if r["correct"]), len(part)).as_dict(),
                "abstention": rate(sum(1 for r in part if r["abstained"]), len(part)).as_dict(),
            }
            outcomes = [r["conflict_outcome"] for r in part if r.get("conflict_outcome")]
            if outcomes:
                settings[setting]["outcomes"] = {o: outcomes.count(o) for o in CONFLICT_OUTCOMES}
            if setting in RGB_SETTINGS:
                settings[setting]["rates"] = rgb_rates(part, setting)
        out[system] = {
            "errors": len(rows) - len(ok),
            "settings": settings,
            **trust_summary(_noise_only(ok)),
            "cost": run_costs(ok),
        }
    return out


def rgb_rates(part: Sequence[Mapping[str, Any]], setting: str) -> Summary:
    """Rates (Wilson intervals) of one RGB setting's records.

    ``mixed``: each conflict outcome. ``counterfactual``: error detection, error
    correction (the true answer stated), "conflict" (the counterfactual value only: the
    documents copied) and abstention.
    """
    n = len(part)
    outcomes = [r.get("conflict_outcome") for r in part]
    if setting == MIXED:
        return {o: rate(outcomes.count(o), n).as_dict() for o in CONFLICT_OUTCOMES}
    return {
        "detection": rate(sum(1 for r in part if r.get("error_detected")), n).as_dict(),
        "correction": rate(sum(1 for r in part if r.get("error_corrected")), n).as_dict(),
        "conflict": rate(outcomes.count("conflict"), n).as_dict(),
        "abstained": rate(sum(1 for r in part if r["abstained"]), n).as_dict(),
    }


def _noise_only(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The noise suite's records at a noise ratio (not a conflict, not RGB's settings)."""
    return [r for r in records if r.get("setting") in NOISE_SETTINGS]


def _summary(records: Sequence[Record], entry: Mapping[str, Any]) -> Summary:
    data = summarize_noise(records)
    return {"systems": data, "paired": paired_tests(_noise_only(records), data, "noise")}


def _noise_md(data: Summary) -> list[str]:
    systems = data["systems"]
    named = {k for v in systems.values() for k in v["settings"]} - set(RGB_SETTINGS)
    # The noise ratios in order, then the conflict setting (and any other, by name);
    # RGB's settings have their own tables.
    settings = [k for k in SETTINGS if k in named] + sorted(named - set(SETTINGS))
    header = ["system"]
    for setting in settings:
        header += [f"{setting}: correct", f"{setting}: abstained"]
    header += ["LLM calls/q", "s/q", "errors"]
    rows = []
    for s, v in systems.items():
        row = [s]
        for setting in settings:
            part = v["settings"].get(setting) or {}
            row += [pct(part.get("accuracy")), pct(part.get("abstention"))]
        mean_cost = v["cost"]["mean"]
        row += [num(mean_cost["llm_calls"], 1), num(mean_cost["seconds"], 1), str(v["errors"])]
        rows.append(row)
    ratios = (
        ": noise-r holds the evidence page and distractors making up the share r of the "
        "documents; noise-1.0 holds distractors only, so abstaining is right (its "
        "'correct' is the abstention)"
    )
    lines = [
        "Every system answers from the same fixed context per question and setting"
        f"{ratios if settings else ''}. Gate, web search and rewriting are off for every "
        "system (the context is fixed).",
        "",
        *table(header, rows),
        "",
    ]
    conflict = [
        [s, str(part["n"]), *(str(part["outcomes"][o]) for o in CONFLICT_OUTCOMES)]
        for s, v in systems.items()
        if (part := v["settings"].get(CONFLICT)) and part.get("outcomes")
    ]
    if conflict:
        lines += [
            "Constructed conflicts: the evidence page beside a copy of it stating another "
            "value, so the documents cannot say which is right. `both` reports the two "
            "values, `evidence` / `conflict` state one side only, `neither` states neither "
            "(correct above counts `both` and `evidence`; trust and the paired tests leave "
            "these contexts out).",
            "",
            *table(["system", "n", *CONFLICT_OUTCOMES], conflict),
            "",
        ]
    lines += _rgb_md(systems)
    # Trust and the paired tests read the noise settings only.
    return [*lines, *trust_md(data)] if settings else lines


def _rgb_md(systems: Mapping[str, Any]) -> list[str]:
    """The tables of RGB's settings (rates with 95% Wilson intervals), when run."""
    lines: list[str] = []
    mixed = [
        [s, str(part["n"]), *(pct(part["rates"][o]) for o in CONFLICT_OUTCOMES)]
        for s, v in systems.items()
        if (part := v["settings"].get(MIXED)) and part.get("rates")
    ]
    if mixed:
        lines += [
            "RGB, mixed: RGB's snippets stating the true answer beside their copies stating "
            "a counterfactual one (and up to two snippets without the answer). `both` "
            "reports the disagreement (the two values), `evidence` states the true value "
            "only, `copy` the counterfactual value only, `neither` neither.",
            "",
            *table(["system", "n", *(_column(o) for o in CONFLICT_OUTCOMES)], mixed),
            "",
        ]
    counterfactual = [
        [s, str(part["n"]), *(pct(part["rates"][k]) for k in _COUNTERFACTUAL_RATES)]
        for s, v in systems.items()
        if (part := v["settings"].get(COUNTERFACTUAL)) and part.get("rates")
    ]
    if counterfactual:
        lines += [
            "RGB, counterfactual: the copies stating the counterfactual answer alone (and up "
            "to two snippets without the answer), so no document states the true one. "
            "Error detection: the answer abstains, states the true value beside the "
            "documents' one, or says something is wrong (incorrect, inaccurate, false, an "
            "error, a mistake, ...). Error correction: it states the true value. `copy`: "
            "the counterfactual value only.",
            "",
            *table(["system", "n", *(_column(k) for k in _COUNTERFACTUAL_RATES)], counterfactual),
            "",
        ]
    return lines


_COUNTERFACTUAL_RATES = ("detection", "correction", "conflict", "abstained")
"""The counterfactual setting's rates (`rgb_rates`), in the report's order."""

_RGB_COLUMNS = {
    "conflict": "copy",
    "detection": "error detection",
    "correction": "error correction",
}
"""Column titles of RGB's tables in RGB's words (taking the counterfactual value: a copy)."""


def _column(rate_name: str) -> str:
    return _RGB_COLUMNS.get(rate_name, rate_name)


def plot_noise(data: Summary, path: Path) -> Path:
    """Accuracy (answerable settings) and abstention against the noise ratio."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    for system, entry in data["systems"].items():
        points = sorted(
            (float(v["noise"]), v) for v in entry["settings"].values() if v.get("noise") is not None
        )
        if not points:
            continue
        answerable = [(x, v["accuracy"]["value"]) for x, v in points if not v["must_abstain"]]
        if answerable:
            left.plot(*zip(*answerable, strict=True), marker="o", label=system)
        right.plot(
            [x for x, _ in points],
            [v["abstention"]["value"] for _, v in points],
            marker="o",
            label=system,
        )
    left.set_title("Correct answers (evidence in the context)")
    right.set_title("Abstentions (right only at 1.0)")
    for ax in (left, right):
        ax.set_xlabel("noise ratio (share of distractors)")
        share_axis(ax)
    return save(plt, fig, path)


def _plots(data: Summary, records: Sequence[Record], out_dir: Path) -> dict[str, Path]:
    """The noise curve, when a noise ratio was run (RGB's settings have none)."""
    ratios = any(
        v.get("noise") is not None for s in data["systems"].values() for v in s["settings"].values()
    )
    return {"noise_curve": plot_noise(data, out_dir / "noise_curve.png")} if ratios else {}


def _items(options: EvalOptions) -> tuple[list[EvalItem], dict[str, int]]:
    if options.data is None:
        raise ValueError(
            "the noise suite needs --data (a data set with its contexts.jsonl, "
            "e.g. from `judged-rag eval-data build`)"
        )
    items = load_noise_items(options.data, options.contexts)
    return items, {"noise_items": len(items)}


def _fingerprint(options: EvalOptions, fingerprint: dict[str, Any]) -> dict[str, Any]:
    """The contexts file is data too: other contexts, other results."""
    if options.data is None:
        return fingerprint
    path = options.contexts or default_contexts_path(options.data)
    if not path.is_file():
        return fingerprint
    contexts = {"name": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {**fingerprint, "data": {**(fingerprint["data"] or {}), "contexts": contexts}}


SUITE = Suite(
    name="noise",
    task=_noise_task,
    summarize=_summary,
    markdown=lambda data, entry: _noise_md(data),
    items=_items,
    index=None,
    plots=_plots,
    fingerprint=_fingerprint,
)
