"""Summaries, a Markdown report, a JSON summary and PNG plots of a run directory.

Everything is computed from ``results.jsonl`` and ``run.json`` alone, so a report can
be rebuilt at any time (``judged-rag eval --report-only``), also while a run goes on.
Rates carry Wilson 95% intervals: with tens of questions, a few points of difference
are within noise, and the report says so rather than declaring a winner.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judged_rag_eval.results import RESULTS_FILE, RUN_FILE, read_results
from judged_rag_eval.suite import Summary
from judged_rag_eval.suites import REGISTRY
from judged_rag_eval.tables import table

logger = logging.getLogger(__name__)

SUMMARY_FILE = "summary.json"

REPORT_FILE = "report.md"


@dataclass(frozen=True)
class ReportFiles:
    """What `write_report` wrote."""

    markdown: Path
    summary: Path
    plots: tuple[Path, ...]


def summarize(out_dir: Path) -> Summary:
    """The summary of every suite in a run directory."""
    run_path = out_dir / RUN_FILE
    run = json.loads(run_path.read_text(encoding="utf-8")) if run_path.is_file() else {}
    records = list(read_results(out_dir / RESULTS_FILE).values())
    suites: Summary = {}
    for name, entry in (run.get("suites") or {}).items():
        suite = REGISTRY.get(name)
        if suite is not None:
            rows = [r for r in records if r.get("suite") == name]
            suites[name] = suite.summarize(rows, entry)
    return {"run": run, "suites": suites}


def _models(run: Mapping[str, Any]) -> list[str]:
    seen: list[str] = []
    for entry in (run.get("suites") or {}).values():
        for system in (entry.get("systems") or {}).values():
            cfg = system.get("configuration") or {}
            for key in ("model", "judge_model"):
                value = cfg.get(key)
                if value and value not in seen:
                    seen.append(str(value))
    return seen


def render_markdown(summary: Summary, plots: Mapping[str, Path]) -> str:
    """The report as Markdown."""
    run = summary["run"]
    machine = run.get("machine") or {}
    lines = ["# judged-rag evaluation", ""]
    lines.append(
        f"- Machine: {machine.get('platform', '?')}, {machine.get('cpus', '?')} CPUs, "
        f"Python {machine.get('python', '?')}"
    )
    versions = ", ".join(f"{k} {v}" for k, v in (machine.get("versions") or {}).items() if v)
    lines.append(f"- Versions: {versions}")
    lines.append(
        f"- Models: {', '.join(_models(run)) or '?'} "
        "(every system of a suite runs on the same model unless named `system@model`)"
    )
    lines.append("")
    for suite, data in summary["suites"].items():
        entry = run["suites"][suite]
        lines.append(f"## Suite: {suite}")
        lines.append("")
        lines.append(f"- Command: `{entry.get('command') or '(API)'}`")
        lines.append(
            f"- Started {entry.get('started')}, last invoked {entry.get('updated')}; "
            f"seed {entry['fingerprint']['seed']}, limit {entry.get('limit')}"
        )
        counts = entry.get("data_counts") or {}
        if counts:
            lines.append("- Data: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        lines.append("")
        descriptions = {k: v.get("description", "") for k, v in entry["systems"].items()}
        lines += table(["system", "what it is"], ([k, v] for k, v in descriptions.items()))
        lines += REGISTRY[suite].markdown(data, entry)
        for name, path in plots.items():
            if name.startswith(suite):
                lines += [f"![{name}]({path.name})", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_report(out_dir: Path) -> ReportFiles:
    """Write ``report.md``, ``summary.json`` and the plots of a run directory."""
    summary = summarize(out_dir)
    records = list(read_results(out_dir / RESULTS_FILE).values())
    plots: dict[str, Path] = {}
    for name, suite in REGISTRY.items():
        if name in summary["suites"]:
            rows = [r for r in records if r.get("suite") == name]
            plots.update(suite.plots(summary["suites"][name], rows, out_dir))
    summary_path = out_dir / SUMMARY_FILE
    summary_path.write_text(
        json.dumps(summary, indent=2, ensure_ascii=False, default=str), encoding="utf-8"
    )
    markdown = out_dir / REPORT_FILE
    markdown.write_text(render_markdown(summary, plots), encoding="utf-8")
    logger.info("report written to %s", markdown)
    return ReportFiles(markdown=markdown, summary=summary_path, plots=tuple(plots.values()))
