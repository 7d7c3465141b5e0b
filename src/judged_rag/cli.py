"""The `judged-rag` command line: index documents, ask questions, serve, list settings.

Other installed packages add subcommands through the entry-point group `COMMANDS`
(``judged_rag.commands`` in a distribution's metadata): each entry is a function that
takes the subparsers and adds its own. The evaluation lab, installed beside the library
by the same project, adds ``eval`` and ``eval-data`` this way. The library names no such
package in an import, so the layers point one way: the lab is built on the library and
the library never loads the lab, which stays out of every embedding program and test of
the library, and can leave the project (or another lab can join it) without a change here.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judged_rag.configuration import PRESETS, STRATEGIES, Configuration
from judged_rag.core.trace import INCIDENTS
from judged_rag.indexing.chunking import (
    CHUNK_PERCENTILE,
    CHUNK_THRESHOLD,
    CHUNKING_MODES,
    MIN_CHUNK_CHARS,
)
from judged_rag.indexing.gate_jobs import GATE_TIMINGS
from judged_rag.state import InputState, OutputState

if TYPE_CHECKING:
    from judged_rag.components import Components

logger = logging.getLogger("judged_rag.cli")
OUTPUT_KEYS = tuple(OutputState.__annotations__)
EXIT_USAGE = 2
EXIT_FAILURE = 1
COMMANDS = "judged_rag.commands"
"""The entry-point group of functions that add subcommands (see the module docstring)."""


def _parse_sets(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set expects key=value, got {pair!r}")
        key = key.strip()
        if key in ("open_strategy", "closed_strategy") and value.strip().isdigit():
            number = int(value)
            if not 1 <= number <= len(STRATEGIES):
                raise ValueError(f"{key}: strategy numbers go from 1 to {len(STRATEGIES)}")
            value = STRATEGIES[number - 1]
        values[key] = value.strip()
    return values


def settings_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line names: preset, then --set values, then dedicated flags."""
    values: dict[str, Any] = {"preset": args.preset, **_parse_sets(args.set or [])}
    if getattr(args, "index", None):
        values["index_dir"] = str(Path(args.index).expanduser())
    if getattr(args, "model", None):
        values["model"] = args.model
    return values


def configuration_from_args(args: argparse.Namespace) -> Configuration:
    """The run's configuration: preset, then --set values, then dedicated flags."""
    return Configuration.from_mapping(settings_from_args(args), strict=True)


def ask_components(cfg: Configuration) -> Components | None:
    """The components `ask` runs with: the on-disk index opened here, or None (PostgreSQL).

    A missing or corrupt index is an error to report, not something a run should work
    around (the nodes would record it and answer from the model alone). The index's
    embeddings come with it, so web results are scored on its cosine scale as in a run
    that opens `index_dir` itself. The sample is opened without writing its gate: the
    job that writes it starts after the answer (`report_gate`), so the first question
    does not wait for it nor share the CPU with it.
    """
    if cfg.store != "files":
        return None
    from judged_rag.components import Components
    from judged_rag.indexing import open_index, sample_index_dir

    retriever = open_index(Path(cfg.index_dir) if cfg.index_dir else sample_index_dir(None))
    return Components(retriever=retriever, embeddings=retriever.embeddings)


def _ask(args: argparse.Namespace) -> int:
    from judged_rag.graph.builder import build_graph

    cfg = configuration_from_args(args)
    inputs: InputState = {"question": args.question}
    if args.option:
        inputs["options"] = list(args.option)
    if args.task:
        inputs["task_type"] = args.task
    components = ask_components(cfg)
    retriever = components.retriever if components is not None else None
    graph = build_graph(components)
    result: dict[str, Any] = {}
    started = time.monotonic()
    for mode, chunk in graph.stream(inputs, context=cfg, stream_mode=["updates", "values"]):
        part: dict[str, Any] = dict(chunk)  # type: ignore[arg-type]
        if mode == "updates":
            for node in part:
                logger.info("%6.1f s  %s done", time.monotonic() - started, node)
        else:
            result = {key: part[key] for key in OUTPUT_KEYS if key in part}
    # A model may answer with characters stdout cannot encode (a lone surrogate from a
    # JSON "\ud800" escape): they are escaped rather than failing after the run.
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    if args.json:
        text = json.dumps(result, indent=2, ensure_ascii=False, default=str)
        if not _encodable(text, encoding):
            text = json.dumps(result, indent=2, default=str)  # ASCII escapes: still JSON
    else:
        text = render(result, show_trace=args.trace)
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    print(text)
    if retriever is not None and cfg.gate:
        report_gate(retriever, cfg, sample=not cfg.index_dir)
    return 0


