"""Calibrate the extracting judge's threshold from an index's own chunks, and check it.

The extracting judge (`judge=extract`) calls a chunk Highly Relevant when its score,
(1 - w) * p + w * cosine with p = 1 - P(NONE) and w = 0.5, reaches 0.75: the best F1 on
the FanOutQA judge suite, in-sample. This script measures a threshold chosen per index
without labelled questions: sample chunks, have the model write a pseudo-query for each
with the index builder's own pseudo-query prompt and call (the gate's, CAG), judge
(pseudo-query, its own chunk) as a positive and (pseudo-query, the best-ranked retrieved
chunk of another document) as a hard negative, and pick thresholds from those scores;
then score them on a judge-suite run of real questions over the same corpus. One JSON
line per row, resumable (a rerun skips rows already written), deterministic by --seed:

    python -m judged_rag_eval.studies.judge_calibration pairs --index DIR --out OUT \
        [--n 60] [--seed 0] [--k 10] [--model local:qwen2.5-coder-1.5b]
    python -m judged_rag_eval.studies.judge_calibration run --out OUT \
        [--model local:qwen2.5-coder-1.5b]
    python -m judged_rag_eval.studies.judge_calibration report --out OUT \
        --suite-records RUN/results.jsonl [--system judge_extract] [--data DATA --index DIR]

RUN is a judge-suite run over the same index, e.g. (the suite needs `evidence` on every
row, so RDQ's open rows only):

    judged-rag eval --suite judge --data rdq-open.jsonl --index DIR \
        --systems judge_extract --model local:qwen2.5-coder-1.5b --limit 40 --set top_k=5 --out RUN

`pairs` samples n chunks as the index builder samples the gate's (`random.Random(seed)`
over every chunk row, sorted; seed 0 is the gate's own seed), writes each pseudo-query
with the builder's `ask_pseudo_queries` (its prompt, one question per chunk), retrieves
for it with the project's hybrid retriever (default fusion, top k), and writes
OUT/pairs.jsonl: the pseudo-query, the positive chunk (its cosine to the pseudo-query as
the retriever computes a result's, and its rank in the retrieved list) and the negative
(the best-ranked chunk whose source document differs, with its retrieved cosine). `run`
judges both sides of every pair with the judge suite's `judge_extract` system through
the graph's judge node, as `judge_document` in `judged_rag_eval.suites.judge` does (the
extracting judge, subject_check on), and appends OUT/judgments.jsonl. `report` picks
thresholds from the calibration scores — (a) best F1, (b) the 5th and 10th percentiles
of the positives' judge_score (CAG's cut; (b') the same over the positives the judge
quoted, the only ones a threshold can keep), (c) Youden's J — and prints precision /
recall / F1 for answer-bearing chunks of the suite run at each of them, at the fixed
0.75 and at the best threshold in hindsight, with ROC AUC; a Markdown table on stdout
and in OUT/report.md. Highly Relevant at t is the graph's label: a quote found in the
chunk and judge_score >= t. With --data and --index it scores the suite again with
answer-bearing read by `metrics.states_answer`, as the suite labels it since that
function exists: records written before labelled by normalised containment alone, which
misses a year inside a range such as "(1928–2025)".
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

PAIRS = "pairs.jsonl"
JUDGMENTS = "judgments.jsonl"
META = "meta.json"
REPORT = "report.md"
SYSTEM = "judge_extract"
FIXED = 0.75
"""The extracting judge's default threshold (`judge_threshold` unset)."""
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"
BATCH = 4
"""Pseudo-queries asked per call of the builder's function (its own concurrency)."""
SIDES = ("pos", "neg")


# --------------------------------------------------------------------------- pairs


