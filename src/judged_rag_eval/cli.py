"""The lab's subcommands of ``judged-rag``: ``eval`` and ``eval-data``.

The library's command line finds `add_commands` through the entry-point group
``judged_rag.commands`` (declared in pyproject) and calls it with its subparsers; it
never imports this package by name. ``eval`` runs a suite; ``eval-data`` builds the
retrieval-dependent question set, selects its retrieval-dependent rows and builds the
fictional-organisations knowledge base. Importing this module is cheap: the harness
loads when a command runs.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def parse_settings(pairs: Sequence[str]) -> dict[str, str]:
    """``--set key=value`` pairs as a dict; strategy settings also take RJAG's numbers 1-8.

    Raises:
        ValueError: For a pair without ``=`` or a strategy number out of range.
    """
    from judged_rag.configuration import STRATEGIES

    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f"--set expects key=value, got {pair!r}")
        if key in ("open_strategy", "closed_strategy") and value.isdigit():
            number = int(value)
            if not 1 <= number <= len(STRATEGIES):
                raise ValueError(f"{key}: strategy numbers go from 1 to {len(STRATEGIES)}")
            value = STRATEGIES[number - 1]
        values[key] = value
    return values


def add_commands(subparsers: Any) -> None:
    """Add ``eval`` and ``eval-data`` to the main parser's subparsers (the entry point)."""
    add_eval_parser(subparsers)
    add_eval_data_parser(subparsers)


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to the main parser's subparsers.

    Args:
        subparsers: What `ArgumentParser.add_subparsers` returned.

    Returns:
        The ``eval`` parser (its handler is set as ``func``).
    """
    from judged_rag.configuration import PRESETS
    from judged_rag_eval.systems import DEFAULT_SYSTEMS, SUITES

    listing = "\n".join(
        f"  {suite}: {', '.join(names)}" for suite, names in DEFAULT_SYSTEMS.items()
    )
    p: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="measure judged-rag against baselines (FanOutQA over offline Wikipedia, or your data)",
        description=(
            "Run an evaluation suite; results are appended to OUT/results.jsonl (a rerun "
            "skips finished questions) and OUT/report.md, OUT/summary.json and PNG plots "
            "are written at the end."
        ),
        epilog=f"systems per suite:\n{listing}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--suite",
        choices=SUITES,
        required=True,
        help="what to measure (injection: documents carrying prompt injections)",
    )
    p.add_argument(
        "--systems",
        help="comma-separated systems (name or name@provider:model); default: all of the suite's",
    )
    p.add_argument("--limit", type=int, help="questions per variant (default: all)")
    p.add_argument(
        "--variants",
        help="comma-separated variants to run: open, mc, unanswerable (default: all)",
    )
    p.add_argument("--seed", type=int, default=0, help="question order, distractors, samples")
    p.add_argument("--out", required=True, help="run directory (created; resumed when it exists)")
    p.add_argument(
        "--data",
        help="your JSON-lines data set instead of FanOutQA (needs --index unless only "
        "no_retrieval runs)",
    )
    p.add_argument("--index", help="index directory of your documents (with --data)")
    p.add_argument(
        "--contexts",
        help="noise suite: the contexts file (default: contexts.jsonl beside --data)",
    )
    p.add_argument("--model", help="chat model for every system, e.g. local:qwen2.5-coder-1.5b")
    p.add_argument(
        "--preset", choices=list(PRESETS), default="default", help="the run's named settings"
    )
    p.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="any setting, for every system"
    )
    p.add_argument("--workers", type=int, default=1, help="questions in flight (default 1)")
    p.add_argument("--k", type=int, default=10, help="retrieval suite depth (recall@1..k)")
    p.add_argument(
        "--kb-topics",
        default="Geography",
        help="gate suite: comma-separated corpus topics forming the knowledge base",
    )
    p.add_argument(
        "--kb-description", help="gate suite: what the LLM router is told the knowledge base holds"
    )
    p.add_argument(
        "--pseudo-queries", type=int, default=200, help="gate suite: chunks sampled for the gate"
    )
    p.add_argument("--retry-errors", action="store_true", help="rerun questions that failed")
    p.add_argument("--report-only", action="store_true", help="only rebuild the report of OUT")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_eval_command)
    return p


def add_eval_data_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``eval-data``: ``build``, ``select``, ``build-orgs``, ``build-handbook``, ``build-rgb``.

    ``build`` and ``select`` serve `judged_rag_eval.datasets.rdq`; ``build-orgs`` writes
    the fictional organisations (`judged_rag_eval.datasets.orgs`), ``build-handbook`` a
    company's internal documentation (`judged_rag_eval.datasets.handbook`), ``build-rgb``
    the noise suite's data from the user's copy of RGB (`judged_rag_eval.datasets.rgb`).
    """
    p: argparse.ArgumentParser = subparsers.add_parser(
        "eval-data",
        help="build the retrieval-dependent question set; select the rows the model cannot "
        "answer alone",
        description="The retrieval-dependent question set (natural FanOutQA rows, renamed "
        "people, no-evidence rows) with noise-controlled contexts and an indexable corpus.",
    )
    actions = p.add_subparsers(dest="action", required=True)
    build = actions.add_parser("build", help="derive the set into a folder (deterministic)")
    build.add_argument("--out", required=True, help="folder to write (created)")
    build.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
    build.set_defaults(func=run_build_command)
    select = actions.add_parser(
        "select",
        help="run no_retrieval over the answerable rows (resumable) and list those it gets wrong",
    )
    select.add_argument("--data", required=True, help="the folder `eval-data build` wrote")
    select.add_argument("--out", required=True, help="run directory (resumed when it exists)")
    select.add_argument("--model", help="chat model (default: the configured default model)")
    select.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="any setting of the run"
    )
    select.add_argument("--workers", type=int, default=1, help="questions in flight (default 1)")
    select.add_argument(
        "--ship",
        action="store_true",
        help="when every row has a result, also write the id list into the package "
        "(judged_rag_eval/datasets/rdq_ids.json)",
    )
    select.add_argument("--no-progress", action="store_true", help="no progress bar")
    select.set_defaults(func=run_select_command)
    orgs = actions.add_parser(
        "build-orgs",
        help="write a made-up knowledge base of similar organisations with dated changes, "
        "and its questions by category (deterministic; no model)",
    )
    orgs.add_argument("--out", required=True, help="folder to write (created)")
    orgs.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
    orgs.set_defaults(func=run_build_orgs_command)
    handbook = actions.add_parser(
        "build-handbook",
        help="write a made-up company's internal documentation and questions of many shapes "
        "(deterministic; no model; seed 1 = dev, another seed = another company)",
    )
    handbook.add_argument("--out", required=True, help="folder to write (created)")
    handbook.add_argument(
        "--seed",
        type=int,
        default=1,
        help="1: the dev company (default); a seed never built before to hold a set out",
    )
    handbook.set_defaults(func=run_build_handbook_command)
    rgb = actions.add_parser(
        "build-rgb",
        help="convert your copy of RGB's counterfactual set (en_fact.json, CC BY-NC-SA 4.0) "
        "into noise-suite data and contexts: mixed and counterfactual (never shipped)",
    )
    rgb.add_argument(
        "--rgb", required=True, help="folder holding en_fact.json (or the file itself)"
    )
    rgb.add_argument("--out", required=True, help="folder to write, outside the project")
    rgb.add_argument("--seed", type=int, default=0, help="snippet draw and order (default 0)")
    rgb.set_defaults(func=run_build_rgb_command)
    return p