def report_gate(retriever: Any, cfg: Configuration, *, sample: bool) -> None:
    """Say on stderr when the index's gate is not ready; for the sample, start writing it.

    The sample's gate is written by a background job started here, after the answer,
    with the run's judge model, once: a later question finds it running (or done).
    """
    from judged_rag.components.gate_job import QueryModel, start_gate_job
    from judged_rag.indexing.builder import gate_is_current
    from judged_rag.indexing.gate_jobs import building
    from judged_rag.indexing.sample import SAMPLE_PSEUDO_QUERIES

    progress = retriever.gate_progress()
    where = retriever.store.directory
    stale = sample and not gate_is_current(retriever.store.manifest)
    if progress.state == "building":
        print(_building_line(where, progress.done, progress.total, progress.log), file=sys.stderr)
        return
    if progress.state == "failed":
        print(
            f"judged-rag: the gate of {where} failed in the background ({progress.error}; "
            f"log: {progress.log}); "
            + ("writing it again" if stale else "every question is retrieved"),
            file=sys.stderr,
        )
    build = retriever.store.manifest.get("build")
    if not stale or building(where, build):  # one job for the sample's build, not one a question
        return
    model = QueryModel(
        cfg.judge_model or cfg.model,
        cfg.base_url or None,
        cfg.max_step_tokens,
        cfg.request_timeout,
    )
    job = start_gate_job(where, model, pseudo_queries=SAMPLE_PSEUDO_QUERIES)
    if job is not None and progress.state == "ready":  # written with earlier prompts
        print(
            f"judged-rag: the gate of {where} is being rewritten in the background with "
            f"today's prompts ({job.total} pseudo-queries; log: {job.log}); until then it "
            "uses the earlier ones",
            file=sys.stderr,
        )
    elif job is not None:
        print(_building_line(where, 0, job.total, job.log, started=True), file=sys.stderr)


def _building_line(
    where: Path, done: int, total: int, log: str | None, *, started: bool = False
) -> str:
    """What the command line says of a gate being written in the background."""
    verb = "is now being built" if started else "is being built"
    return (
        f"judged-rag: the gate of {where} {verb} in the background "
        f"({total - done} of {total} pseudo-queries to write; log: {log}); until it is "
        "done every question is retrieved"
    )


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def render(result: dict[str, Any], *, show_trace: bool = False) -> str:
    """A run's result for people: answer, citations, route, abstention, cost."""
    lines = [f"Answer: {result.get('answer', '')}"]
    citations = result.get("citations") or []
    if citations:
        lines.append("Citations:")
        lines += [f"  [{c['number']}] {c['title']} — {c['source']}" for c in citations]
    trace = result.get("trace") or []
    route = result.get("route") or {}
    gate: dict[str, Any] = next(
        (e["detail"] for e in trace if e["node"] == "gate" and e["event"] == "route"), {}
    )
    gate_text = route.get("gate", "?")
    if "s_max" in gate:
        gate_text += f" (s_max {gate['s_max']} vs cut-off {gate['cutoff']})"
    elif "why" in gate:
        gate_text += f" ({gate['why']})"
    labels = Counter(e["detail"]["label"] for e in trace if e["event"] == "judged")
    by = Counter(e["detail"]["by"] for e in trace if e["event"] == "judged")
    judges = sorted({str(e["detail"].get("judge")) for e in trace if e["event"] == "judged"})
    lines.append("Route:")
    lines.append(f"  task: {route.get('task_type', '?')}   gate: {gate_text}")
    if route.get("gate") != "direct":
        label_text = (
            ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(labels.items())) or "none"
        )
        lines.append(
            f"  iterations: {route.get('iterations')}   judgments: {label_text}  (by {dict(by)}"
            f"; judge: {', '.join(judges) or '-'})"
        )
        lines.append(
            f"  web searched: {'yes' if route.get('web_searched') else 'no'}   "
            f"combination: {route.get('combination')}   knowledge used: {route.get('knowledge')}"
        )
    lines.append(f"  basis: {result.get('basis')}   regenerations: {route.get('regenerations', 0)}")
    incidents = [e for e in trace if e["event"] in INCIDENTS]
    if incidents:
        lines.append("Incidents:")
        for e in incidents:
            detail = e["detail"]
            what = f"{detail.get('error', '')} {detail.get('message', '')}".strip()
            what = what or str(detail.get("why", ""))
            lines.append(f"  {e['node']}: {e['event']} {what}".rstrip())
    if result.get("abstained"):
        lines.append(f"Abstained: yes ({result.get('reason')})")
    else:
        lines.append("Abstained: no")
    cost = result.get("cost") or {}
    lines.append(
        f"Cost: {cost.get('llm_calls', 0)} LLM calls in "
        f"{cost.get('llm_rounds', 0)} sequential rounds, "
        f"{cost.get('input_tokens', 0)} tokens in / {cost.get('output_tokens', 0)} out, "
        f"{cost.get('seconds', 0.0):.1f} s"
    )
    if show_trace:
        lines.append("Trace:")
        for e in trace:
            detail = json.dumps(e["detail"], ensure_ascii=False, default=str)
            lines.append(f"  {e['node']:<10} {e['event']:<16} {detail}")
    return "\n".join(lines)