def make_pairs(index: Path, out: Path, n: int, seed: int, k: int, model_spec: str) -> None:
    """Sample chunks, write a pseudo-query each, retrieve a hard negative: OUT/pairs.jsonl."""
    from judged_rag.components import Components
    from judged_rag.components.models import load_chat_model
    from judged_rag.configuration import Configuration
    from judged_rag.core.retrieval import search
    from judged_rag.indexing.builder import ask_pseudo_queries
    from judged_rag.indexing.chunking import normalize
    from judged_rag.indexing.retriever import HybridRetriever, chunk_document

    index = index.expanduser().resolve()
    meta = {"index": str(index), "n": n, "seed": seed, "k": k, "pseudo_query_model": model_spec}
    _check_meta(out, meta)
    cfg = Configuration(index_dir=str(index), top_k=k)
    retriever = Components().knowledge_retriever(cfg)
    if not isinstance(retriever, HybridRetriever):
        raise SystemExit(f"{index} is not a file index (got {type(retriever).__name__})")
    store = retriever.store
    rows = sorted(random.Random(seed).sample(range(len(store.chunks)), min(n, len(store.chunks))))
    path = out / PAIRS
    done = {r["chunk"] for r in _read(path)}
    todo = [row for row in rows if store.chunks[row].id not in done]
    print(f"{len(rows)} chunks sampled from {len(store.chunks)}, {len(todo)} to do", flush=True)
    if not todo:
        return
    model = load_chat_model(model_spec)
    with path.open("a", encoding="utf-8") as handle:
        for begin in range(0, len(todo), BATCH):
            part = todo[begin : begin + BATCH]
            chunks = [store.chunks[row] for row in part]
            started = time.perf_counter()
            asked, _ = ask_pseudo_queries(model, chunks, False)
            seconds = (time.perf_counter() - started) / len(part)
            for row, chunk, questions in zip(part, chunks, asked, strict=True):
                record: dict[str, Any] = {
                    "chunk": chunk.id,
                    "row": row,
                    "question": questions[0] if questions else None,
                    "pseudo_query_s": round(seconds, 2),
                    "pos": None,
                    "neg": None,
                }
                if record["question"]:
                    query = record["question"]
                    found = search(retriever, query, k=k, fusion=cfg.fusion, dense_weight=0.5)
                    # The positive's cosine as the retriever computes a result's similarity.
                    vector = normalize(retriever.embeddings.embed_query(query))[0]
                    cosine = float(store.vectors([row])[0] @ vector)
                    ranks = [d.id for d in found]
                    record["pos"] = _side(
                        chunk_document(
                            chunk, store.reliability, similarity=min(1.0, max(0.0, cosine))
                        ),
                        ranks.index(chunk.id) + 1 if chunk.id in ranks else None,
                    )
                    other = next(
                        (
                            (rank, d)
                            for rank, d in enumerate(found, start=1)
                            if (d.metadata or {}).get("source") != chunk.source
                        ),
                        None,
                    )
                    if other is not None:
                        record["neg"] = _side(other[1], other[0])
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                handle.flush()
    pairs = _read(path)
    usable = [p for p in pairs if p["pos"] and p["neg"]]
    print(f"{len(pairs)} pairs written, {len(usable)} with a pseudo-query and a negative")


def _side(doc: Any, rank: int | None) -> dict[str, Any]:
    meta = doc.metadata or {}
    return {
        "id": str(doc.id or meta.get("chunk_id")),
        "title": str(meta.get("title", "")),
        "source": str(meta.get("source", "")),
        "content": doc.page_content,
        "similarity": round(float(meta["similarity"]), 6),
        "rank": rank,
        "reliability": meta.get("reliability"),
    }


def _check_meta(out: Path, meta: dict[str, Any]) -> None:
    """Refuse to mix pairs drawn with other settings into one OUT."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / META
    if path.is_file():
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if earlier != meta:
            raise SystemExit(f"{out} holds pairs drawn with {earlier}, not {meta}")
    else:
        path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- run


def run(out: Path, model_spec: str) -> None:
    """Judge both sides of every pair with the suite's extracting judge: OUT/judgments.jsonl."""
    from langchain_core.documents import Document

    from judged_rag.components import Components
    from judged_rag.nodes.judge import judge
    from judged_rag.state import JudgeTask
    from judged_rag_eval.baselines import documents_to_docs
    from judged_rag_eval.context import EvalOptions, RunContext
    from judged_rag_eval.suites.judge import llm_usage, verdict_of
    from judged_rag_eval.systems import configure

    meta = json.loads((out / META).read_text(encoding="utf-8"))
    settings = {"model": model_spec, "index_dir": meta["index"]}
    system = configure(SYSTEM, settings)
    cfg = system.config
    options = EvalOptions(suite="judge", out_dir=out, settings=settings, progress=False)
    ctx = RunContext(options, Components())
    kind = ctx.components.judge_kind(cfg)
    if kind != "extract" or not cfg.subject_check:
        raise SystemExit(f"expected the extracting judge with subject_check, got {kind}")
    path = out / JUDGMENTS
    earlier = _read(path)
    if any(r["model"] != model_spec for r in earlier):
        raise SystemExit(f"{path} holds judgments by another model")
    done = {(r["chunk"], r["side"]) for r in earlier}
    pairs = [p for p in _read(out / PAIRS) if p["pos"] and p["neg"]]
    print(f"{len(pairs)} pairs, {len(done)} judgments done", flush=True)
    with path.open("a", encoding="utf-8") as handle:
        for pair in pairs:
            for side in SIDES:
                if (pair["chunk"], side) in done:
                    continue
                part = pair[side]
                document = Document(
                    id=part["id"],
                    page_content=part["content"],
                    metadata={
                        "chunk_id": part["id"],
                        "source": part["source"],
                        "title": part["title"],
                        "similarity": part["similarity"],
                        "reliability": part["reliability"],
                    },
                )
                doc = documents_to_docs([document], cfg)[0]
                started = time.perf_counter()
                # What `judge_document` does for a non-binary system, keeping the reason too.
                task = JudgeTask(
                    question=pair["question"], query_parts=[], document=doc, iteration=0
                )
                judged = judge(task, {}, None, deps=ctx.deps(cfg))
                judgment = judged["judgments"][0]
                calls, tokens, _ = llm_usage(judged["cost"])
                row = {
                    "chunk": pair["chunk"],
                    "side": side,
                    "doc": part["id"],
                    "model": model_spec,
                    **verdict_of(judgment, doc),
                    "reason": judgment.get("reason"),
                    "evidence": judgment.get("evidence"),
                    "llm_calls": calls,
                    "tokens": tokens,
                    "s": round(time.perf_counter() - started, 3),
                }
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                handle.flush()
    print(f"{len(_read(path))} judgments in {path}")


