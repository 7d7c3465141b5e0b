"""Answered questions: what a graph run's answer records, and the measures over answers.

The end-to-end, noise and injection suites run a system's graph on a question and record
its answer with `answer_record`: right or wrong (containment, the chosen option, or the
conclusion of a comparison), abstained, leaked, cited, its cost and the judge's
confidence. Over such records they share `trust_summary` (answerable and no-evidence
rates, trust, citation precision, risk-coverage), `run_costs`, `paired_tests` (exact
McNemar tests of the `compared_pairs`) and the report's trust table (`trust_md`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from judged_rag.core.trace import INCIDENTS
from judged_rag_eval.items import EvalItem
from judged_rag_eval.metrics import (
    choice_conclusion_correct,
    choice_correct,
    contains_answer,
    cost_summary,
    exact_match,
    is_abstention,
    mcnemar,
    mentions,
    normalize_title,
    rate,
    risk_coverage,
    strip_citations,
    trust,
)
from judged_rag_eval.suite import Summary
from judged_rag_eval.tables import num, pct, table


def answer_record(item: EvalItem, out: Mapping[str, Any], wall: float) -> dict[str, Any]:
    """What the end-to-end suite records of one graph run."""
    answer = str(out.get("answer") or "")
    trace = out.get("trace") or []
    judged_by = Counter(
        str(e["detail"].get("by"))
        for e in trace
        if (e["node"], e["event"]) in (("judge", "judged"), ("grade", "graded"))
    )
    gate_detail: dict[str, Any] = next(
        (e["detail"] for e in trace if (e["node"], e["event"]) == ("gate", "route")), {}
    )
    citations = out.get("citations") or []
    titles = [c["title"] for c in citations]
    evidence = {normalize_title(t) for t in item.evidence}
    abstained = is_abstention(answer, out.get("abstained"))
    if item.must_abstain:
        # No answer is right: an abstention is the correct reply.
        correct = exact = abstained
    elif item.options:
        correct = choice_correct(answer, item.correct_option)
        exact = correct
    else:
        decided = choice_conclusion_correct(answer, item.answers, item.question)
        correct = contains_answer(answer, item.answers) if decided is None else decided
        exact = exact_match(answer, item.answers)
    leaked = [s for s in item.must_not_contain if mentions(strip_citations(answer), s)]
    return {
        "answerable": item.answerable,
        "question": item.question,
        "answers": list(item.answers),
        "options": list(item.options) if item.options else None,
        "correct_option": item.correct_option,
        "answer": answer[:2000],
        "correct": correct,
        "exact": exact,
        "abstained": abstained,
        "must_abstain": item.must_abstain,
        "abstention_correct": abstained if item.must_abstain else None,
        "leaked": leaked,
        "leakage": bool(leaked) if item.must_not_contain else None,
        "flagged_abstention": bool(out.get("abstained")),
        "reason": out.get("reason"),
        "basis": out.get("basis"),
        "route": out.get("route"),
        "cited_titles": titles,
        "cited_evidence": any(normalize_title(t) in evidence for t in titles),
        "cited_evidence_count": sum(1 for t in titles if normalize_title(t) in evidence),
        "confidence": _confidence(trace, {c["doc_id"] for c in citations}),
        "judged_by": dict(judged_by),
        "gate": {k: gate_detail.get(k) for k in ("route", "s_max", "cutoff", "why")},
        "incidents": [f"{e['node']}:{e['event']}" for e in trace if e["event"] in INCIDENTS],
        "cost": out.get("cost") or {},
        "wall_seconds": round(wall, 3),
    }


def _confidence(trace: Sequence[Mapping[str, Any]], cited: set[str]) -> float | None:
    """The judge's highest score among the cited documents (None: no judge scored them).

    It ranks a system's answers for the risk-coverage curve: answering only above a
    cut-off on it is what a stricter threshold would do. An answer citing nothing that
    was judged (the model's own knowledge) gets 0.
    """
    scores: dict[str, float] = {}
    for e in trace:
        if (e["node"], e["event"]) != ("judge", "judged"):
            continue
        detail = e["detail"]
        value = detail.get("judge_score", detail.get("p_highly"))
        if value is not None:
            doc = str(detail.get("doc_id"))
            scores[doc] = max(scores.get(doc, 0.0), float(value))
    if not scores:
        return None
    return round(max((scores.get(d, 0.0) for d in cited), default=0.0), 4)


def run_costs(ok: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`cost_summary` of answering records: their `cost` and the harness's wall time."""
    return cost_summary(
        (r.get("cost") or {} for r in ok), (float(r.get("wall_seconds", 0.0)) for r in ok)
    )


def trust_summary(ok: Sequence[Mapping[str, Any]]) -> Summary:
    """Answerable vs no-evidence rates, trust, citation precision and risk-coverage."""
    answerable = [r for r in ok if not r.get("must_abstain")]
    abstain = [r for r in ok if r.get("must_abstain")]
    out: Summary = {
        "answerable": {
            "n": len(answerable),
            "accuracy": rate(sum(1 for r in answerable if r["correct"]), len(answerable)).as_dict(),
            "abstention": rate(
                sum(1 for r in answerable if r["abstained"]), len(answerable)
            ).as_dict(),
        },
        "trust": trust(
            (bool(r.get("must_abstain")), bool(r["abstained"]), bool(r["correct"])) for r in ok
        ).as_dict(),
    }
    if abstain:
        out["no_evidence"] = {
            "n": len(abstain),
            "abstention": rate(sum(1 for r in abstain if r["abstained"]), len(abstain)).as_dict(),
        }
    # Citation precision: cited pages that are the item's evidence pages, over the
    # answers given to answerable items (records that count them).
    counted = [
        r for r in answerable if not r["abstained"] and r.get("cited_evidence_count") is not None
    ]
    cited = sum(len(r.get("cited_titles") or []) for r in counted)
    if cited:
        hits = sum(int(r["cited_evidence_count"]) for r in counted)
        out["citation_precision"] = rate(hits, cited).as_dict()
    conflicts = conflict_counts(ok)
    if conflicts:
        out["conflicts"] = conflicts
    if any(r.get("confidence") is not None for r in ok):
        points, area = risk_coverage(
            (
                r.get("confidence"),
                not r["abstained"],
                bool(r["correct"]) and not r.get("must_abstain"),
            )
            for r in ok
        )
        out["risk_coverage"] = {"points": points, "aurc": area}
    return out


ABLATIONS = ("no_gate", "no_judge", "no_combination", "no_rewrite", "no_verify")


def compared_pairs(systems: Iterable[str]) -> list[tuple[str, str]]:
    """Which comparisons the findings state: retrieval, judging, ablations."""
    names = set(systems)
    pairs = [("plain_rag", "no_retrieval")]
    pairs += [(s, "plain_rag") for s in ("crag", "judged", "judged_paper", "judged_fast")]
    pairs += [(s, "crag") for s in ("judged", "judged_paper", "judged_fast")]
    pairs += [(s, "judged") for s in ABLATIONS]
    return [(a, b) for a, b in pairs if a in names and b in names]


def paired_tests(
    records: Sequence[Mapping[str, Any]], systems: Iterable[str], suite: str = "e2e"
) -> list[Summary]:
    """Exact McNemar tests of each comparison of `compared_pairs` on the items both finished.

    An item is right when answered correctly or, for a no-evidence item, abstained from.
    """
    right: dict[str, dict[str, bool]] = {}
    for r in records:
        if r.get("suite") == suite and not r.get("error"):
            right.setdefault(str(r["system"]), {})[str(r["item_id"])] = bool(r["correct"])
    tests: list[Summary] = []
    for a, b in compared_pairs(systems):
        common = sorted(set(right.get(a, {})) & set(right.get(b, {})))
        if common:
            test = mcnemar((right[a][i], right[b][i]) for i in common)
            tests.append({"a": a, "b": b, **test.as_dict()})
    return tests


def conflict_counts(ok: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Runs whose documents disagreed (route `conflict`), by kind: how many, how many right.

    Right: the correct answer, or an abstention where no evidence exists.
    """
    counts: dict[str, dict[str, int]] = {}
    for r in ok:
        kind = (r.get("route") or {}).get("conflict")
        if kind:
            entry = counts.setdefault(str(kind), {"runs": 0, "right": 0})
            entry["runs"] += 1
            entry["right"] += int(bool(r["correct"]))
    return counts


def trust_md(data: Summary) -> list[str]:
    """The report's trust table, and the paired tests when there are any."""
    systems = data["systems"]
    header = [
        "system",
        "answerable: correct",
        "answerable: abstained",
        "no evidence: abstained",
        "hallucination",
        "selective accuracy",
        "citation precision",
        "AURC",
        "LLM calls/q",
        "s/q",
    ]
    rows = []
    for s, v in systems.items():
        t = v.get("trust") or {}
        rows.append(
            [
                s,
                pct((v.get("answerable") or {}).get("accuracy")),
                pct((v.get("answerable") or {}).get("abstention")),
                pct((v.get("no_evidence") or {}).get("abstention")),
                pct(t.get("hallucination")),
                pct(t.get("selective_accuracy")),
                pct(v.get("citation_precision")),
                num((v.get("risk_coverage") or {}).get("aurc")),
                num(v["cost"]["mean"]["llm_calls"], 1),
                num(v["cost"]["mean"]["seconds"], 1),
            ]
        )
    lines = ["Trust (every variant together):", "", *table(header, rows)]
    lines.append(
        "Hallucination: no-evidence items answered anyway. Selective accuracy: right "
        "answers among the answers given (an answer to a no-evidence item is wrong). "
        "Citation precision: cited pages that are the item's evidence page, over the "
        "answers to answerable items. AURC: mean risk along the risk-coverage curve of the "
        "answers ranked by the judge's score of their cited documents (lower is better; "
        "systems without a judge score have none)."
    )
    disagreed = []
    for name, summary in systems.items():
        counts = summary.get("conflicts") or {}
        if counts:
            runs = (f"{c['runs']} {kind} ({c['right']} right)" for kind, c in counts.items())
            disagreed.append(f"{name}: " + ", ".join(runs))
    if disagreed:
        lines.append(
            "Documents that disagreed (route `conflict`: dated, the latest holds; undated, "
            "each value given): " + "; ".join(disagreed) + "."
        )
    lines.append("")
    paired = data.get("paired") or []
    if paired:
        lines += [
            "Paired (exact McNemar on the items both systems finished; right = correct "
            "answer, or abstention where no evidence exists):",
            "",
            *table(
                ["system", "baseline", "items", "only system right", "only baseline right", "p"],
                [
                    [p["a"], p["b"], str(p["n"]), str(p["only_a"]), str(p["only_b"]), num(p["p"])]
                    for p in paired
                ],
            ),
        ]
    return lines