def gate_timing(args: argparse.Namespace) -> str:
    """When the gate is written: as asked, else in the background (PostgreSQL: now)."""
    if args.pseudo_queries <= 0:
        return "off"
    if args.gate == "background" and args.postgres:
        raise ValueError("--gate background writes into an --index folder; use now or off")
    return str(args.gate or ("now" if args.postgres else "background"))


def _index(args: argparse.Namespace) -> int:
    if bool(args.index) == bool(args.postgres):
        raise ValueError("give exactly one of --index DIR or --postgres URL")
    timing = gate_timing(args)
    query_model = None
    if timing == "now":
        from judged_rag.components.models import load_chat_model

        query_model = load_chat_model(args.model or Configuration().model)
    if args.index:
        _report_replaced_job(Path(args.index).expanduser())
    paths = [Path(p).expanduser() for p in args.paths]
    chunking = {
        "chunking": args.chunking,
        "chunk_threshold": args.chunk_threshold,
        "chunk_percentile": args.chunk_percentile,
        "min_chunk_chars": args.min_chunk_chars,
    }
    if args.postgres:
        from judged_rag.components.pgstore import build_pg_index

        stats = build_pg_index(
            paths,
            args.postgres,
            collection=args.collection,
            query_model=query_model,
            pseudo_queries=args.pseudo_queries,
            queries_per_chunk=args.queries_per_chunk,
            progress=not args.quiet,
            **chunking,
        )
    else:
        from judged_rag.indexing import IndexBuildError, build_index

        try:
            stats = build_index(
                paths,
                Path(args.index).expanduser(),
                query_model=query_model,
                pseudo_queries=0 if timing == "off" else args.pseudo_queries,
                queries_per_chunk=args.queries_per_chunk,
                progress=not args.quiet,
                **chunking,
            )
        except FileNotFoundError:
            raise
        except OSError as exc:  # e.g. a folder that cannot be written, a full disk
            raise IndexBuildError(f"cannot build the index {args.index}: {exc}") from exc
    print(json.dumps(stats.__dict__, indent=2, default=str))
    print(_index_summary(stats), file=sys.stderr)
    if timing == "background":
        _start_background_gate(args)
    return 0


def _start_background_gate(args: argparse.Namespace) -> None:
    """Start the job writing the new index's gate, and say where it stands."""
    from judged_rag.components.gate_job import QueryModel, start_gate_job

    where = Path(args.index).expanduser().resolve()
    model = QueryModel(args.model or Configuration().model)
    job = start_gate_job(
        where,
        model,
        pseudo_queries=args.pseudo_queries,
        queries_per_chunk=args.queries_per_chunk,
    )
    if job is None:
        print("judged-rag: the index and its gate are ready", file=sys.stderr)
        return
    print(
        f"judged-rag: the index is usable now; its gate is being built in the background: "
        f"{job.total} pseudo-queries to write (process {job.pid}, log: {job.log}); until it "
        f"is done every question is retrieved (`judged-rag status --index {args.index}` "
        "tells how far it is)",
        file=sys.stderr,
    )


