"""Bounded load test of judged-rag's two servers, over loopback.

Starts each server on a free 127.0.0.1 port in its own process group, sends a fixed
number of questions at a fixed concurrency within an overall deadline, stops the server,
and reports every request's fate: succeeded (the expected answer), wrong (an answer, but
not the expected one), failed (an error or a timeout), lost (sent, no reply by the
deadline) or not sent (the deadline came first). Also latency percentiles, throughput,
the server's peak resident memory (its whole process group, sampled) and CPU time.

Targets:
- `langgraph`: `langgraph dev` (the LangGraph API server); each request creates a thread
  and waits for a run on it (`--stateless`: one stateless run instead). Afterwards the
  server's own record of every thread's runs is checked too.
- `langserve`: `judged-rag serve`, `POST /judged-rag/invoke`.

Models:
- `fake` (default): the graph of `tests/integration/load_graph.py`, LangChain fakes whose
  every call takes `--latency` seconds; each answer names its question's tag, so crossed
  replies show.
- `local:NAME` (e.g. `local:qwen2.5-coder-0.5b`): the real graph and local model with the
  `--preset` (default fast) on the sample knowledge base. Slow: keep it small
  (`--requests 8 --concurrency 4`). An answer is expected to be well-formed; whether it
  names the expected fact is reported, not enforced. `--questions readme` asks the
  README's four sample questions instead of the mathematics ones; the warm-up question is
  in neither set, and each request's question, answer, seconds and LLM calls are kept in
  the report (`per_question`).

    python scripts/load_test.py --json runs/load.json                 # 200 at 20, both
    python scripts/load_test.py --target langserve --requests 40 --concurrency 10
    python scripts/load_test.py --model local:qwen2.5-coder-0.5b --requests 8 --concurrency 4
    python scripts/load_test.py --model local:qwen2.5-coder-1.5b --preset default \
        --questions readme --requests 8 --concurrency 1 --warmup 1   # one at a time

Exit status 0 when every request succeeded, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import re
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the test helpers: server control and the fake graph

from tests.integration.load_graph import LATENCY_ENV, expected_answer  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    PYTHON,
    env_with_repo_on_path,
    free_port,
    start,
    stop,
    tail,
    wait_ready,
)

LANGGRAPH = str(Path(sys.executable).parent / "langgraph")
GRAPH_ID = "judged_rag"
FAKE_GRAPH = ROOT / "tests" / "integration" / "load_graph.py"

LOCAL_QUESTIONS: list[tuple[str, str]] = [
    ("Who proved Fermat's Last Theorem?", "wiles"),
    ("What does the Pythagorean theorem relate?", "triangle"),
    ("Who is known as the father of geometry?", "euclid"),
    ("What is the ratio of a circle's circumference to its diameter called?", "pi"),
]
# The README's four sample questions: in the knowledge base, sent to the model by the gate
# (twice), and one nothing answers (its expected word is the abstention's).
README_QUESTIONS: list[tuple[str, str]] = [
    ("Who proved Fermat's Last Theorem?", "wiles"),
    ("Who painted the Mona Lisa?", "leonardo"),
    ("Which country has the largest population?", "china"),
    ("Who proved the Zorvath extension of Fermat's Last Theorem in 1987?", "unknown"),
]
QUESTION_SETS = {"sample": LOCAL_QUESTIONS, "readme": README_QUESTIONS}
# Warm-up for a real model: a question outside both sets, so that llama.cpp's prompt cache
# holds the shared instructions but none of the measured questions' own prompts.
WARMUP_QUESTION = "What is a prime number?"

Call = Callable[[int], Awaitable[dict[str, Any]]]


@dataclass
class Outcome:
    """One request's fate."""

    index: int
    status: str = "not_sent"  # ok | wrong | failed | lost | not_sent
    seconds: float | None = None
    error: str | None = None
    keyword_hit: bool | None = None
    question: str | None = None
    answer: str | None = None
    llm_calls: int | None = None
    llm_rounds: int | None = None


