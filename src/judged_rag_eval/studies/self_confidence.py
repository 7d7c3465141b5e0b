"""Measure SRA's C_M, the model's confidence in its own knowledge, and calibrate T_M.

The integrate node asks C_M from the question alone (one letter, A = "I know it") and
reads P(A) from the first token's log-probabilities; an answer from the model alone
(R_M), or one mixing in its own knowledge (R_C), needs C_M >= t_m. This script asks
exactly that, through the same prompt and call.

    python -m judged_rag_eval.studies.self_confidence probe [--model M]
        8 fixed questions: 4 a small model knows, 4 nobody can answer.
    python -m judged_rag_eval.studies.self_confidence run --rdq DIR --out FILE [--model M]
        C_M for the questions of a retrieval-dependent set (`judged-rag eval-data build
        --out DIR`), one JSON line each, resumable. Groups: `known` (natural FanOutQA
        rows the model answered right alone, from the shipped selection), `unknown`
        (rows it answered wrong alone, renamed people included) and `no_evidence` (no
        document holds an answer). Each row is marked `held_out` when it is among the
        first `--held-out` questions per variant of the headline run's order (seed 0),
        the questions the end-to-end evaluation uses, so a cut-off is chosen without them.
    python -m judged_rag_eval.studies.self_confidence report --out FILE
        Percentiles of C_M per group, and the share passing each cut-off, on the
        calibration rows and on the held-out ones.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.llm import CallContext, letter_call
from judged_rag.components.local_model import stop_all_servers
from judged_rag.components.models import load_chat_model
from judged_rag.configuration import Configuration
from judged_rag.prompts import integrate as prompt
from judged_rag_eval.datasets.rdq import HEADLINE_DATA_FILE, QUESTIONS_FILE, SHIPPED_IDS
from judged_rag_eval.items import load_user_items, seeded_order
from judged_rag_eval.metrics import percentiles

KNOWN = (
    "Who painted the Mona Lisa?",
    "In which country is the Great Wall?",
    "What is the capital of France?",
    "Which planet is the largest in the Solar System?",
)
UNKNOWABLE = (
    "Who proved the Zorvath extension of Fermat's Last Theorem?",
    "In what year did Vosk Tarren die?",
    "When did Neil Armstrong walk on Mars?",
    "What is the population of the city of Qelmarin?",
)
CUTOFFS = (0.5, 0.6, 0.65, 0.68, 0.7, 0.71, 0.72, 0.75)


def confidence(model: BaseChatModel, question: str) -> float | None:
    """P(A) of the integrate prompt for `question` (None: no readable letter)."""
    user = prompt.USER.format(question=question, options="")
    out = letter_call(
        model,
        [SystemMessage(prompt.SYSTEM), HumanMessage(user)],
        list(prompt.LETTERS),
        config={},
        ctx=CallContext("integrate"),
    )
    choice = out.value
    if choice is None or choice.probabilities is None:
        return None
    return float(choice.probabilities["A"])


def probe(model: BaseChatModel) -> None:
    """Print P(A) for the fixed questions."""
    for group, questions in (("known", KNOWN), ("unknowable", UNKNOWABLE)):
        for question in questions:
            started = time.monotonic()
            p = confidence(model, question)
            shown = "unreadable" if p is None else f"{p:.3f}"
            print(f"{group:<10}  P(A) {shown:>10}  {time.monotonic() - started:4.1f}s  {question}")


def rows_to_score(rdq: Path, held_out: int) -> list[dict[str, Any]]:
    """The questions of the set with their group and whether the headline uses them."""
    wrong_alone = set(json.loads(SHIPPED_IDS.read_text(encoding="utf-8"))["ids"])
    headline = load_user_items(rdq / HEADLINE_DATA_FILE)
    used: set[str] = set()
    for variant in ("open", "unanswerable"):
        group = [i for i in headline if i.variant == variant]
        used.update(i.id for i in seeded_order(group, 0)[:held_out])
    rows = []
    with (rdq / QUESTIONS_FILE).open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["variant"] == "mc":
                continue
            if row.get("no_evidence") or row["variant"] == "unanswerable":
                group_name = "no_evidence"
            elif row["id"] in wrong_alone:
                group_name = "unknown"
            else:
                group_name = "known"
            rows.append(
                {
                    "id": row["id"],
                    "question": row["question"],
                    "group": group_name,
                    "transformation": row.get("transformation"),
                    "held_out": row["id"] in used,
                }
            )
    return rows


def run(model: BaseChatModel, rdq: Path, out: Path, held_out: int) -> None:
    """Score every question not scored yet, appending one JSON line each."""
    done = set()
    if out.is_file():
        done = {json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()}
    todo = [r for r in rows_to_score(rdq, held_out) if r["id"] not in done]
    print(f"{len(done)} scored earlier, {len(todo)} to score")
    with out.open("a", encoding="utf-8") as handle:
        for row in todo:
            started = time.monotonic()
            row["c_m"] = confidence(model, row["question"])
            row["seconds"] = round(time.monotonic() - started, 3)
            handle.write(json.dumps(row) + "\n")
            handle.flush()


def report(out: Path) -> None:
    """Percentiles per group and pass rates per cut-off, calibration vs held out."""
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    unreadable = sum(1 for r in rows if r["c_m"] is None)
    rows = [r for r in rows if r["c_m"] is not None]
    calibration = [r for r in rows if not r["held_out"]]
    known = [float(r["c_m"]) for r in calibration if r["group"] == "known"]
    unknown = [float(r["c_m"]) for r in calibration if r["group"] != "known"]
    if known and unknown:
        cutoff, j = best_cutoff(known, unknown)
        print(f"best cut-off on the calibration rows (Youden's J): {cutoff} (J = {j:.3f})")
    print(f"unreadable replies: {unreadable}")
    for split, keep in (("calibration", False), ("held out", True)):
        part = [r for r in rows if r["held_out"] is keep]
        print(f"\n{split}: {len(part)} questions")
        header = "group        n    p5     p50    p95   " + "".join(f" >={c:<5}" for c in CUTOFFS)
        print(header)
        for group in ("known", "unknown", "no_evidence"):
            scores = [float(r["c_m"]) for r in part if r["group"] == group]
            if not scores:
                continue
            pct = percentiles(scores)
            passing = "".join(f" {sum(s >= c for s in scores) / len(scores):6.1%}" for c in CUTOFFS)
            print(
                f"{group:<11} {len(scores):3d}  {pct['p5']:.3f}  {pct['p50']:.3f}  "
                f"{pct['p95']:.3f} {passing}"
            )


def best_cutoff(known: list[float], unknown: list[float]) -> tuple[float, float]:
    """The cut-off (0.50 to 0.90, step 0.005) maximising Youden's J and its J.

    J = share of `known` at or above it minus share of `unknown` at or above it; ties go
    to the higher cut-off (fewer answers from a model that does not know).
    """
    best = (0.5, -1.0)
    for step in range(81):
        cutoff = round(0.5 + step * 0.005, 3)
        j = sum(k >= cutoff for k in known) / len(known) - sum(u >= cutoff for u in unknown) / len(
            unknown
        )
        if j >= best[1]:
            best = (cutoff, j)
    return best


def main() -> None:
    """Run the chosen command."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("command", choices=("probe", "run", "report"))
    parser.add_argument("--model", default=Configuration().model)
    parser.add_argument("--rdq", type=Path, help="directory of `judged-rag eval-data build`")
    parser.add_argument("--out", type=Path, help="JSON-lines file of the scores")
    parser.add_argument("--held-out", type=int, default=150)
    args = parser.parse_args()
    if args.command == "report":
        report(args.out)
        return
    if args.command == "run" and (args.rdq is None or args.out is None):
        parser.error("run needs --rdq and --out")
    model = load_chat_model(args.model, max_tokens=Configuration().max_step_tokens)
    try:
        if args.command == "probe":
            probe(model)
        else:
            run(model, args.rdq, args.out, args.held_out)
    finally:
        stop_all_servers()


if __name__ == "__main__":
    main()
