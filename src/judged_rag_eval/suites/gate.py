"""The gate suite: does a question need the knowledge base? CAG's gate against routers.

The knowledge base is the corpus articles of ``--kb-topics`` with a gate distribution
of ``--pseudo-queries`` pseudo-queries (built at first use, `indexes.ensure_kb_index`);
a question is in domain when its evidence page is in it. ``cag_gate`` decides by the
graph's own gate (s_max against a percentile of the pseudo-query similarities),
``llm_router`` asks the model, ``always_retrieve`` always retrieves. Reported: accuracy
and recall on each side, the score distributions (CAG's Table I), other cut-offs in
hindsight, and a histogram of s_max with the cut-off.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from judged_rag.components import Components
from judged_rag.configuration import Configuration
from judged_rag.nodes.gate import decide_route
from judged_rag.state import TraceEvent
from judged_rag_eval.baselines import route_with_llm
from judged_rag_eval.context import EvalOptions, RunContext
from judged_rag_eval.indexes import ensure_kb_index
from judged_rag_eval.items import EvalItem
from judged_rag_eval.metrics import gate_scores, mean, percentiles
from judged_rag_eval.plots import pyplot, save
from judged_rag_eval.results import by_system, ok_records
from judged_rag_eval.suite import Suite, Summary
from judged_rag_eval.systems import System
from judged_rag_eval.tables import num, pct, table

GATE_SWEEP = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65)
"""Cut-offs the gate report also scores on the run's own s_max (chosen in hindsight)."""


def _gate_task(ctx: RunContext, system: System, item: EvalItem) -> dict[str, Any]:
    cfg = system.config
    kind = system.spec.kind
    started = time.perf_counter()
    detail: dict[str, Any] = {}
    calls = tokens = 0
    if kind == "always_retrieve":
        route = "retrieve"
    elif kind == "cag_gate":
        events: list[TraceEvent] = []
        route, detail = decide_route(item.question, ctx.deps(cfg), cfg, events)
    else:
        description = ctx.options.kb_description or _kb_description(ctx.options)
        step = ctx.deps(cfg).step("llm_router", {}, {}, cfg)
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