# --------------------------------------------------------------------------- report


class Scored(NamedTuple):
    """One judged chunk: its judge_score, whether the judge quoted it, and its truth."""

    score: float
    quoted: bool
    """A quote found in the chunk, about the question's subject: what the label needs
    besides the score (a NONE, an unfound or off-subject quote scores p = 0)."""
    positive: bool


def highly(x: Scored, t: float) -> bool:
    """The extracting judge's label at threshold t: a quote in the chunk and score >= t.

    For t > 0.5 the same as score >= t: without a quote p = 0 and the score is at most
    0.5 x cosine.
    """
    return x.quoted and x.score >= t


def quoted(verdict: dict[str, Any]) -> bool:
    """Whether a recorded verdict had a quote found in the chunk, about the subject.

    The label says so when Highly Relevant; below the threshold such a quote is Somewhat
    Relevant with p > 0 (an unfound quote is Somewhat Relevant with p = 0, a NONE or an
    off-subject quote Not Relevant).
    """
    return verdict["label"] == "highly_relevant" or (
        verdict["label"] == "somewhat_relevant" and (verdict["p_highly"] or 0.0) > 0
    )


def at(scored: Sequence[Scored], t: float) -> Any:
    """Precision / recall / F1 of the label at threshold t."""
    from judged_rag_eval.metrics import precision_recall

    return precision_recall((highly(x, t), x.positive) for x in scored)


def auc(scored: Sequence[Scored]) -> float | None:
    """ROC AUC of judge_score (threshold-free)."""
    from judged_rag_eval.metrics import roc_auc

    return roc_auc((x.score, x.positive) for x in scored)


def best_f1(scored: Sequence[Scored]) -> tuple[float, float]:
    """The best F1 over the scores as thresholds, and its t (the highest on ties)."""
    best = (0.0, 0.0)
    for t in sorted({x.score for x in scored}):
        best = max(best, (at(scored, t).f1 or 0.0, t))
    return best


def youden(scored: Sequence[Scored]) -> tuple[float, float]:
    """The largest TPR - FPR over the scores as thresholds, and its t (the highest on ties)."""
    positives = sum(x.positive for x in scored)
    negatives = len(scored) - positives
    best = (-1.0, 0.0)
    for t in sorted({x.score for x in scored}):
        tpr = sum(highly(x, t) and x.positive for x in scored) / positives
        fpr = sum(highly(x, t) and not x.positive for x in scored) / negatives
        best = max(best, (tpr - fpr, t))
    return best


def calibration_scores(out: Path) -> tuple[list[Scored], list[dict[str, Any]]]:
    """Both sides of every pair judged on both sides (positive: its own chunk), and the pairs."""
    judged = {(r["chunk"], r["side"]): r for r in _read(out / JUDGMENTS)}
    pairs = [
        p
        for p in _read(out / PAIRS)
        if p["pos"] and p["neg"] and all((p["chunk"], s) in judged for s in SIDES)
    ]
    scored = []
    for p in pairs:
        for side in SIDES:
            verdict = p[side]["judged"] = judged[(p["chunk"], side)]
            scored.append(
                Scored(float(verdict["judge_score"] or 0.0), quoted(verdict), side == "pos")
            )
    return scored, pairs