@dataclass
class Report:
    """One target's figures."""

    target: str
    model: str
    latency_per_llm_call_s: float | None
    requests: int
    concurrency: int
    deadline_s: float
    sent: int = 0
    succeeded: int = 0
    wrong: int = 0
    failed: int = 0
    lost: int = 0
    not_sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    first_errors: list[str] = field(default_factory=list)
    latency_ms: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    throughput_rps: float = 0.0
    server_start_s: float = 0.0
    warmup_s: list[float] = field(default_factory=list)
    rss_mb: dict[str, float] = field(default_factory=dict)
    server_processes: int = 0
    server_cpu_s: float = 0.0
    keyword_hits: int | None = None
    per_question: list[dict[str, Any]] = field(default_factory=list)
    server_side: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    loadavg_before: str = ""
    loadavg_after: str = ""


def loadavg() -> str:
    """The first three fields of /proc/loadavg (1, 5, 15 minutes)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


class GroupSampler:
    """Samples the resident memory of a process and all its descendants, in a thread."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.root = psutil.Process(pid)
        self.interval = interval
        self.peak = 0
        self.samples = 0
        self.max_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def processes(self) -> list[psutil.Process]:
        """The server's process tree as it is now."""
        try:
            return [self.root, *self.root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def rss(self) -> int:
        """Bytes resident in the whole tree now."""
        total = 0
        procs = self.processes()
        self.max_processes = max(self.max_processes, len(procs))
        for p in procs:
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
        return total

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the live tree."""
        total = 0.0
        for p in self.processes():
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.rss())
            self.samples += 1
            self._stop.wait(self.interval)

    def __enter__(self) -> GroupSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class RunningServer:
    """A started server: its process, base URL and log."""

    def __init__(self, proc: Any, url: str, log: Path, started: float) -> None:
        self.proc, self.url, self.log, self.start_s = proc, url, log, started


@contextlib.contextmanager
def langgraph_server(work: Path, args: argparse.Namespace) -> Iterator[RunningServer]:
    """`langgraph dev` on a free loopback port, serving the fake or the real graph."""
    project = work / "langgraph"
    project.mkdir()
    if args.model == "fake":
        graph = FAKE_GRAPH
    else:
        # The model and preset are the operator's settings: a served graph takes neither
        # from its clients.
        graph = project / "served.py"
        settings = {"model": args.model, "preset": args.preset}
        graph.write_text(
            "from judged_rag import build_graph\n\n"
            f"graph = build_graph(settings={settings!r}, remote=True)\n",
            encoding="utf-8",
        )
    config = project / "langgraph.json"
    config.write_text(
        json.dumps({"dependencies": ["."], "graphs": {GRAPH_ID: f"{graph}:graph"}}),
        encoding="utf-8",
    )
    port = free_port()
    cmd = [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--config", str(config)]
    if args.n_jobs_per_worker:
        cmd += ["--n-jobs-per-worker", str(args.n_jobs_per_worker)]
    log = work / "langgraph.log"  # outside the served folder: a log inside it reloads forever
    t0 = time.monotonic()
    proc = start(cmd, cwd=project, log=log, env=env_with_repo_on_path(**server_env(args)))
    try:
        url = f"http://127.0.0.1:{port}"
        wait_ready(proc, f"{url}/ok", log=log, timeout=args.start_timeout)
        ports = {int(p) for p in re.findall(r"API: \S*?127\.0\.0\.1:(\d+)", tail(log, 200))}
        if ports != {port}:
            raise RuntimeError(f"langgraph dev announced {ports}, expected {port}")
        yield RunningServer(proc, url, log, time.monotonic() - t0)
    finally:
        stop(proc)


@contextlib.contextmanager
def langserve_server(work: Path, args: argparse.Namespace) -> Iterator[RunningServer]:
    """`judged-rag serve` on a free loopback port, serving the fake or the real graph."""
    port = free_port()
    cmd = [PYTHON, "-m", "judged_rag.cli", "serve", "--port", str(port)]
    if args.model == "fake":
        cmd += ["--graph", "tests.integration.load_graph:graph"]
    else:
        cmd += ["--model", args.model, "--preset", args.preset]
    if args.run_threads:
        cmd += ["--run-threads", str(args.run_threads)]
    log = work / "langserve.log"
    t0 = time.monotonic()
    proc = start(cmd, cwd=work, log=log, env=env_with_repo_on_path(**server_env(args)))
    try:
        url = f"http://127.0.0.1:{port}"
        wait_ready(proc, f"{url}/judged-rag/input_schema", log=log, timeout=args.start_timeout)
        yield RunningServer(proc, url, log, time.monotonic() - t0)
    finally:
        stop(proc)


def server_env(args: argparse.Namespace) -> dict[str, str]:
    """Environment of a server: the fakes' latency."""
    return {LATENCY_ENV: str(args.latency)}


def question(i: int, args: argparse.Namespace) -> str:
    """The i-th question; fake-model questions carry a tag the answer must repeat."""
    if args.model == "fake":
        return f"What is the capital of France? (q-{i:04d})"
    if i >= args.requests:
        return WARMUP_QUESTION
    return local_question(i, args)[0]


def local_question(i: int, args: argparse.Namespace) -> tuple[str, str]:
    """A real model's i-th question of its set, and the word its answer should hold."""
    questions = QUESTION_SETS[args.questions]
    return questions[i % len(questions)]


def check(i: int, out: dict[str, Any], args: argparse.Namespace, outcome: Outcome) -> None:
    """Classify a reply: the expected answer (ok) or not (wrong)."""
    answer = out.get("answer")
    if args.model == "fake":
        tag = f"q-{i:04d}"
        good = (
            answer == expected_answer(tag)
            and out.get("abstained") is False
            and [c.get("number") for c in out.get("citations") or []] == [1]
        )
    else:
        good = isinstance(answer, str) and bool(answer.strip()) and "cost" in out
        outcome.question, keyword = local_question(i, args)
        outcome.answer = str(answer)[:300]
        cost = out.get("cost") or {}
        outcome.llm_calls, outcome.llm_rounds = cost.get("llm_calls"), cost.get("llm_rounds")
        outcome.keyword_hit = isinstance(answer, str) and bool(
            re.search(rf"\b{re.escape(keyword)}\b", answer, re.IGNORECASE)
        )
    outcome.status = "ok" if good else "wrong"
    if not good:
        outcome.error = f"unexpected answer: {str(answer)[:160]!r}"


async def drive(call: Call, args: argparse.Namespace, n: int) -> tuple[list[Outcome], float]:
    """Send `n` requests, at most `args.concurrency` at once, all within the deadline."""
    outcomes = [Outcome(i) for i in range(n)]
    gate = asyncio.Semaphore(args.concurrency)
    t0 = time.monotonic()
    end = t0 + args.deadline

    async def one(i: int) -> None:
        async with gate:
            if time.monotonic() >= end:
                return  # not sent
            o = outcomes[i]
            o.status = "lost"  # until a reply or an error says otherwise
            start_t = time.monotonic()
            try:
                out = await asyncio.wait_for(call(i), args.timeout)
            except TimeoutError:
                o.status, o.error = "failed", f"timeout after {args.timeout:.0f} s"
            except Exception as exc:  # every failure is counted, by kind
                o.status, o.error = "failed", f"{type(exc).__name__}: {str(exc)[:300]}"
            else:
                o.seconds = time.monotonic() - start_t
                check(i, out, args, o)

    tasks = [asyncio.create_task(one(i)) for i in range(n)]
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, end - time.monotonic()))
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return outcomes, time.monotonic() - t0


