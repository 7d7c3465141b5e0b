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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from judged_rag.components.llm import CallContext, letter_call, read_short_answer, reading_call
from judged_rag.components.local_model import stop_all_servers
from judged_rag.components.models import load_chat_model
from judged_rag.configuration import Configuration
from judged_rag.nodes.integrate import is_unsure
from judged_rag.prompts import integrate as prompt
from judged_rag_eval.datasets.rdq import HEADLINE_DATA_FILE, QUESTIONS_FILE, SHIPPED_IDS
from judged_rag_eval.items import load_user_items, seeded_order
from judged_rag_eval.metrics import contains_answer, percentiles

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


def short_answer(model: BaseChatModel, question: str) -> dict[str, Any]:
    """The integrate node's check on R_M: the short answer and its tokens' odds."""
    out = reading_call(
        model,
        [
            SystemMessage(prompt.ANSWER_SYSTEM),
            HumanMessage(prompt.ANSWER_USER.format(question=question)),
        ],
        read_short_answer,
        max_tokens=prompt.ANSWER_MAX_TOKENS,
        config={},
        ctx=CallContext("integrate"),
    )
    if out.value is None:
        return {"short_answer": None, "a_m": None, "p_min": None, "p_first": None}
    probabilities = out.value.probabilities
    return {
        "short_answer": out.value.text,
        "a_m": out.value.confidence,
        "p_min": round(min(probabilities), 4) if probabilities else None,
        "p_first": round(probabilities[0], 4) if probabilities else None,
    }


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
    """C_M of every question not scored yet, appending one JSON line each."""
    _score(
        rows_to_score(rdq, held_out), out, lambda row: {"c_m": confidence(model, row["question"])}
    )