def suite_records(path: Path, system: str) -> list[dict[str, Any]]:
    """The judge suite's finished records of `system` (a later line replaces an earlier one)."""
    records: dict[str, dict[str, Any]] = {}
    for record in _read(path):
        if record.get("system") == system and not record.get("error"):
            records[record["key"]] = record
    return list(records.values())


def suite_scores(records: Iterable[dict[str, Any]]) -> list[Scored]:
    """Every chunk the suite judged, answer-bearing as the suite labelled it."""
    return [
        Scored(float(d["judge_score"] or 0.0), quoted(d), bool(d["answer_bearing"]))
        for r in records
        for d in r["docs"]
    ]


def restated_scores(
    records: Iterable[dict[str, Any]], data: Path, index: Path
) -> tuple[list[Scored], int]:
    """Every judged chunk, answer-bearing read again with `metrics.states_answer`.

    Records written before the suite used `states_answer` labelled with normalised
    containment alone, which deletes the dash of a range: "(1928–2025)" becomes the one
    token "19282025", where the gold "1928" is not found. Here a chunk is answer-bearing
    when it is on the evidence page and states a gold answer as the suite now reads it.
    Also returns how many chunks changed label.
    """
    from judged_rag.indexing.store import IndexStore
    from judged_rag_eval.items import load_user_items
    from judged_rag_eval.metrics import states_answer

    answers = {item.id: item.answers for item in load_user_items(data)}
    texts = {c.id: c.text for c in IndexStore.load(index).chunks}
    scored: list[Scored] = []
    changed = 0
    for record in records:
        golds = answers[record["item_id"]]
        for d in record["docs"]:
            bearing = bool(d["evidence"]) and any(states_answer(texts[d["id"]], a) for a in golds)
            changed += bearing != bool(d["answer_bearing"])
            scored.append(Scored(float(d["judge_score"] or 0.0), quoted(d), bearing))
    return scored, changed


def report(
    out: Path,
    suite_path: Path,
    system: str,
    data: Path | None = None,
    index: Path | None = None,
) -> None:
    """Thresholds from the calibration pairs, scored on the judge suite's records."""
    calib, pairs = calibration_scores(out)
    if not pairs:
        raise SystemExit(f"no judged pairs in {out}")
    records = suite_records(suite_path, system)
    if not records:
        raise SystemExit(f"no {system} records in {suite_path}")
    meta = json.loads((out / META).read_text(encoding="utf-8"))
    positives = [x.score for x in calib if x.positive]
    quoted_positives = [x.score for x in calib if x.positive and x.quoted]
    f1_cal, t_f1 = best_f1(calib)
    j, t_j = youden(calib)
    thresholds: list[tuple[str, float]] = [
        ("fixed (default)", FIXED),
        ("(a) best F1 on calibration pairs", t_f1),
        ("(b) 5th percentile of positives", float(np.percentile(positives, 5))),
        ("(b) 10th percentile of positives", float(np.percentile(positives, 10))),
        ("(c) Youden's J on calibration pairs", t_j),
    ]
    if quoted_positives:  # the unquoted ones cannot be Highly Relevant at any threshold
        thresholds[4:4] = [
            (
                f"(b') {q}th percentile of quoted positives",
                float(np.percentile(quoted_positives, q)),
            )
            for q in (5, 10)
        ]
    suite = suite_scores(records)
    lines = [
        f"# Judge threshold calibrated on the index's own pseudo-query pairs: {out}",
        "",
        f"Calibration: {meta['n']} chunks sampled (seed {meta['seed']}) from {meta['index']}, "
        f"{len(pairs)} pairs with a pseudo-query and a negative, judged on both sides by "
        f"`{system}`. Suite: {suite_path}, {len(records)} questions, {len(suite)} chunks.",
        "Highly Relevant at t = a quote found in the chunk (about the question's subject) "
        "and judge_score >= t, as the graph labels; above 0.5 that is judge_score >= t.",
        "",
        "## Calibration pairs",
        "",
        *_calibration_table(pairs, calib),
        "",
        f"ROC AUC positive vs negative on the calibration pairs: {_fmt(auc(calib))}; "
        f"best F1 there {f1_cal:.3f} at {t_f1:.4f}; Youden's J {j:.3f} at {t_j:.4f}.",
        "",
    ]
    lines += _suite_section("the suite's own label", suite, thresholds)
    if data is not None and index is not None:
        restated, changed = restated_scores(records, data, index)
        lines += [
            "",
            f"Answer-bearing read again with `states_answer` ({data}, {index}): a year inside "
            f'a range such as "(1928–2025)" counts; {changed} chunks change label.',
            "",
        ]
        lines += _suite_section("`states_answer`", restated, thresholds)
    text = "\n".join(lines) + "\n"
    print(text)
    (out / REPORT).write_text(text, encoding="utf-8")