def langgraph_calls(
    url: str, args: argparse.Namespace, threads: dict[int, str]
) -> tuple[Call, Callable[[], Awaitable[None]]]:
    """A request against the LangGraph server, and the client's closer."""
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=None, timeout=args.timeout)

    async def call(i: int) -> dict[str, Any]:
        payload = {"question": question(i, args)}
        if args.stateless:
            result = await client.runs.wait(None, GRAPH_ID, input=payload)
        else:
            thread = await client.threads.create()
            threads[i] = thread["thread_id"]
            result = await client.runs.wait(thread["thread_id"], GRAPH_ID, input=payload)
        if not isinstance(result, dict):
            raise TypeError(f"runs.wait returned {type(result).__name__}")
        if "__error__" in result:
            raise RuntimeError(f"run failed: {result['__error__']}")
        return result

    return call, client.aclose


def langserve_calls(
    url: str, args: argparse.Namespace
) -> tuple[Call, Callable[[], Awaitable[None]]]:
    """A request against the LangServe app, and the client's closer."""
    client = httpx.AsyncClient(
        base_url=f"{url}/judged-rag",
        timeout=httpx.Timeout(args.timeout),
        limits=httpx.Limits(max_connections=args.concurrency + 2),
    )

    async def call(i: int) -> dict[str, Any]:
        response = await client.post("/invoke", json={"input": {"question": question(i, args)}})
        response.raise_for_status()
        output: dict[str, Any] = response.json()["output"]
        return output

    return call, client.aclose