def summarize_gate(records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> Summary:
    """Gate accuracy, in/out-of-domain recall, ms/query; score distributions (CAG Table I)."""
    systems: Summary = {}
    for system, rows in by_system(records).items():
        ok = ok_records(rows)
        scores = gate_scores(
            (bool(r["in_domain"]), r["route"] == "retrieve", float(r.get("ms", 0.0))) for r in ok
        )
        systems[system] = {
            "n": len(ok),
            "errors": len(rows) - len(ok),
            "accuracy": scores.accuracy.as_dict(),
            "in_domain_recall": scores.in_domain_recall.as_dict(),
            "out_of_domain_recall": scores.out_of_domain_recall.as_dict(),
            "ms_per_query": scores.ms_per_query,
            "llm_calls_per_query": round(mean(float(r.get("llm_calls", 0)) for r in ok), 3),
            "fallbacks": sum(1 for r in ok if r.get("fallback") or r.get("why")),
        }
    scored = [r for r in ok_records(records) if r.get("s_max") is not None]
    positive = [float(r["s_max"]) for r in scored if r["in_domain"]]
    negative = [float(r["s_max"]) for r in scored if not r["in_domain"]]
    index = meta.get("gate_index") or {}
    # What other cut-offs would have done on the same questions (retrieve at s_max >= c).
    sweep = []
    for cutoff in GATE_SWEEP:
        decided = gate_scores(
            (bool(r["in_domain"]), float(r["s_max"]) >= cutoff, 0.0)
            for r in scored
            if r.get("system") == "cag_gate"
        )
        if decided.accuracy.n:
            sweep.append(
                {
                    "cutoff": cutoff,
                    "accuracy": decided.accuracy.as_dict(),
                    "in_domain_recall": decided.in_domain_recall.as_dict(),
                    "out_of_domain_recall": decided.out_of_domain_recall.as_dict(),
                }
            )
    return {
        "systems": systems,
        "cutoff_sweep": sweep,
        "distributions": {
            "in_domain_s_max": {"n": len(positive), **percentiles(positive)},
            "out_of_domain_s_max": {"n": len(negative), **percentiles(negative)},
            "pseudo_query_similarity": {
                "n": index.get("samples", 0),
                **(index.get("percentiles") or percentiles([])),
            },
        },
        "cutoff": index.get("cutoff"),
    }


def _gate_md(data: Summary) -> list[str]:
    header = [
        "system",
        "n",
        "accuracy",
        "in-domain recall",
        "out-of-domain recall",
        "ms/query",
        "LLM calls/query",
        "fallbacks",
        "errors",
    ]
    rows = [
        [
            s,
            str(v["n"]),
            pct(v["accuracy"]),
            pct(v["in_domain_recall"]),
            pct(v["out_of_domain_recall"]),
            num(v["ms_per_query"], 2),
            num(v["llm_calls_per_query"], 2),
            str(v["fallbacks"]),
            str(v["errors"]),
        ]
        for s, v in data["systems"].items()
    ]
    lines = table(header, rows)
    dist = data["distributions"]
    keys = [k for k in dist["in_domain_s_max"] if k.startswith("p")]
    lines += [
        "Score distributions (the analogue of CAG's Table I): the best cosine of "
        "in-domain (positive) and out-of-domain (negative) questions to any chunk, "
        "and the stored chunk ↔ own pseudo-query similarities the cut-off comes from "
        f"(cut-off: {num(data.get('cutoff'), 4)}).",
        "",
    ]
    lines += table(
        ["distribution", "n", *keys],
        (
            [name, str(d["n"]), *(num(d.get(k), 3) for k in keys)]
            for name, d in (
                ("positive: in-domain s_max", dist["in_domain_s_max"]),
                ("negative: out-of-domain s_max", dist["out_of_domain_s_max"]),
                ("pseudo-query similarity", dist["pseudo_query_similarity"]),
            )
        ),
    )
    sweep = data.get("cutoff_sweep") or []
    if sweep:
        lines += [
            "",
            "Other cut-offs on the same questions (cag_gate's s_max; retrieve at s_max ≥ "
            "cut-off). Chosen in hindsight on the test questions: a hint for "
            "`gate_threshold` on your data, not a measured default.",
            "",
            *table(
                ["cut-off", "accuracy", "in-domain recall", "out-of-domain recall"],
                (
                    [
                        num(row["cutoff"], 2),
                        pct(row["accuracy"]),
                        pct(row["in_domain_recall"]),
                        pct(row["out_of_domain_recall"]),
                    ]
                    for row in sweep
                ),
            ),
        ]
    return lines


def plot_gate(records: Sequence[Mapping[str, Any]], cutoff: float | None, path: Path) -> Path:
    """Histograms of s_max for in-domain and out-of-domain questions, with the cut-off."""
    plt = pyplot()
    scored = [r for r in records if r.get("s_max") is not None and not r.get("error")]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for flag, name in ((True, "in domain"), (False, "out of domain")):
        values = [float(r["s_max"]) for r in scored if bool(r["in_domain"]) == flag]
        if values:
            ax.hist(
                values, bins=20, range=(0.0, 1.0), alpha=0.55, label=f"{name} (n={len(values)})"
            )
    if cutoff is not None:
        ax.axvline(cutoff, color="black", linestyle="--", label=f"cut-off {cutoff:.3f}")
    ax.set_xlabel("s_max: best cosine of the question to any chunk")
    ax.set_ylabel("questions")
    ax.legend(fontsize=8)
    ax.set_title("Gate score distributions")
    return save(plt, fig, path)


def _kb_index(options: EvalOptions, components: Components, base: Configuration) -> Path:
    """The topic knowledge base with its gate distribution, built at first use."""
    return ensure_kb_index(
        options.kb_topics,
        components.judge(base),
        pseudo_queries=options.pseudo_queries,
        progress=options.progress,
    )


def _fingerprint(options: EvalOptions, fingerprint: dict[str, Any]) -> dict[str, Any]:
    return {**fingerprint, "kb_topics": list(options.kb_topics)}


SUITE = Suite(
    name="gate",
    task=_gate_task,
    summarize=summarize_gate,
    markdown=lambda data, entry: _gate_md(data),
    fanoutqa=lambda suites: {"open": suites.gate},
    index=_kb_index,
    plots=lambda data, records, out_dir: {
        "gate_scores": plot_gate(records, data.get("cutoff"), out_dir / "gate_scores.png")
    },
    fingerprint=_fingerprint,
    run_meta=_gate_meta,
)