def _suite_section(
    label: str, suite: Sequence[Scored], thresholds: Sequence[tuple[str, float]]
) -> list[str]:
    """P / R / F1 at each threshold and at the hindsight best, ROC AUC, and a sweep."""
    f1_hind, t_hind = best_f1(suite)
    bearing = sum(x.positive for x in suite)
    lines = [
        f"## On the judge suite: answer-bearing by {label} ({bearing} of {len(suite)} chunks)",
        "",
        "| threshold | t | Highly | TP / FP / FN | precision | recall | F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, t in [*thresholds, ("best F1 in hindsight (on the suite)", t_hind)]:
        pr = at(suite, t)
        lines.append(
            f"| {name} | {t:.4f} | {pr.tp + pr.fp} | {pr.tp} / {pr.fp} / {pr.fn} | "
            f"{_fmt(pr.precision)} | {_fmt(pr.recall)} | {_fmt(pr.f1)} |"
        )
    lines += [
        "",
        f"ROC AUC of judge_score for answer-bearing chunks: {_fmt(auc(suite))} "
        f"(threshold-free); best F1 in hindsight {f1_hind:.3f} at {t_hind:.4f}.",
        "",
        *_sweep(suite),
    ]
    return lines


def _calibration_table(pairs: list[dict[str, Any]], calib: list[Scored]) -> list[str]:
    from judged_rag.core.quotes import named, subject_coverage

    rows = [
        "| side | n | judge_score p5 / p10 / p50 / p90 | Highly at 0.75 | quoted (p > 0) | "
        "not naming the subject | cosine median | in the top k |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for side, positive in (("positive (own chunk)", True), ("negative (other document)", False)):
        key = "pos" if positive else "neg"
        mine = [x for x in calib if x.positive is positive]
        off = sum(
            not named(subject_coverage(p["question"], p[key]["title"], p[key]["content"]))
            for p in pairs
        )
        cosine = float(np.median([p[key]["similarity"] for p in pairs]))
        ranked = sum(p[key]["rank"] is not None for p in pairs)
        q = np.percentile([x.score for x in mine], [5, 10, 50, 90])
        rows.append(
            f"| {side} | {len(mine)} | {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f} / {q[3]:.3f} | "
            f"{sum(highly(x, FIXED) for x in mine)} | {sum(x.quoted for x in mine)} | {off} | "
            f"{cosine:.3f} | {ranked} |"
        )
    return rows


def _sweep(scored: Sequence[Scored]) -> list[str]:
    steps = [round(0.4 + 0.05 * i, 2) for i in range(11)]
    sweep = [at(scored, t) for t in steps]
    return [
        "| t | " + " | ".join(f"{t:.2f}" for t in steps) + " |",
        "|---|" + "---|" * len(steps),
        "| P / R | "
        + " | ".join(f"{_fmt(r.precision, 2)} / {_fmt(r.recall, 2)}" for r in sweep)
        + " |",
        "| F1 | " + " | ".join(_fmt(r.f1) for r in sweep) + " |",
    ]


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in _lines(path) if line.strip()]


def _lines(path: Path) -> Iterable[str]:
    with path.open(encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    # A torn last line (an interrupted write) is skipped; the rerun writes it again.
    if lines and lines[-1].strip():
        try:
            json.loads(lines[-1])
        except json.JSONDecodeError:
            lines = lines[:-1]
    return lines


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("pairs", help="sample chunks, write pseudo-queries, retrieve negatives")
    make.add_argument("--index", type=Path, required=True)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--n", type=int, default=60)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--k", type=int, default=10)
    make.add_argument("--model", default=DEFAULT_MODEL, help="writes the pseudo-queries")
    judge = sub.add_parser("run", help="judge both sides of every pair")
    judge.add_argument("--out", type=Path, required=True)
    judge.add_argument("--model", default=DEFAULT_MODEL)
    show = sub.add_parser("report", help="thresholds, scored on a judge-suite run")
    show.add_argument("--out", type=Path, required=True)
    show.add_argument("--suite-records", type=Path, required=True)
    show.add_argument("--system", default=SYSTEM)
    show.add_argument("--data", type=Path, help="the suite's data: relabel by states_answer")
    show.add_argument("--index", type=Path, help="the suite's index (chunk texts, with --data)")
    args = parser.parse_args()
    if args.command == "pairs":
        make_pairs(args.index, args.out, args.n, args.seed, args.k, args.model)
    elif args.command == "run":
        run(args.out, args.model)
    else:
        report(args.out, args.suite_records, args.system, args.data, args.index)


if __name__ == "__main__":
    main()