async def server_side_langgraph(url: str, threads: dict[int, str]) -> dict[str, Any]:
    """The LangGraph server's own record: the status of every run on the load's threads."""
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=None)
    statuses: Counter[str] = Counter()
    runs_per_thread: Counter[int] = Counter()
    try:
        for thread_id in threads.values():
            runs = await client.runs.list(thread_id, limit=10)
            runs_per_thread[len(runs)] += 1
            statuses.update(r["status"] for r in runs)
    finally:
        await client.aclose()
    return {
        "threads": len(threads),
        "run_status": dict(statuses),
        "threads_by_run_count": {str(k): v for k, v in sorted(runs_per_thread.items())},
    }


def summarise(report: Report, outcomes: list[Outcome], wall: float) -> None:
    """Fill the report's counts and latency figures from the outcomes."""
    counts = Counter(o.status for o in outcomes)
    report.succeeded, report.wrong = counts["ok"], counts["wrong"]
    report.failed, report.lost, report.not_sent = (
        counts["failed"],
        counts["lost"],
        counts["not_sent"],
    )
    report.sent = len(outcomes) - report.not_sent
    kinds = Counter((o.error or "").split(":")[0] for o in outcomes if o.error)
    report.errors = dict(kinds)
    report.first_errors = [f"#{o.index}: {o.error}" for o in outcomes if o.error][:5]
    times = sorted(o.seconds * 1000 for o in outcomes if o.status == "ok" and o.seconds)
    if times:
        report.latency_ms = {
            "p50": percentile(times, 50),
            "p95": percentile(times, 95),
            "p99": percentile(times, 99),
            "max": times[-1],
            "mean": sum(times) / len(times),
        }
    report.wall_s = wall
    report.throughput_rps = report.succeeded / wall if wall > 0 else 0.0
    hits = [o.keyword_hit for o in outcomes if o.keyword_hit is not None]
    report.keyword_hits = sum(hits) if hits else None
    if report.model != "fake":  # a handful of requests: each one's figures are worth keeping
        report.per_question = [asdict(o) for o in outcomes]


def run_target(target: str, args: argparse.Namespace, work: Path) -> Report:
    """Start one server, warm it up, load it, read its record, stop it."""
    report = Report(
        target=target,
        model=args.model,
        latency_per_llm_call_s=args.latency if args.model == "fake" else None,
        requests=args.requests,
        concurrency=args.concurrency,
        deadline_s=args.deadline,
        options={
            "stateless": args.stateless if target == "langgraph" else None,
            "n_jobs_per_worker": args.n_jobs_per_worker if target == "langgraph" else None,
            "run_threads": args.run_threads if target == "langserve" else None,
            "timeout_s": args.timeout,
            "preset": args.preset if args.model != "fake" else None,
            "questions": args.questions if args.model != "fake" else None,
        },
    )
    server_cm = langgraph_server if target == "langgraph" else langserve_server
    with server_cm(work, args) as server:
        report.server_start_s = server.start_s
        sampler = GroupSampler(server.proc.pid)
        threads: dict[int, str] = {}

        async def go() -> tuple[list[Outcome], float]:
            if target == "langgraph":
                call, close = langgraph_calls(server.url, args, threads)
            else:
                call, close = langserve_calls(server.url, args)
            try:
                for w in range(args.warmup):  # not counted: imports, first compilation
                    t = time.monotonic()
                    await asyncio.wait_for(call(args.requests + w), args.start_timeout)
                    report.warmup_s.append(round(time.monotonic() - t, 3))
                threads.clear()
                report.rss_mb["start"] = sampler.rss() / 2**20
                cpu0 = sampler.cpu_seconds()
                report.loadavg_before = loadavg()
                with sampler:
                    outcomes, wall = await drive(call, args, args.requests)
                report.loadavg_after = loadavg()
                report.server_cpu_s = sampler.cpu_seconds() - cpu0
                report.rss_mb["end"] = sampler.rss() / 2**20
                if target == "langgraph" and threads:
                    report.server_side = await server_side_langgraph(server.url, threads)
                return outcomes, wall
            finally:
                await close()

        outcomes, wall = asyncio.run(go())
        report.rss_mb["peak"] = max(sampler.peak, 0) / 2**20
        report.rss_mb = {k: round(v, 1) for k, v in report.rss_mb.items()}
        report.server_processes = sampler.max_processes
    summarise(report, outcomes, wall)
    return report