def _report_replaced_job(index_dir: Path) -> None:
    """Say that a gate still being written for the index's previous build will stop."""
    from judged_rag.indexing.gate_jobs import read_job, running

    job = read_job(index_dir)
    if running(job):
        assert job is not None  # for the type checker
        print(
            f"judged-rag: the gate of the previous build is still being written (process "
            f"{job.pid}, {job.done} of {job.total}); it stops once this build replaces it",
            file=sys.stderr,
        )


def _status(args: argparse.Namespace) -> int:
    """Print what an index holds and how far its gate is."""
    from judged_rag.indexing import open_index
    from judged_rag.indexing.sample import default_sample_dir

    where = Path(args.index).expanduser() if args.index else default_sample_dir()
    retriever = open_index(where)
    manifest = retriever.store.manifest
    progress = retriever.gate_progress()
    record: dict[str, Any] = {
        "index": str(retriever.store.directory),
        "files": manifest.get("files"),
        "chunks": manifest.get("chunks"),
        "created": manifest.get("created"),
        "gate": progress.state,
        "pseudo_queries": manifest.get("pseudo_queries", 0),
    }
    if progress.state in ("building", "failed"):
        record |= {"done": progress.done, "total": progress.total, "log": progress.log}
    if progress.error:
        record["error"] = progress.error
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        print("\n".join(f"{key}: {value}" for key, value in record.items()))
    return 0


def _index_summary(stats: Any) -> str:
    """One line for people: what was indexed and what was skipped, and why."""
    line = (
        f"judged-rag: indexed {stats.files} files into {stats.chunks} chunks "
        f"({stats.added} added, {stats.changed} changed, {stats.unchanged} unchanged, "
        f"{stats.removed} removed)"
    )
    if stats.renoted:
        line += f"; {stats.renoted} unchanged files given new definitions from other files"
    unreadable = list(stats.unreadable)
    unsupported = len(stats.skipped) - len(unreadable)
    if unsupported:
        line += f"; skipped {unsupported} unsupported"
    if unreadable:
        shown = ", ".join(unreadable[:3]) + (" ..." if len(unreadable) > 3 else "")
        line += f"; skipped {len(unreadable)} unreadable: {shown}"
    return line


def _load_graph(spec: str) -> Any:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--graph expects module:attribute, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--graph: cannot import {module_name!r}: {exc}") from None
    if not hasattr(module, attr):
        raise ValueError(f"--graph: {module_name!r} has no attribute {attr!r}")
    return getattr(module, attr)


def _serve(args: argparse.Namespace) -> int:
    try:
        from judged_rag.serve import create_app, serve
    except ImportError as exc:
        raise ValueError(
            f"serving needs `pip install langserve fastapi uvicorn sse-starlette` ({exc})"
        ) from None
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ValueError(f"environment variable {args.api_key_env} is not set or empty")
    settings = settings_from_args(args)
    graph = _load_graph(args.graph) if args.graph else None
    app = create_app(
        graph,
        api_key=api_key,
        settings=settings,
        checkpointer=args.checkpointer,
        run_threads=args.run_threads,
        allowed_hosts=args.allowed_host or (),
        body_timeout=args.body_timeout,
    )
    if not api_key and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"judged-rag: warning: serving on {args.host} without an API key "
            "(set one with --api-key-env NAME); only requests for loopback Host names "
            "and --allowed-host ones are answered",
            file=sys.stderr,
        )
    if args.open:
        _open_when_up(args.host, args.port)
    serve(
        app,
        host=args.host,
        port=args.port,
        header_timeout=args.header_timeout,
        max_connections=args.max_connections,
    )
    return 0


def _open_when_up(host: str, port: int) -> None:
    """Open the server's page in a browser as soon as the server accepts connections."""
    import socket
    import threading
    import webbrowser

    name = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://{f'[{name}]' if ':' in name else name}:{port}/"

    def wait_then_open() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection((name, port), timeout=1).close()
            except OSError:
                time.sleep(0.2)
                continue
            webbrowser.open(url)
            return

    threading.Thread(target=wait_then_open, name="open-page", daemon=True).start()


