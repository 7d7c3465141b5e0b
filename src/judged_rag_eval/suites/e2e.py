"""The end-to-end suite: does judging pay off in answers, at what cost?

Every system (`systems.SYSTEMS`: the model alone, plain RAG, CRAG, judged-rag with its
presets, and judged-rag's ablations) answers every question through its graph;
`answers.answer_record` scores each answer. Reported per system and variant (open,
multiple choice, unanswerable): accuracy, exact match, abstention, leakage and cost;
per category for user data; trust, risk-coverage and paired tests; and findings, plain
statements of the comparisons whose intervals do not overlap. Plots: accuracy against
LLM calls, and risk against coverage.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judged_rag_eval.answers import (
    answer_record,
    compared_pairs,
    paired_tests,
    run_costs,
    trust_md,
    trust_summary,
)
from judged_rag_eval.context import RunContext
from judged_rag_eval.items import EvalItem
from judged_rag_eval.metrics import rate
from judged_rag_eval.plots import pyplot, save, share_axis
from judged_rag_eval.results import by_system, ok_records
from judged_rag_eval.suite import Record, Suite, Summary
from judged_rag_eval.systems import System
from judged_rag_eval.tables import num, pct, table


def _e2e_task(ctx: RunContext, system: System, item: EvalItem) -> dict[str, Any]:
    graph = ctx.graph(system.spec.kind)
    started = time.perf_counter()
    out: dict[str, Any] = graph.invoke(item.inputs(), context=system.config)
    return answer_record(item, out, time.perf_counter() - started)


def summarize_e2e(records: Sequence[Mapping[str, Any]]) -> Summary:
    """Accuracy, abstention and cost per system and variant."""
    out: Summary = {}
    for system, rows in by_system(records).items():
        ok = ok_records(rows)
        entry: Summary = {"errors": len(rows) - len(ok)}
        for variant in ("open", "mc", "unanswerable"):
            part = [r for r in ok if r.get("variant") == variant]
            if not part:
                continue
            answered = [r for r in part if not r["abstained"]]
            entry[variant] = {
                "n": len(part),
                "accuracy": rate(sum(1 for r in part if r["correct"]), len(part)).as_dict(),
                "exact_match": rate(sum(1 for r in part if r["exact"]), len(part)).as_dict(),
                "abstention": rate(sum(1 for r in part if r["abstained"]), len(part)).as_dict(),
                "accuracy_when_answered": rate(
                    sum(1 for r in answered if r["correct"]), len(answered)
                ).as_dict(),
                "cited_evidence": rate(
                    sum(1 for r in part if r.get("cited_evidence")), len(part)
                ).as_dict(),
            }
            guarded = [r for r in part if r.get("leakage") is not None]
            if guarded:
                entry[variant]["leakage"] = rate(
                    sum(1 for r in guarded if r["leakage"]), len(guarded)
                ).as_dict()
        if any(r.get("category") for r in rows):
            entry["categories"] = _category_summary(ok)
        entry.update(trust_summary(ok))
        entry["cost"] = run_costs(ok)
        judged_by: dict[str, int] = {}
        for r in ok:
            for who, n in (r.get("judged_by") or {}).items():
                judged_by[who] = judged_by.get(who, 0) + int(n)
        entry["judged_by"] = judged_by
        entry["incidents"] = sum(len(r.get("incidents") or []) for r in ok)
        entry["gate_fallbacks"] = sum(
            1 for r in ok if "distribution" in str((r.get("gate") or {}).get("why") or "")
        )
        out[system] = entry
    return out


UNCATEGORISED = "(none)"
"""The group of items without a category when others have one."""


def _category_summary(ok: Sequence[Mapping[str, Any]]) -> Summary:
    """Per category: right, abstained, answered wrong and leaked; abstained, hallucinated.

    Answerable items count as right, abstained from or answered wrong (and leaked, over
    those with `must_not_contain`); items to abstain from as abstained or answered
    (hallucinated). Items without a category form the group `UNCATEGORISED`.
    """
    out: Summary = {}
    for category in sorted({str(r.get("category") or UNCATEGORISED) for r in ok}):
        part = [r for r in ok if str(r.get("category") or UNCATEGORISED) == category]
        answerable = [r for r in part if not r.get("must_abstain")]
        abstain = [r for r in part if r.get("must_abstain")]
        entry: Summary = {}
        if answerable:
            n = len(answerable)
            entry["answerable"] = {
                "n": n,
                "correct": rate(sum(1 for r in answerable if r["correct"]), n).as_dict(),
                "abstained": rate(sum(1 for r in answerable if r["abstained"]), n).as_dict(),
                "wrong": rate(
                    sum(1 for r in answerable if not r["abstained"] and not r["correct"]), n
                ).as_dict(),
            }
            guarded = [r for r in answerable if r.get("leakage") is not None]
            if guarded:
                entry["answerable"]["leakage"] = rate(
                    sum(1 for r in guarded if r["leakage"]), len(guarded)
                ).as_dict()
        if abstain:
            n = len(abstain)
            entry["no_evidence"] = {
                "n": n,
                "abstained": rate(sum(1 for r in abstain if r["abstained"]), n).as_dict(),
                "hallucinated": rate(sum(1 for r in abstain if not r["abstained"]), n).as_dict(),
            }
        out[category] = entry
    return out


def findings(e2e: Summary) -> list[str]:
    """Plain statements: does retrieval help, does judging beat plain RAG, what each ablation does.

    A difference is called one only when the Wilson 95% intervals do not overlap.
    """
    lines: list[str] = []
    for system, baseline in compared_pairs(e2e):
        for variant, name in (("open", "open questions"), ("mc", "multiple choice")):
            mine = (e2e[system].get(variant) or {}).get("accuracy")
            theirs = (e2e[baseline].get(variant) or {}).get("accuracy")
            if not mine or not theirs:
                continue
            delta = 100 * (mine["value"] - theirs["value"])
            overlap = mine["low"] <= theirs["high"] and theirs["low"] <= mine["high"]
            if overlap:
                verdict = "intervals overlap: no measurable difference at this sample size"
            else:
                verdict = ("better" if delta > 0 else "worse") + " beyond the 95% intervals"
            calls = e2e[system]["cost"]["mean"]["llm_calls"]
            base_calls = e2e[baseline]["cost"]["mean"]["llm_calls"]
            lines.append(
                f"{system} vs {baseline}, {name}: {delta:+.1f} points "
                f"({mine['value']:.3f} vs {theirs['value']:.3f}, n={mine['n']}; {verdict}); "
                f"{calls:.1f} vs {base_calls:.1f} LLM calls per question."
            )
    return lines


def _summary(records: Sequence[Record], entry: Mapping[str, Any]) -> Summary:
    data = summarize_e2e(records)
    return {"systems": data, "findings": findings(data), "paired": paired_tests(records, data)}


def _e2e_md(data: Summary) -> list[str]:
    systems = data["systems"]
    header = [
        "system",
        "open acc.",
        "open EM",
        "open abstain",
        "MC acc.",
        "MC abstain",
        "unanswerable abstain",
        "unanswerable acc.",
        "LLM calls/q",
        "rounds/q",
        "tokens/q",
        "s/q",
        "errors",
    ]
    rows = []
    for s, v in systems.items():
        o, m, u = v.get("open") or {}, v.get("mc") or {}, v.get("unanswerable") or {}
        mean_cost = v["cost"]["mean"]
        rows.append(
            [
                s,
                pct(o.get("accuracy")),
                pct(o.get("exact_match")),
                pct(o.get("abstention")),
                pct(m.get("accuracy")),
                pct(m.get("abstention")),
                pct(u.get("abstention")),
                pct(u.get("accuracy")),
                num(mean_cost["llm_calls"], 1),
                num(mean_cost["llm_rounds"], 1),
                num(mean_cost["input_tokens"] + mean_cost["output_tokens"], 0),
                num(mean_cost["seconds"], 1),
                str(v["errors"]),
            ]
        )
    lines = table(header, rows)
    lines.append(
        "Accuracy: normalised containment of the gold answer (open) or the chosen "
        'option (MC); abstention counts "Unknown" and "I don\'t know" replies. '
        "An item to abstain from (no answer given) counts as correct when abstained. "
        "Percentages with Wilson 95% intervals."
    )
    lines.append("")
    leaks = [
        [s, variant, pct(part["leakage"])]
        for s, v in systems.items()
        for variant in ("open", "mc", "unanswerable")
        if (part := v.get(variant) or {}).get("leakage")
    ]
    if leaks:
        lines += [
            "Leakage: answers containing a string the item's `must_not_contain` forbids, "
            "over the items that list some.",
            "",
            *table(["system", "variant", "leakage"], leaks),
        ]
    lines += _categories_md(systems)
    fallbacks = {s: v["gate_fallbacks"] for s, v in systems.items() if v.get("gate_fallbacks")}
    if fallbacks:
        lines += [
            "The index has no gate distribution (built without pseudo-queries): the gate "
            "fell back to retrieval in "
            + ", ".join(f"{s} ({n} runs)" for s, n in fallbacks.items())
            + "; there, gate on and gate off take the same route.",
            "",
        ]
    unjudged = systems.get("no_judge", {}).get("judged_by", {}).get("llm")
    if unjudged:
        lines += [
            f"Warning: no_judge still sent {unjudged} documents to the LLM judge "
            "(they carried no similarity score).",
            "",
        ]
    lines += trust_md(data)
    if data.get("findings"):
        lines += ["Findings:", "", *(f"- {f}" for f in data["findings"]), ""]
    return lines


def _categories_md(systems: Summary) -> list[str]:
    """The per-category tables (user data with a ``category`` field), else nothing."""
    with_categories = {s: v["categories"] for s, v in systems.items() if v.get("categories")}
    if not with_categories:
        return []
    names = sorted({c for v in with_categories.values() for c in v})
    rates = ("correct", "abstained", "wrong", "leakage")
    answerable = [
        [c, s, str(part["n"]), *(pct(part.get(k)) for k in rates)]
        for c in names
        for s, v in with_categories.items()
        if (part := (v.get(c) or {}).get("answerable"))
    ]
    abstain = [
        [c, s, str(part["n"]), pct(part["abstained"]), pct(part["hallucinated"])]
        for c in names
        for s, v in with_categories.items()
        if (part := (v.get(c) or {}).get("no_evidence"))
    ]
    lines: list[str] = []
    if answerable:
        lines += [
            "Per category, answerable items (leaked: answers containing a string the "
            "item's `must_not_contain` forbids, over the items that list some):",
            "",
            *table(
                ["category", "system", "n", "correct", "abstained", "answered wrong", "leaked"],
                answerable,
            ),
        ]
    if abstain:
        lines += [
            "Per category, items to abstain from (no answer is right):",
            "",
            *table(["category", "system", "n", "abstained", "hallucinated"], abstain),
        ]
    return lines


def _web_note(entry: Mapping[str, Any]) -> list[str]:
    backends = {
        str((v.get("configuration") or {}).get("web_search"))
        for v in (entry.get("systems") or {}).values()
    }
    if "offline_wikipedia" not in backends:
        return []
    if (entry.get("fingerprint") or {}).get("data"):
        where = (
            "BM25 over the 10,033 offline Wikipedia summaries, outside the run's own "
            "knowledge base (--data): for a renamed question set, pages under the real "
            "names, which never answer a made-up one."
        )
    else:
        where = (
            "BM25 over the same 10,033 summaries the FanOutQA knowledge base holds, so it is "
            "a second, keyword-only search of the same corpus rather than outside knowledge."
        )
    return [
        "Web search (K_W for judged-rag, CRAG's web step) used the offline_wikipedia "
        "backend: " + where,
        "",
    ]


def plot_e2e(data: Summary, path: Path) -> Path:
    """Accuracy against mean LLM calls per question, one point per system and variant."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant, marker in (("open", "o"), ("mc", "s")):
        xs, ys, names = [], [], []
        for system, entry in data["systems"].items():
            acc = (entry.get(variant) or {}).get("accuracy")
            if acc:
                xs.append(entry["cost"]["mean"]["llm_calls"])
                ys.append(acc["value"])
                names.append(system)
        if xs:
            ax.scatter(
                xs,
                ys,
                marker=marker,
                label="open (containment)" if variant == "open" else "multiple choice",
            )
            # Systems at the same point share one label instead of overprinting.
            groups: dict[tuple[float, float], list[str]] = {}
            for x, y, name in zip(xs, ys, names, strict=True):
                groups.setdefault((round(x, 2), round(y, 3)), []).append(name)
            for (x, y), group in groups.items():
                ax.annotate(
                    "\n".join(group), (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7
                )
    ax.set_xlabel("LLM calls per question (mean)")
    ax.set_ylabel("accuracy")
    share_axis(ax)
    ax.set_title("Accuracy vs LLM calls")
    return save(plt, fig, path)


def plot_risk_coverage(data: Summary, path: Path) -> Path:
    """Risk against coverage: a curve per judged system, a point per other system."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for system, entry in data["systems"].items():
        curve = (entry.get("risk_coverage") or {}).get("points")
        if curve:
            xs, ys = zip(*curve, strict=True)
            ax.plot(xs, ys, label=system)
        else:
            answered = (entry.get("trust") or {}).get("answered")
            selective = (entry.get("trust") or {}).get("selective_accuracy")
            if answered and selective and selective["n"]:
                ax.scatter([answered["value"]], [1 - selective["value"]], marker="s")
                ax.annotate(
                    system,
                    (answered["value"], 1 - selective["value"]),
                    textcoords="offset points",
                    xytext=(4, 3),
                    fontsize=7,
                )
    ax.set_xlabel("coverage (share of questions answered)")
    ax.set_ylabel("risk (share of answers that are wrong)")
    ax.set_xlim(0, 1.02)
    share_axis(ax)
    ax.set_title("Risk vs coverage")
    return save(plt, fig, path)


def _plots(data: Summary, records: Sequence[Record], out_dir: Path) -> dict[str, Path]:
    plots = {"e2e_accuracy_vs_calls": plot_e2e(data, out_dir / "e2e_accuracy_vs_calls.png")}
    if any("risk_coverage" in v for v in data["systems"].values()):
        plots["e2e_risk_coverage"] = plot_risk_coverage(data, out_dir / "e2e_risk_coverage.png")
    return plots


SUITE = Suite(
    name="e2e",
    task=_e2e_task,
    summarize=_summary,
    markdown=lambda data, entry: [*_e2e_md(data), *_web_note(entry)],
    fanoutqa=lambda suites: {
        "open": suites.answer,
        "mc": suites.multiple_choice,
        "unanswerable": suites.unanswerable,
    },
    plots=_plots,
)