def table(reports: list[Report]) -> str:
    """A short Markdown table of the reports."""
    head = (
        "| target | sent / ok / wrong / failed / lost / not sent | p50 / p95 / p99 / max (ms) "
        "| throughput | server RSS start → peak (MiB) | server CPU | load avg before → after |"
    )
    rows = [head, "|" + "---|" * 7]
    for r in reports:
        lat = r.latency_ms
        latency = (
            " / ".join(f"{lat[k]:.0f}" for k in ("p50", "p95", "p99", "max")) if lat else "n/a"
        )
        rows.append(
            f"| {r.target} | {r.sent} / {r.succeeded} / {r.wrong} / {r.failed} / {r.lost} / "
            f"{r.not_sent} | {latency} | {r.throughput_rps:.2f} req/s "
            f"| {r.rss_mb.get('start', 0):.0f} → {r.rss_mb.get('peak', 0):.0f} "
            f"| {r.server_cpu_s:.1f} s | {r.loadavg_before} → {r.loadavg_after} |"
        )
    return "\n".join(rows)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", choices=["langgraph", "langserve", "both"], default="both")
    p.add_argument("--requests", type=int, default=200, help="questions per target")
    p.add_argument("--concurrency", type=int, default=20, help="requests in flight at once")
    p.add_argument("--deadline", type=float, default=600.0, help="seconds for the whole load")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    p.add_argument("--warmup", type=int, default=2, help="uncounted requests before the load")
    p.add_argument(
        "--model", default="fake", help="`fake` (fixed latency) or local:NAME (the real graph)"
    )
    p.add_argument("--latency", type=float, default=0.2, help="seconds per fake model call")
    p.add_argument("--preset", default="fast", help="preset for a real model")
    p.add_argument(
        "--questions",
        choices=sorted(QUESTION_SETS),
        default="sample",
        help="a real model's questions: sample (mathematics) or readme (the README's four)",
    )
    p.add_argument("--stateless", action="store_true", help="LangGraph: stateless runs")
    p.add_argument("--n-jobs-per-worker", type=int, help="LangGraph: passed to `langgraph dev`")
    p.add_argument("--run-threads", type=int, help="LangServe: passed to `judged-rag serve`")
    p.add_argument("--start-timeout", type=float, default=120.0, help="seconds to start a server")
    p.add_argument("--json", type=Path, help="write the reports here")
    p.add_argument("--keep-logs", action="store_true", help="keep the servers' logs (path printed)")
    args = p.parse_args(argv)
    if args.requests < 1 or args.concurrency < 1 or args.deadline <= 0 or args.timeout <= 0:
        p.error("--requests, --concurrency, --deadline and --timeout must be positive")
    if args.model != "fake" and not args.model.startswith("local:"):
        p.error("--model is `fake` or local:NAME")
    if args.model != "fake" and args.start_timeout == 120.0:
        args.start_timeout = 900.0  # model assembly, index and gate built on first use
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the load test; 0 when every request of every target succeeded."""
    args = parse_args(argv)
    targets = ["langgraph", "langserve"] if args.target == "both" else [args.target]
    work = Path(tempfile.mkdtemp(prefix="judged-rag-load-"))
    reports: list[Report] = []
    try:
        for target in targets:
            print(
                f"{target}: {args.requests} requests at concurrency {args.concurrency}…",
                file=sys.stderr,
                flush=True,
            )
            reports.append(run_target(target, args, work))
    finally:
        if args.keep_logs:
            print(f"server logs in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    payload = {
        "command": " ".join(["python", "scripts/load_test.py", *(argv or sys.argv[1:])]),
        "cpus": psutil.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": sys.version.split()[0],
        "reports": [asdict(r) for r in reports],
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(table(reports))
    for r in reports:
        for line in r.first_errors:
            print(f"{r.target} {line}", file=sys.stderr)
    accounted = all(
        r.succeeded + r.wrong + r.failed + r.lost == r.sent and r.sent + r.not_sent == r.requests
        for r in reports
    )
    clean = all(r.succeeded == r.requests for r in reports)
    return 0 if accounted and clean else 1


if __name__ == "__main__":
    sys.exit(main())