def _settings(args: argparse.Namespace) -> int:
    cfg = Configuration.from_mapping({"preset": args.preset})
    for f in fields(Configuration):
        print(f"{f.name} = {getattr(cfg, f.name)!r}\n    {f.metadata.get('description', '')}")
    return 0


def _model(args: argparse.Namespace) -> int:
    from judged_rag.components.local_model import resolve_model
    from judged_rag.components.local_model.shared import serve, status
    from judged_rag.components.models import parse_spec

    if args.action == "status":
        records = status()
        if args.json:
            print(json.dumps(records, indent=2))
        for r in [] if args.json else records:
            where = r.get("base_url") or ""
            print(f"{r.get('state')}: {r.get('model', '?')} {where} pid {r.get('pid')}")
        if not records and not args.json:
            print("no shared model server")
        return 0
    spec = args.model or Configuration().model
    provider, name = parse_spec(spec)
    if provider != "local":
        raise ValueError(f"only local models are served here; {spec!r} is not 'local:NAME'")
    if args.slots < 1:
        raise ValueError("--slots must be at least 1")
    serve(resolve_model(name), n_parallel=args.slots)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="judged-rag", description="Retrieval-augmented answers that judge what they retrieve."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--preset", choices=list(PRESETS), default="default", help="named bundle of settings"
        )
        p.add_argument(
            "--set",
            action="append",
            metavar="KEY=VALUE",
            help="any setting (see `judged-rag settings`)",
        )

    ask = sub.add_parser("ask", help="answer a question")
    ask.add_argument("question")
    ask.add_argument(
        "--option", action="append", help="an answer option (repeat); makes the task closed-ended"
    )
    ask.add_argument("--task", choices=["open", "closed"], help="override the task type")
    ask.add_argument("--index", help="index directory (default: the sample knowledge base)")
    ask.add_argument(
        "--model", help="chat model, e.g. local:qwen2.5-coder-1.5b or openai:gpt-4o-mini"
    )
    ask.add_argument("--json", action="store_true", help="print the full result as JSON")
    ask.add_argument("--trace", action="store_true", help="print every trace event")
    common(ask)
    ask.set_defaults(func=_ask)

    index = sub.add_parser("index", help="index files or folders (text, Markdown, HTML, PDF)")
    index.add_argument("paths", nargs="+")
    index.add_argument("--index", help="index directory to create or update")
    index.add_argument("--postgres", metavar="URL", help="build into PostgreSQL + pgvector instead")
    index.add_argument("--collection", default="judged_rag", help="PostgreSQL collection name")
    index.add_argument(
        "--pseudo-queries", type=int, default=200, help="chunks sampled for the gate (0: none)"
    )
    index.add_argument(
        "--queries-per-chunk",
        type=int,
        default=1,
        help="pseudo-queries written per sampled chunk (CAG writes 3; default 1, cheaper)",
    )
    index.add_argument("--model", help="chat model writing the pseudo-queries")
    index.add_argument(
        "--gate",
        choices=GATE_TIMINGS,
        help="when the gate's pseudo-queries are written: after the index, by a process "
        "in the background (the default for --index: the index is usable at once and "
        "questions are retrieved until the gate is done), during the build (now; the "
        "default for --postgres) or never (off, like --pseudo-queries 0)",
    )
    index.add_argument(
        "--chunking",
        choices=CHUNKING_MODES,
        help="new chunk where consecutive sentences are less similar than a percentile of "
        "the corpus's own similarities (calibrated, the default) or than a fixed value",
    )
    index.add_argument(
        "--chunk-threshold",
        type=float,
        help=f"the fixed breakpoint (implies --chunking fixed; default {CHUNK_THRESHOLD})",
    )
    index.add_argument(
        "--chunk-percentile",
        type=float,
        default=CHUNK_PERCENTILE,
        help="percentile of the corpus's consecutive-sentence similarities (calibrated)",
    )
    index.add_argument(
        "--min-chunk-chars",
        type=int,
        default=MIN_CHUNK_CHARS,
        help="merge shorter and one-sentence chunks into a neighbour when they fit (0: never)",
    )
    index.add_argument("--quiet", action="store_true", help="no progress bars")
    index.set_defaults(func=_index)

    serve_ = sub.add_parser(
        "serve",
        help="serve over HTTP with LangServe (the LangGraph server, `langgraph dev`, is primary)",
    )
    serve_.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    serve_.add_argument("--port", type=int, default=8000)
    serve_.add_argument(
        "--open",
        action="store_true",
        help="open the page (at /: ask, and see what the judge decided) in a web browser",
    )
    serve_.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key every request must send as X-API-Key",
    )
    serve_.add_argument(
        "--graph",
        metavar="MODULE:ATTR",
        help="graph to serve: a function called as f(settings=..., remote=True), like "
        "build_graph, or a graph compiled with remote=True (default: judged-rag's)",
    )
    serve_.add_argument("--index", help="index directory (default: the sample knowledge base)")
    serve_.add_argument("--model", help="chat model (clients cannot change it)")
    serve_.add_argument(
        "--checkpointer",
        metavar="sqlite:PATH",
        help="keep threads in this SQLite file, across restarts; clients send "
        "configurable.thread_id and read threads back at /judged-rag/threads/{id}/state",
    )
    serve_.add_argument(
        "--run-threads",
        type=int,
        default=32,
        metavar="N",
        help="threads for blocking model calls, shared by all requests (default: 32)",
    )
    serve_.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="a Host header name to serve besides 127.0.0.1, localhost and [::1] (repeat); "
        "without an API key other hosts are refused",
    )
    serve_.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="most time a request head may take; then the connection closes (default: 10)",
    )
    serve_.add_argument(
        "--body-timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="most time a request body may take after its head; then 408 (default: 15)",
    )
    serve_.add_argument(
        "--max-connections",
        type=int,
        default=100,
        metavar="N",
        help="connections served at once; a request on one more gets 503 (default: 100)",
    )
    common(serve_)
    serve_.set_defaults(func=_serve)

    model = sub.add_parser(
        "model",
        help="keep a local model loaded for later commands (serve), or list those that are",
        description="`serve` loads a local model once and keeps it on 127.0.0.1 until "
        "Ctrl-C; every judged-rag command that uses the same model file then talks to it "
        "instead of loading its own (JUDGED_RAG_SHARED_MODEL=0 turns that off).",
    )
    model.add_argument("action", choices=["serve", "status"])
    model.add_argument("--model", help="local model to serve (default: the default model)")
    model.add_argument(
        "--slots", type=int, default=4, help="requests decoded together (default: 4)"
    )
    model.add_argument("--json", action="store_true", help="status as JSON")
    model.set_defaults(func=_model)

    status = sub.add_parser("status", help="what an index holds and how far its gate is")
    status.add_argument("--index", help="index directory (default: the sample knowledge base)")
    status.add_argument("--json", action="store_true", help="print it as JSON")
    status.set_defaults(func=_status)

    settings = sub.add_parser("settings", help="list every setting with its value and meaning")
    settings.add_argument("--preset", choices=list(PRESETS), default="default")
    settings.set_defaults(func=_settings)
    add_plugin_commands(sub)
    return parser


def add_plugin_commands(subparsers: Any) -> None:
    """Let each function of the `COMMANDS` entry-point group add its subcommands, by name."""
    for entry in sorted(importlib.metadata.entry_points(group=COMMANDS), key=lambda e: e.name):
        entry.load()(subparsers)


def _quiet_libraries(level: int) -> None:
    """Keep what libraries print on every start out of a question's output.

    bm25s sets its own logger to DEBUG when imported ("Building index from tokens" on
    every load), so the level is enforced on the handler; transformers draws a
    "Loading weights" bar each time the embedding model loads. judged-rag's own bars,
    for one-time builds, stay; `-v` shows everything.
    """
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `judged-rag` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, stream=sys.stderr)
    if not args.verbose:
        _quiet_libraries(level)
    from judged_rag.components import ComponentError
    from judged_rag.errors import InvalidInputError

    try:
        code: int = args.func(args)
    except (InvalidInputError, ComponentError, ValueError, FileNotFoundError) as exc:
        print(f"judged-rag: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("judged-rag: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