def run_build_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval-data build``."""
    from judged_rag_eval.datasets.rdq import build_dataset, write_dataset

    out_dir = Path(args.out).expanduser()
    metadata = write_dataset(build_dataset(seed=args.seed), out_dir)
    print(json.dumps(metadata["counts"], indent=2))
    print(f"question set: {out_dir}; index its corpus with: judged-rag index {out_dir / 'corpus'}")
    return 0


def run_build_orgs_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval-data build-orgs``."""
    from judged_rag_eval.datasets.orgs import CORPUS_DIR, DATA_FILE, build_orgs, write_orgs

    out_dir = Path(args.out).expanduser()
    metadata = write_orgs(build_orgs(seed=args.seed), out_dir)
    counts = metadata["counts"]
    print(json.dumps(counts, indent=2))
    corpus, data = out_dir / CORPUS_DIR, out_dir / DATA_FILE
    index = shlex.quote(str(out_dir.with_name(f"{out_dir.name}-index")))
    print(f"corpus: {corpus} ({sum(counts['pages'].values())} pages)")
    print(f"questions: {data} ({counts['rows']} rows)")
    print(
        f"index it: judged-rag index {shlex.quote(str(corpus))} --index {index} --pseudo-queries 0"
    )
    print(
        f"evaluate: judged-rag eval --suite e2e --data {shlex.quote(str(data))} --index {index} "
        "--systems plain_rag,judged --out runs/orgs"
    )
    return 0