def _score(
    rows: list[dict[str, Any]], out: Path, measure: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """Add `measure`'s fields to each row `out` does not hold yet, one JSON line each."""
    done = set()
    if out.is_file():
        done = {json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()}
    todo = [r for r in rows if r["id"] not in done]
    print(f"{len(done)} scored earlier, {len(todo)} to score")
    with out.open("a", encoding="utf-8") as handle:
        for row in todo:
            started = time.monotonic()
            row.update(measure(row))
            row["seconds"] = round(time.monotonic() - started, 3)
            handle.write(json.dumps(row) + "\n")
            handle.flush()


MODEL_KNOWLEDGE = Path(__file__).resolve().parents[1] / "datasets" / "model_knowledge.jsonl"
"""Hand-written questions: general knowledge a small model has, and made-up subjects."""
UNKNOWABLE_GROUPS = ("unknown", "no_evidence", "made_up")


def answer_rows(rdq: Path, held_out: int) -> list[dict[str, Any]]:
    """Every question of the two-signal study, with its gold answers and whether it is knowable.

    RDQ's rows: `natural` (people and places not renamed: a model may know the answer),
    `unknown` (renamed or fictional subjects) and `no_evidence`; the hand-written rows
    (`MODEL_KNOWLEDGE`): general knowledge and made-up subjects of many shapes, those of
    `split` "fit" beside RDQ's calibration rows, those of "check" held out.
    """
    answers = {}
    with (rdq / QUESTIONS_FILE).open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            answers[row["id"]] = row.get("answers") or []
    rows = []
    for row in rows_to_score(rdq, held_out):
        natural = row["transformation"] == "natural" and row["group"] != "no_evidence"
        group = (
            "natural" if natural else "no_evidence" if row["group"] == "no_evidence" else "unknown"
        )
        rows.append(
            {
                **row,
                "group": group,
                "answers": answers.get(row["id"], []),
                "knowable": natural,
            }
        )
    for line in MODEL_KNOWLEDGE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            knowable = row["group"] == "general"
            held = row["split"] == "check"
            rows.append({**row, "knowable": knowable, "held_out": held, "transformation": None})
    return rows


def run_answers(model: BaseChatModel, rdq: Path, out: Path, held_out: int) -> None:
    """C_M and the short answer of every question not scored yet, one JSON line each."""

    def measure(row: dict[str, Any]) -> dict[str, Any]:
        found = {"c_m": confidence(model, row["question"]), **short_answer(model, row["question"])}
        text = found["short_answer"] or ""
        return {**found, "right": bool(row["answers"]) and contains_answer(text, row["answers"])}

    _score(answer_rows(rdq, held_out), out, measure)


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


T_M_GRID = (0.5, 0.6, 0.65, 0.68, 0.7, 0.705)
T_A_GRID = (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


def passes(row: dict[str, Any], t_m: float, t_a: float) -> bool:
    """Whether R_M would stand at (T_M, T_A).

    C_M at T_M or more, and a short answer (not UNKNOWN) whose confidence reaches T_A
    (T_A 0: the short answer is not asked).
    """
    if row["c_m"] is None or row["c_m"] < t_m:
        return False
    return t_a <= 0 or not is_unsure(row.get("short_answer"), row.get("a_m"), t_a)


def report_answers(out: Path, ceiling: float) -> None:
    """Known and unknowable pass rates per (T_M, T_A), fitted on calibration rows only.

    Known: knowable rows the short answer gets right. The chosen pair keeps the most
    known rows among those letting at most `ceiling` of each calibration part's
    unknowable rows through (RDQ's, the hand-written ones: a pooled share would hide one
    shape behind the other's numbers); then the same pair, and today's default, on the
    held-out parts.
    """
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    rdq = ("natural", "unknown", "no_evidence")
    parts = {
        "calibration (RDQ)": [r for r in rows if not r["held_out"] and r["group"] in rdq],
        "calibration (hand-written)": [
            r for r in rows if not r["held_out"] and r["group"] not in rdq
        ],
        "held out (RDQ headline rows)": [r for r in rows if r["held_out"] and r["group"] in rdq],
        "held out (hand-written)": [r for r in rows if r["held_out"] and r["group"] not in rdq],
    }

    def rates(part: list[dict[str, Any]], t_m: float, t_a: float) -> tuple[int, int, int, int]:
        known = [r for r in part if r["knowable"] and r["right"]]
        unknowable = [r for r in part if r["group"] in UNKNOWABLE_GROUPS]
        return (
            sum(passes(r, t_m, t_a) for r in known),
            len(known),
            sum(passes(r, t_m, t_a) for r in unknowable),
            len(unknowable),
        )

    calibration = [*parts["calibration (RDQ)"], *parts["calibration (hand-written)"]]
    shapes = [parts["calibration (RDQ)"], parts["calibration (hand-written)"]]
    best: tuple[float, float, float] | None = None
    print("calibration grid: known passing / unknowable passing")
    for t_m in T_M_GRID:
        cells = []
        for t_a in T_A_GRID:
            k, nk, u, nu = rates(calibration, t_m, t_a)
            cells.append(f"{k}/{nk} {u}/{nu}")
            # Each shape of question nobody can answer held under the ceiling on its own.
            under = all(
                s[3] == 0 or s[2] / s[3] <= ceiling for s in (rates(p, t_m, t_a) for p in shapes)
            )
            if nk and under and (best is None or k / nk > best[0]):
                best = (k / nk, t_m, t_a)
        print(
            f"T_M {t_m:<6}"
            + "  ".join(f"T_A {t_a}: {c}" for t_a, c in zip(T_A_GRID, cells, strict=True))
        )
    if best is None:
        print(f"no pair lets at most {ceiling:.0%} of the unknowable calibration rows through")
        return
    _, t_m, t_a = best
    print(f"\nchosen on calibration (unknowable <= {ceiling:.0%}): T_M {t_m}, T_A {t_a}")
    for name, part in parts.items():
        for label, (a, b) in (
            ("C_M alone at 0.705", (0.705, 0.0)),
            ("chosen pair", (t_m, t_a)),
            ("T_M 0.705, T_A 0.5", (0.705, 0.5)),
        ):
            k, nk, u, nu = rates(part, a, b)
            known = f"known {k}/{nk} ({k / max(nk, 1):.1%})"
            print(f"{name:<30} {label:<20} {known}, unknowable {u}/{nu} ({u / max(nu, 1):.1%})")


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
    parser.add_argument("command", choices=("probe", "run", "report", "answers", "answers-report"))
    parser.add_argument("--model", default=Configuration().model)
    parser.add_argument("--rdq", type=Path, help="directory of `judged-rag eval-data build`")
    parser.add_argument("--out", type=Path, help="JSON-lines file of the scores")
    parser.add_argument("--held-out", type=int, default=150)
    parser.add_argument("--ceiling", type=float, default=0.02)
    args = parser.parse_args()
    if args.command == "report":
        report(args.out)
        return
    if args.command == "answers-report":
        report_answers(args.out, args.ceiling)
        return
    if args.command in ("run", "answers") and (args.rdq is None or args.out is None):
        parser.error(f"{args.command} needs --rdq and --out")
    model = load_chat_model(args.model, max_tokens=Configuration().max_step_tokens)
    try:
        if args.command == "probe":
            probe(model)
        elif args.command == "answers":
            run_answers(model, args.rdq, args.out, args.held_out)
        else:
            run(model, args.rdq, args.out, args.held_out)
    finally:
        stop_all_servers()


if __name__ == "__main__":
    main()