def run_build_handbook_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval-data build-handbook``."""
    from judged_rag_eval.datasets.handbook import (
        CORPUS_DIR,
        DATA_FILE,
        build_handbook,
        write_handbook,
    )

    out_dir = Path(args.out).expanduser()
    metadata = write_handbook(build_handbook(seed=args.seed), out_dir)
    counts = metadata["counts"]
    print(json.dumps(counts, indent=2))
    corpus, data = out_dir / CORPUS_DIR, out_dir / DATA_FILE
    index = shlex.quote(str(out_dir.with_name(f"{out_dir.name}-index")))
    print(f"company: {metadata['company']} (seed {args.seed}, {metadata['role']})")
    print(f"corpus: {corpus} ({sum(counts['pages'].values())} pages, {counts['words']} words)")
    print(f"questions: {data} ({counts['rows']} rows)")
    print(
        f"index it: judged-rag index {shlex.quote(str(corpus))} --index {index} --pseudo-queries 0"
    )
    return 0


def run_build_rgb_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval-data build-rgb``."""
    from judged_rag_eval.datasets.rgb import DATA_FILE, build_rgb, read_rgb, source_file, write_rgb

    source = source_file(Path(args.rgb).expanduser())
    out_dir = Path(args.out).expanduser()
    metadata = write_rgb(
        build_rgb(read_rgb(source), seed=args.seed), out_dir, seed=args.seed, source=source
    )
    print(json.dumps(metadata["counts"], indent=2))
    data = shlex.quote(str(out_dir / DATA_FILE))
    print(f"questions and contexts: {out_dir}")
    print(
        f"evaluate: judged-rag eval --suite noise --data {data} "
        "--systems plain_rag,crag,judged --out runs/rgb"
    )
    return 0


def run_select_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval-data select``."""
    from judged_rag_eval.datasets.rdq import SELECTION_FILE, SHIPPED_IDS, select_retrieval_dependent

    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    settings: dict[str, Any] = dict(parse_settings(args.set or []))
    if args.model:
        settings["model"] = args.model
    out_dir = Path(args.out).expanduser()
    selection = select_retrieval_dependent(
        Path(args.data).expanduser(),
        out_dir,
        settings=settings,
        workers=args.workers,
        progress=not args.no_progress,
        ship=SHIPPED_IDS if args.ship else None,
        command="judged-rag " + shlex.join(sys.argv[1:]) if sys.argv else "",
    )
    print(json.dumps(selection["counts"], indent=2))
    print(
        f"{selection['finished']} of {selection['answerable']} rows done; "
        f"{len(selection['ids'])} retrieval-dependent so far: {out_dir / SELECTION_FILE}"
    )
    if args.ship:
        print(
            f"shipped: {SHIPPED_IDS}"
            if selection["complete"]
            else "not shipped: the run is incomplete (rerun the same command to resume)"
        )
    return 0


def options_from_args(args: argparse.Namespace) -> Any:
    """The `EvalOptions` an ``eval`` command line asks for.

    Raises:
        ValueError: For invalid values.
    """
    from judged_rag_eval.context import EvalOptions
    from judged_rag_eval.items import VARIANTS

    settings: dict[str, Any] = {"preset": args.preset, **parse_settings(args.set or [])}
    if args.index:
        settings["index_dir"] = str(Path(args.index).expanduser())
    if args.model:
        settings["model"] = args.model
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    if args.k < 1:
        raise ValueError("--k must be at least 1")
    topics = tuple(t.strip() for t in args.kb_topics.split(",") if t.strip())
    variants = tuple(v.strip() for v in (args.variants or "").split(",") if v.strip())
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variant(s) {', '.join(unknown)}; choose from {VARIANTS}")
    data = Path(args.data).expanduser() if args.data else None
    if data is not None and not data.is_file():
        raise FileNotFoundError(f"no such data file: {data}")
    return EvalOptions(
        suite=args.suite,
        out_dir=Path(args.out).expanduser(),
        systems=[s for s in (args.systems or "").split(",") if s.strip()],
        settings=settings,
        limit=args.limit,
        variants=variants,
        seed=args.seed,
        workers=args.workers,
        k=args.k,
        kb_topics=topics,
        kb_description=args.kb_description,
        pseudo_queries=args.pseudo_queries,
        data=data,
        contexts=Path(args.contexts).expanduser() if args.contexts else None,
        progress=not args.no_progress,
        retry_errors=args.retry_errors,
        command="judged-rag " + shlex.join(sys.argv[1:]) if sys.argv else "",
    )


def run_eval_command(args: argparse.Namespace) -> int:
    """Handler of ``judged-rag eval``: run the suite, write the report, print where."""
    from judged_rag_eval.report import write_report
    from judged_rag_eval.runner import run_eval

    out_dir = Path(args.out).expanduser()
    if not args.report_only:
        options = options_from_args(args)
        summary = run_eval(options)
        print(
            f"{options.suite}: {summary.ran} run now, {summary.skipped} done earlier, "
            f"{summary.errors} errors, {summary.seconds:.1f} s"
        )
    elif not (out_dir / "run.json").is_file():
        raise FileNotFoundError(f"no run in {out_dir}")
    files = write_report(out_dir)
    print(f"report: {files.markdown}")
    print(f"summary: {files.summary}")
    for plot in files.plots:
        print(f"plot: {plot}")
    return 0
